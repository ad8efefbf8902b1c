package protocol

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// GateType is the kind of decision a gate waits for.
type GateType string

const (
	GateApproval          GateType = "approval"
	GateProviderSelection GateType = "provider_selection"
	GateDestructive       GateType = "destructive"
	GatePolicyException   GateType = "policy_exception"
	GateMissingInput      GateType = "missing_input"
	GateCostConfirmation  GateType = "cost_confirmation"
)

// GateTypes lists every gate type, sorted.
var GateTypes = []GateType{GateApproval, GateCostConfirmation, GateDestructive, GateMissingInput, GatePolicyException, GateProviderSelection}

// Valid reports whether t is a known gate type.
func (t GateType) Valid() bool { return slices.Contains(GateTypes, t) }

// WaitStatus is the operation status while a gate of this type waits.
func (t GateType) WaitStatus() OperationStatus {
	if t == GateMissingInput || t == GateProviderSelection {
		return StatusWaitingForInput
	}
	return StatusWaitingForApproval
}

// OptionEffect is what choosing a gate option does.
type OptionEffect string

const (
	// EffectProceed releases the jobs the gate holds.
	EffectProceed OptionEffect = "proceed"
	// EffectCancel ends the operation as Cancelled: nothing the gate
	// holds, nor anything that has not started yet, runs.
	EffectCancel OptionEffect = "cancel"
	// EffectBind binds the option's Candidate (an existing provider); the
	// planner builds the plan for it.
	EffectBind OptionEffect = "bind"
	// EffectCreate creates a provider of kind Provider through a
	// sub-operation that the planner adds behind the gate.
	EffectCreate OptionEffect = "create"
)

// OptionEffects lists every effect, sorted.
var OptionEffects = []OptionEffect{EffectBind, EffectCancel, EffectCreate, EffectProceed}

// Valid reports whether e is a known effect.
func (e OptionEffect) Valid() bool { return slices.Contains(OptionEffects, e) }

// GateOption is one choice a gate offers and what choosing it does.
type GateOption struct {
	ID     string       `yaml:"id" json:"id"`
	Effect OptionEffect `yaml:"effect" json:"effect"`
	// Candidate is the provider a bind option binds (a candidate name).
	Candidate string `yaml:"candidate,omitempty" json:"candidate,omitempty"`
	// Provider is the provider kind a create option creates.
	Provider string `yaml:"provider,omitempty" json:"provider,omitempty"`
	// Plain is set when the pack wrote the option as a bare string, which
	// means proceed.
	Plain bool `yaml:"-" json:"-"`
}

// Proceed returns a proceed option.
func Proceed(id string) GateOption { return GateOption{ID: id, Effect: EffectProceed} }

// Cancel returns a cancel option.
func Cancel(id string) GateOption { return GateOption{ID: id, Effect: EffectCancel} }

// UnmarshalYAML reads an option written as a mapping
// ({id: uninstall, effect: proceed}) or as a bare string, which proceeds.
func (o *GateOption) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		var s string
		if err := n.Decode(&s); err != nil {
			return err
		}
		*o = GateOption{ID: s, Effect: EffectProceed, Plain: true}
		return nil
	}
	type plain GateOption
	var p plain
	if err := n.Decode(&p); err != nil {
		return err
	}
	*o = GateOption(p)
	return nil
}

// UnmarshalJSON reads an option as an object, or a bare string (plans
// written before options had effects), which proceeds.
func (o *GateOption) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*o = GateOption{ID: s, Effect: EffectProceed, Plain: true}
		return nil
	}
	type plain GateOption
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*o = GateOption(p)
	return nil
}

// String renders the option for people: "uninstall (proceed)",
// "bind aws-s3-eu (bind aws-s3-eu)".
func (o GateOption) String() string {
	switch o.Effect {
	case EffectBind:
		return fmt.Sprintf("%s (bind %s)", o.ID, o.Candidate)
	case EffectCreate:
		return fmt.Sprintf("%s (create %s)", o.ID, o.Provider)
	}
	return fmt.Sprintf("%s (%s)", o.ID, o.Effect)
}

// Validate checks the option's own shape: an id, a known effect, and the
// target its effect needs (and only that).
func (o GateOption) Validate() error {
	if o.ID == "" {
		return fmt.Errorf("option id is empty")
	}
	if !o.Effect.Valid() {
		return fmt.Errorf("option %q: effect %q is not one of %v", o.ID, o.Effect, OptionEffects)
	}
	if o.Effect == EffectBind && o.Candidate == "" {
		return fmt.Errorf("option %q: effect bind needs the candidate it binds (candidate: NAME)", o.ID)
	}
	if o.Effect == EffectCreate && o.Provider == "" {
		return fmt.Errorf("option %q: effect create needs the provider kind it creates (provider: KIND)", o.ID)
	}
	if o.Effect != EffectBind && o.Candidate != "" {
		return fmt.Errorf("option %q: candidate is set but the effect is %s; only bind options name a candidate", o.ID, o.Effect)
	}
	if o.Effect != EffectCreate && o.Provider != "" {
		return fmt.Errorf("option %q: provider is set but the effect is %s; only create options name a provider", o.ID, o.Effect)
	}
	return nil
}

