package protocol

// Origin says why a job instance is in a plan.
type Origin string

const (
	OriginTemplate      Origin = "template"
	OriginCustomization Origin = "customization"
	OriginPatch         Origin = "patch"
	OriginInserted      Origin = "inserted" // planned for a missing input
	OriginSubOperation  Origin = "sub-operation"
	OriginGate          Origin = "gate"
)

// JobInstance is a job expanded onto one host (or once), e.g.
// join-workers[worker-3].
type JobInstance struct {
	ID    string `json:"id"`
	JobID string `json:"job"`
	Stage string `json:"stage"`
	Host  string `json:"host,omitempty"`
	// RunOn is the host the instance executes on when it is not Host
	// (scope.run_on): CP_HOST is still Host.
	RunOn  string            `json:"run_on,omitempty"`
	Pack   string            `json:"pack"` // pack ref the job comes from
	Params map[string]string `json:"params,omitempty"`
	// Needs are instance ids and group needs ("JOB[*]", GroupNeed), sorted.
	Needs  []string `json:"needs,omitempty"`
	Origin Origin   `json:"origin"`
	// Because says why a non-template instance is here (inserted for a
	// missing artifact, added by a patch of an author...).
	Because string `json:"because,omitempty"`
	// SubOperation names the nested operation this instance belongs to.
	SubOperation string `json:"sub_operation,omitempty"`
	// Retry is set when a patch asked to retry this job.
	Retry bool `json:"retry,omitempty"`
	// Job is the resolved contract; nil for gates.
	Job *Job `json:"-"`
	// Gate is set for gate nodes.
	Gate *Gate `json:"gate,omitempty"`
	// IdempotencyKey is the rendered key.
	IdempotencyKey string `json:"idempotency_key,omitempty"`
}

// IsGate reports whether the instance is a gate node.
func (ji *JobInstance) IsGate() bool { return ji.Gate != nil }

// PlanStage is a stage of a plan with its instance ids.
type PlanStage struct {
	ID        string   `json:"id"`
	Title     string   `json:"title"`
	Instances []string `json:"instances"`
}

// SubOperation is a nested plan created by a capability `create` decision.
type SubOperation struct {
	ID         string `json:"id"`
	Pack       string `json:"pack"`
	Template   string `json:"template"`
	Capability string `json:"capability"`
	Reason     string `json:"reason"`
}

// Plan is the DAG for one operation.
type Plan struct {
	ID         string         `json:"id"`
	Template   string         `json:"template"` // kubernetes.create@1.0.0
	Title      string         `json:"title"`
	Customized bool           `json:"customized"`
	Changes    []string       `json:"changes,omitempty"` // customization and patch changes, rendered
	Stages     []PlanStage    `json:"stages"`
	Instances  []*JobInstance `json:"instances"`
	SubOps     []SubOperation `json:"sub_operations,omitempty"`
	Bindings   []Binding      `json:"bindings,omitempty"`
	Intent     Intent         `json:"intent"`
	Patches    []PlanPatch    `json:"patches,omitempty"`
	index      map[string]*JobInstance
}

// Binding is the outcome of resolving one requirement, as kept in a plan.
type Binding struct {
	Requirement CapabilityRequirement `json:"requirement"`
	Decision    string                `json:"decision"` // bind, create, gate
	Provider    string                `json:"provider,omitempty"`
	Capability  *Capability           `json:"capability,omitempty"`
	Reason      string                `json:"reason"`
	// Candidates say, when policy rules were weighed, what each candidate
	// (or provider a pack would create) came to and which rule decided.
	Candidates []BindingCandidate `json:"candidates,omitempty"`
}

// BindingCandidate is one candidate of a binding with its verdict.
type BindingCandidate struct {
	Name      string `json:"name"`
	Provider  string `json:"provider"`
	Accepted  bool   `json:"accepted"`
	DecidedBy string `json:"decided_by"`
	Reason    string `json:"reason"`
}

// Instance returns the instance with the given id.
func (p *Plan) Instance(id string) (*JobInstance, bool) {
	if p.index == nil || len(p.index) != len(p.Instances) {
		p.index = make(map[string]*JobInstance, len(p.Instances))
		for _, in := range p.Instances {
			p.index[in.ID] = in
		}
	}
	in, ok := p.index[id]
	return in, ok
}

// Display title of a plan: the template ref, with "customized" when the plan
// differs from it.
func (p *Plan) Display() string {
	if p.Customized {
		return p.Template + " customized"
	}
	return p.Template
}
