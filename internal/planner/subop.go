package planner

import (
	"fmt"
	"slices"

	"github.com/intentops/terraform-provider-cp/internal/capability"
	"github.com/intentops/terraform-provider-cp/internal/paramtype"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// gateStageID holds the gate nodes of capability decisions.
const gateStageID = "capabilities"

// addDecisions turns create decisions into sub-operations and gates
// (of gate decisions, and of bind or create decisions chosen at a gate)
// into gate nodes, in capability key order.
func (b *builder) addDecisions() error {
	for _, key := range protocol.SortedKeys(b.decisions) {
		d := b.decisions[key]
		var gate *node
		// A gate decision, or a bind or create chosen at a gate, which
		// still holds its consumers until the decision is checked at apply.
		if d.Gate != nil {
			if d.Gate == nil {
				return fmt.Errorf("capability decision for %s is a gate but carries no gate", key)
			}
			s := b.stageByID(gateStageID)
			if s == nil {
				s = &stage{id: gateStageID, title: "Resolve capabilities"}
				b.stages = append([]*stage{s}, b.stages...)
			}
			u := &unit{key: d.Gate.ID, gate: d.Gate, pack: b.in.Pack, stage: s, origin: protocol.OriginGate, because: d.Gate.Reason}
			if _, dup := b.units[u.key]; dup {
				return fmt.Errorf("gate id %q of the %s decision is already used in the plan", u.key, key)
			}
			s.units = append(s.units, u)
			b.units[u.key] = u
			gate = b.gateNode(u)
			b.decisionNodes[key] = []*node{gate}
		}
		if d.Create == nil || d.Kind == capability.KindBind {
			continue
		}
		nodes, err := b.addSubOperation(d, gate)
		if err != nil {
			return fmt.Errorf("sub-operation for %s: %w", key, err)
		}
		b.decisionNodes[key] = nodes
	}
	return nil
}

func (b *builder) gateNode(u *unit) *node {
	return b.addNode(u, &protocol.JobInstance{
		ID: u.key, JobID: u.gate.ID, Stage: u.stage.id, Pack: u.pack.Ref(),
		Origin: protocol.OriginGate, Because: u.because, SubOperation: u.subOp, Gate: u.gate,
	})
}

// addSubOperation nests the creating pack's template ahead of the
// consumers of the capability. Its instances wait for gate when set.
// It returns the nodes consumers depend on.
func (b *builder) addSubOperation(d *capability.Decision, gate *node) ([]*node, error) {
	c := d.Create
	if b.in.Packs == nil {
		return nil, fmt.Errorf("decision creates %s with pack %s, but the planner was given no pack source", c.Provider, c.Pack)
	}
	sp, err := b.in.Packs.Get(c.Pack, c.Version)
	if err != nil {
		return nil, fmt.Errorf("get pack %s %s: %w", c.Pack, c.Version, err)
	}
	tmpl, err := sp.Template(c.Action)
	if err != nil {
		return nil, err
	}
	merged, err := shapedParams(sp, b.in.Intent.Parameters, c.Params, d.Requirement.Key)
	if err != nil {
		return nil, err
	}
	params, err := subPackParams(sp, merged)
	if err != nil {
		return nil, err
	}
	prefix := sp.ID + "/"
	b.noteMissing(sp, prefix, sp.ID, params)
	key := d.Requirement.Key
	b.subOps = append(b.subOps, protocol.SubOperation{
		ID: sp.ID, Pack: sp.Ref(), Template: tmpl.Ref(), Capability: key,
		Reason: fmt.Sprintf("%s required by %s: %s", key, b.in.Pack.Ref(), d.Reason),
	})
	at := b.consumerStage(key)
	before := len(b.stages)
	if err := b.addTemplate(tmpl, sp, prefix, sp.ID, params, protocol.OriginSubOperation); err != nil {
		return nil, err
	}
	added := slices.Clone(b.stages[before:])
	b.stages = slices.Insert(b.stages[:before], at, added...)
	var nodes []*node
	for _, s := range added {
		for _, u := range s.units {
			u.because = "creates " + key + " for " + b.in.Pack.ID
			if err := b.expand(u); err != nil {
				return nil, err
			}
			b.index(u)
			nodes = append(nodes, u.insts...)
		}
	}
	if err := b.addTemplateGates(tmpl, sp, prefix); err != nil {
		return nil, err
	}
	if gate != nil {
		for _, n := range nodes {
			n.needs = append(n.needs, gate.idx)
		}
	}
	var providers []*node
	for _, n := range nodes {
		if _, ok := n.u.job.Provided(key); ok {
			providers = append(providers, n)
		}
	}
	if len(providers) > 0 {
		return providers, nil
	}
	if !slices.ContainsFunc(sp.Provides, func(p protocol.PackProvision) bool { return p.Capability == key }) {
		return nil, fmt.Errorf("pack %s action %s does not provide %s (no job of %s provides it and the pack does not declare it); choose a pack that provides it",
			sp.Ref(), c.Action, key, tmpl.Ref())
	}
	return nodes, nil
}

// consumerStage returns the index in b.stages of the first stage with a
// main-operation job requiring key, or of the first main stage.
func (b *builder) consumerStage(key string) int {
	first := -1
	for i, s := range b.stages {
		for _, u := range s.units {
			if u.job == nil || u.prefix != "" {
				continue
			}
			if first < 0 {
				first = i
			}
			if slices.ContainsFunc(u.job.Inputs.Requires.Capabilities, func(r protocol.CapabilityRequirement) bool { return r.Key == key }) {
				return i
			}
		}
	}
	if first < 0 {
		return len(b.stages)
	}
	return first
}

// addTemplateGates adds a template's gates as gate nodes ahead of the jobs
// they hold back (Gate.Before).
func (b *builder) addTemplateGates(tmpl *protocol.PlanTemplate, p *protocol.ScenarioPack, prefix string) error {
	for i := range tmpl.Gates {
		g := &tmpl.Gates[i]
		if err := g.Validate(); err != nil {
			return fmt.Errorf("template %s: %w", tmpl.Ref(), err)
		}
		var held []*unit
		for _, id := range g.Before {
			if u, ok := b.units[prefix+id]; ok && u.job != nil {
				held = append(held, u)
			}
		}
		u := &unit{key: prefix + g.ID, gate: g, pack: p, origin: protocol.OriginGate, because: g.Reason}
		if prefix != "" {
			u.subOp = p.ID
		}
		if _, dup := b.units[u.key]; dup {
			return fmt.Errorf("template %s: gate id %q is already used in the plan", tmpl.Ref(), g.ID)
		}
		if len(held) > 0 {
			placeBefore(held[0].stage, u, held[0])
		} else {
			placeBefore(b.firstStage(prefix), u, nil)
		}
		b.units[u.key] = u
		gn := b.gateNode(u)
		for _, h := range held {
			for _, n := range h.insts {
				n.needs = append(n.needs, gn.idx)
			}
		}
	}
	return nil
}

func (b *builder) firstStage(prefix string) *stage {
	for _, s := range b.stages {
		for _, u := range s.units {
			if u.prefix == prefix {
				return s
			}
		}
	}
	return b.stages[0]
}

// gateUnconsumed makes the main operation's root instances wait for
// created or gated capabilities that no job requirement consumed (pack
// level requirements).
func (b *builder) gateUnconsumed() {
	for _, key := range protocol.SortedKeys(b.decisionNodes) {
		if b.consumed[key] {
			continue
		}
		dn := b.decisionNodes[key]
		for _, n := range b.nodes {
			if n.u.prefix != "" || n.u.gate != nil || len(n.needs) > 0 || slices.Contains(dn, n) {
				continue
			}
			for _, p := range dn {
				n.needs = append(n.needs, p.idx)
			}
		}
	}
}

// shapedParams are the intent's parameters with the creation's shaped
// ones (capability.Create.Params) set as the sub-pack's, which the pack's
// types then check. An intent value for a shaped parameter that differs
// is refused: the requirement's constraint decides it.
func shapedParams(sp *protocol.ScenarioPack, intent, shaped map[string]string, req string) (map[string]string, error) {
	if len(shaped) == 0 {
		return intent, nil
	}
	out := make(map[string]string, len(intent)+len(shaped))
	for k, v := range intent {
		out[k] = v
	}
	var errs ParamErrors
	for _, k := range protocol.SortedKeys(shaped) {
		name := sp.ID + "." + k
		if v, set := intent[name]; set && v != "" && v != shaped[k] {
			errs = append(errs, &ParamError{Pack: sp.Ref(), Name: name, Value: v,
				Msg: fmt.Sprintf("%s, but the constraints on %s set it to %s; remove the parameter or change the constraint",
					paramtype.Quote(v), req, paramtype.Quote(shaped[k]))})
			continue
		}
		out[name] = shaped[k]
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return out, nil
}