// Gate is a DAG node that waits for a decision.
type Gate struct {
	ID            string       `yaml:"id" json:"id"`
	Type          GateType     `yaml:"type" json:"type"`
	Reason        string       `yaml:"reason" json:"reason"`
	Options       []GateOption `yaml:"options" json:"options"`
	RequiredRoles []string     `yaml:"required_roles,omitempty" json:"required_roles,omitempty"`
	// Before names the jobs the gate holds back (template gates).
	Before []string `yaml:"before,omitempty" json:"before,omitempty"`
	// Chosen is the bind or create option the plan was built for (chosen
	// at plan, or the creation an approval or cost gate holds). A decision
	// for another bind or create option, or for any when Chosen is empty,
	// is refused at apply: the plan does not hold its jobs.
	Chosen string `yaml:"-" json:"chosen,omitempty"`
	// Parameter names the parameter a missing_input gate waits for.
	Parameter string `yaml:"-" json:"parameter,omitempty"`
	// OptionRoles are, per option id, roles of which the actor choosing
	// that option must hold one on top of RequiredRoles: those of a
	// require_approval policy rule on what the option binds or creates,
	// when the gate requires roles of its own (the capability policy's
	// approval_roles). Set by capability resolution, never by a pack.
	OptionRoles map[string][]string `yaml:"-" json:"option_roles,omitempty"`
}

// Option returns the option with id.
func (g Gate) Option(id string) (GateOption, bool) {
	for _, o := range g.Options {
		if o.ID == id {
			return o, true
		}
	}
	return GateOption{}, false
}

// OptionIDs lists the option ids in the gate's order.
func (g Gate) OptionIDs() []string {
	out := make([]string, len(g.Options))
	for i, o := range g.Options {
		out[i] = o.ID
	}
	return out
}

// Validate checks the gate's own shape.
func (g Gate) Validate() error {
	if g.ID == "" {
		return fmt.Errorf("gate: id is empty")
	}
	if !g.Type.Valid() {
		return fmt.Errorf("gate %q: type %q is not one of %v", g.ID, g.Type, GateTypes)
	}
	if len(g.Options) == 0 {
		return fmt.Errorf("gate %q: needs at least one option", g.ID)
	}
	seen := map[string]bool{}
	for _, o := range g.Options {
		if err := o.Validate(); err != nil {
			return fmt.Errorf("gate %q: %w", g.ID, err)
		}
		if seen[o.ID] {
			return fmt.Errorf("gate %q: option %q is listed twice", g.ID, o.ID)
		}
		seen[o.ID] = true
	}
	if g.Chosen != "" {
		if o, ok := g.Option(g.Chosen); !ok || (o.Effect != EffectBind && o.Effect != EffectCreate) {
			return fmt.Errorf("gate %q: the plan is built for option %q, which is not a bind or create option of the gate", g.ID, g.Chosen)
		}
	}
	return nil
}

// Decision answers a gate: the option chosen and who chose it.
type Decision struct {
	Gate   string   `json:"gate"`
	Option string   `json:"option"`
	Actor  string   `json:"actor"`
	Roles  []string `json:"roles"`
}

// Check verifies the decision against the gate: the option must be one of
// the gate's, a bind or create option must be the one the plan was built
// for (Chosen), and the actor must hold one of the required roles.
func (d Decision) Check(g Gate) error {
	_, err := d.Choose(g)
	return err
}

// Choose is Check returning the chosen option.
func (d Decision) Choose(g Gate) (GateOption, error) {
	o, ok := g.Option(d.Option)
	if !ok {
		return GateOption{}, fmt.Errorf("gate %q: option %q is not one of %q", g.ID, d.Option, g.OptionIDs())
	}
	if o.Effect == EffectBind || o.Effect == EffectCreate {
		switch {
		case g.Chosen == "":
			return GateOption{}, fmt.Errorf("gate %q: option %q binds or creates a provider, but the plan holds no provider for this gate; plan again with the decision among the approvals", g.ID, d.Option)
		case g.Chosen != o.ID:
			return GateOption{}, fmt.Errorf("gate %q: option %q differs from %q, the option the plan was built for; plan again with the decision", g.ID, d.Option, g.Chosen)
		}
	}
	if err := d.CheckRoles(g); err != nil {
		return GateOption{}, err
	}
	return o, nil
}

// CheckRoles verifies that the actor holds one of the gate's required
// roles (any actor when the gate requires none) and, when the chosen
// option requires roles of its own (OptionRoles), one of those too.
func (d Decision) CheckRoles(g Gate) error {
	holds := func(roles []string) bool {
		return slices.ContainsFunc(d.Roles, func(r string) bool { return slices.Contains(roles, r) })
	}
	if len(g.RequiredRoles) > 0 && !holds(g.RequiredRoles) {
		return fmt.Errorf("gate %q: actor %q has roles %q but the gate requires one of %q", g.ID, d.Actor, d.Roles, g.RequiredRoles)
	}
	if roles := g.OptionRoles[d.Option]; len(roles) > 0 && !holds(roles) {
		return fmt.Errorf("gate %q: actor %q has roles %q but option %q also requires one of %q", g.ID, d.Actor, d.Roles, d.Option, roles)
	}
	return nil
}

// DescribeOptions renders a gate's options for messages: "uninstall
// (proceed) | cancel operation (cancel)".
func (g Gate) DescribeOptions() string {
	parts := make([]string, len(g.Options))
	for i, o := range g.Options {
		parts[i] = o.String()
	}
	return strings.Join(parts, " | ")
}
