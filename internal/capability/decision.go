package capability

import "github.com/intentops/terraform-provider-cp/internal/protocol"

// Kind of a decision.
type Kind string

const (
	KindBind   Kind = "bind"
	KindCreate Kind = "create"
	KindGate   Kind = "gate"
)

// Create says which pack action creates the provider.
type Create struct {
	Pack     string `json:"pack"`
	Version  string `json:"version,omitempty"`
	Action   string `json:"action"`
	Provider string `json:"provider"`
	// Params are the creating pack's parameters the requirement's
	// constraints set (Shape); Shaped says, per value, which constraint.
	Params map[string]string `json:"params,omitempty"`
	Shaped []string          `json:"shaped,omitempty"`
}

// CandidateReport says why a candidate (or a provider that could be
// created) was accepted or rejected.
type CandidateReport struct {
	Name     string   `json:"name"`
	Provider string   `json:"provider"`
	Create   bool     `json:"create,omitempty"` // a provider kind that a pack can create
	Accepted bool     `json:"accepted"`
	Reasons  []string `json:"reasons"`
	// DecidedBy names the policy that decided whether the provider kind
	// may serve: a rule (`rule 2 "pci-dedicated"`), the environment's
	// capability_policy entry, or "no policy".
	DecidedBy string `json:"decided_by,omitempty"`
}

// Decision is the outcome of resolving one requirement.
type Decision struct {
	Requirement protocol.CapabilityRequirement `json:"requirement"`
	Kind        Kind                           `json:"kind"`
	// Binding is the record kept in a plan, set for every kind.
	Binding protocol.Binding `json:"binding"`
	// Create is set for create decisions, and for approval and cost gates
	// that hold back a creation.
	Create *Create `json:"create,omitempty"`
	// Gate is set for gate decisions, and for bind and create decisions
	// chosen at a gate (Gate.Chosen names the option), which the gate
	// still holds until its decision is checked at apply.
	Gate *protocol.Gate `json:"gate,omitempty"`
	// Refused says why a decision given for the gate was not applied at
	// plan (the actor lacks the gate's roles); the gate waits.
	Refused    string            `json:"refused,omitempty"`
	Candidates []CandidateReport `json:"candidates"`
	Reason     string            `json:"reason"`
}
