package protocol

import "fmt"

// PackRequirement is a capability the pack needs from elsewhere.
type PackRequirement struct {
	Capability  string            `yaml:"capability" json:"capability"`
	Scope       Scope             `yaml:"scope,omitempty" json:"scope,omitempty"`
	Constraints map[string]string `yaml:"constraints,omitempty" json:"constraints,omitempty"`
	Optional    bool              `yaml:"optional,omitempty" json:"optional,omitempty"`
}

// Requirement converts to a capability requirement.
func (p PackRequirement) Requirement() CapabilityRequirement {
	return CapabilityRequirement{Key: p.Capability, Scope: p.Scope, Constraints: p.Constraints, Optional: p.Optional}
}

// PackProvision is a capability the pack provides once an action completes.
// The resource that ran the pack exports it to others with Attributes,
// each value's {name} placeholders replaced by the intent's parameter
// (with its default) or one of ExportValues.
type PackProvision struct {
	Capability string            `yaml:"capability" json:"capability"`
	Scope      Scope             `yaml:"scope,omitempty" json:"scope,omitempty"`
	Attributes map[string]string `yaml:"attributes,omitempty" json:"attributes,omitempty"`
	// Provider is the provider kind a capability policy names for this
	// export (allowed_providers, default_provider); empty means the
	// exporting resource's own kind.
	Provider string `yaml:"provider,omitempty" json:"provider,omitempty"`
	// ShapedBy maps a consumer's requirement constraints to this pack's
	// parameters when the pack creates the provider for it.
	ShapedBy []ConstraintShape `yaml:"shaped_by,omitempty" json:"shaped_by,omitempty"`
}

// ExportValues are the placeholders an export attribute may name besides
// the pack's parameters: the intent's name, environment and region, and
// the API endpoint of a cluster intent.
var ExportValues = map[string]bool{"name": true, "environment": true, "region": true, "api_endpoint": true}

// Template kinds: what a plan template does to the resource its pack
// manages. A create template brings it into existence (customizations are
// made against it, requirements are resolved for it); a destroy template
// removes it (a resource's delete runs it); a day-2 template acts on an
// existing one, whose requirements are already bound.
const (
	KindCreate  = "create"
	KindDay2    = "day2"
	KindDestroy = "destroy"
)

// TemplateKinds lists the valid kinds.
var TemplateKinds = []string{KindCreate, KindDay2, KindDestroy}

// TemplateRef points from a pack to one of its plan templates.
type TemplateRef struct {
	ID         string `yaml:"id" json:"id"`                 // e.g. kubernetes.create
	Action     string `yaml:"action" json:"action"`         // e.g. create
	Entrypoint string `yaml:"entrypoint" json:"entrypoint"` // first job
	File       string `yaml:"file" json:"file"`             // template file inside the pack
	// Kind is create, day2 or destroy; see LifecycleKind for the default.
	Kind string `yaml:"kind,omitempty" json:"kind,omitempty"`
}

// LifecycleKind is the template's kind: Kind when set; otherwise create
// for the actions create and install, destroy for delete and uninstall,
// day2 for any other.
func (r TemplateRef) LifecycleKind() string {
	if r.Kind != "" {
		return r.Kind
	}
	switch r.Action {
	case "create", "install":
		return KindCreate
	case "delete", "uninstall":
		return KindDestroy
	}
	return KindDay2
}

// Editable says how a pack's plans may be edited. AdvancedMode false
// refuses customizations and plan patches on the pack's intents; unset
// (nil), as true, allows them.
type Editable struct {
	AdvancedMode *bool `yaml:"advanced_mode,omitempty" json:"advanced_mode,omitempty"`
}

// Risk is the pack's default risk level.
type Risk struct {
	DefaultLevel string `yaml:"default_level" json:"default_level"` // low, medium, high
}

// ScenarioPack is a versioned marketplace unit (tempo@1.0.0).
type ScenarioPack struct {
	ID            string               `yaml:"id" json:"id"`
	Version       string               `yaml:"version" json:"version"`
	Title         string               `yaml:"title,omitempty" json:"title,omitempty"`
	Description   string               `yaml:"description,omitempty" json:"description,omitempty"`
	ResourceTypes []string             `yaml:"resource_types" json:"resource_types"`
	Actions       []string             `yaml:"actions" json:"actions"`
	Requires      []PackRequirement    `yaml:"requires,omitempty" json:"requires,omitempty"`
	Provides      []PackProvision      `yaml:"provides,omitempty" json:"provides,omitempty"`
	Parameters    map[string]ParamSpec `yaml:"parameters,omitempty" json:"parameters,omitempty"`
	PlanTemplates []TemplateRef        `yaml:"plan_templates" json:"plan_templates"`
	Editable      Editable             `yaml:"editable,omitempty" json:"editable,omitempty"`
	Risk          Risk                 `yaml:"risk,omitempty" json:"risk,omitempty"`
	// Cost is what one instance costs, weighed when a capability decision
	// creates it (see PackCost).
	Cost *PackCost `yaml:"cost,omitempty" json:"cost,omitempty"`

	// Filled by the loader, not read from pack.yaml.
	Templates map[string]*PlanTemplate `yaml:"-" json:"templates,omitempty"` // by action
	Jobs      map[string]*Job          `yaml:"-" json:"jobs,omitempty"`      // job library by id
	Scripts   map[string][]byte        `yaml:"-" json:"-"`                   // by path inside the pack
	Source    string                   `yaml:"-" json:"source,omitempty"`    // "builtin" or a directory
}

// Ref returns id@version.
func (p *ScenarioPack) Ref() string { return p.ID + "@" + p.Version }

// KindOf returns the kind of the action's template, "" when the pack has
// no template for it.
func (p *ScenarioPack) KindOf(action string) string {
	for _, r := range p.PlanTemplates {
		if r.Action == action {
			return r.LifecycleKind()
		}
	}
	return ""
}

// ActionOfKind returns the first action whose template is of kind, "" when
// none is.
func (p *ScenarioPack) ActionOfKind(kind string) string {
	for _, r := range p.PlanTemplates {
		if r.LifecycleKind() == kind {
			return r.Action
		}
	}
	return ""
}

// Template returns the plan template of an action.
func (p *ScenarioPack) Template(action string) (*PlanTemplate, error) {
	t, ok := p.Templates[action]
	if !ok {
		return nil, fmt.Errorf("pack %s has no template for action %q (actions: %v)", p.Ref(), action, p.Actions)
	}
	return t, nil
}

// Stage is a human grouping of jobs.
type Stage struct {
	ID    string   `yaml:"id" json:"id"`
	Title string   `yaml:"title" json:"title"`
	Jobs  []string `yaml:"jobs" json:"jobs"`
	// Requires and Produces are the stage's contract, checked at pack load
	// against its jobs: it produces only what one of them provides (a
	// capability, an artifact or an evidence id) and requires only what an
	// earlier stage produces, one of its jobs requires or the pack
	// requires. The planner derives edges from the jobs' own contracts.
	Requires []string `yaml:"requires,omitempty" json:"requires,omitempty"`
	Produces []string `yaml:"produces,omitempty" json:"produces,omitempty"`
}

// PlanTemplate is a pack's list of stages and jobs for one action.
type PlanTemplate struct {
	ID      string  `yaml:"id" json:"id"`         // kubernetes.create
	Action  string  `yaml:"action" json:"action"` // create
	Title   string  `yaml:"title" json:"title"`   // Create Kubernetes cluster
	Stages  []Stage `yaml:"stages" json:"stages"`
	Gates   []Gate  `yaml:"gates,omitempty" json:"gates,omitempty"`
	Version string  `yaml:"-" json:"version"` // the pack's version
}

// Ref returns id@version, e.g. kubernetes.create@1.0.0.
func (t *PlanTemplate) Ref() string { return t.ID + "@" + t.Version }

// StageOf returns the stage id holding job, or "".
func (t *PlanTemplate) StageOf(job string) string {
	for _, s := range t.Stages {
		for _, j := range s.Jobs {
			if j == job {
				return s.ID
			}
		}
	}
	return ""
}

// JobIDs returns the template's job ids in stage order.
func (t *PlanTemplate) JobIDs() []string {
	var out []string
	for _, s := range t.Stages {
		out = append(out, s.Jobs...)
	}
	return out
}
