package planner

// ViewState is what the plan views show that is decided outside the
// planner: the state of each gate (approvals are evaluated against the
// actor and its roles by the caller) and the instances that apply will
// skip because their evidence still holds.
type ViewState struct {
	// Gates holds the state of gates by gate instance id; a gate not
	// listed is waiting, with no decision given.
	Gates map[string]GateState
	// Satisfied lists instance ids whose idempotency key completed on
	// their host and whose evidence still holds: apply skips them.
	Satisfied map[string]bool
}

// GateState is the evaluated decision for one gate.
type GateState struct {
	// Approved is set when a decision passes the gate: its option is one
	// of the gate's and the actor holds a required role.
	Approved bool
	// Actor who decided, and the Option chosen. For a gate that is not
	// approved, a non-empty Option is the decision given and refused.
	Actor  string
	Option string
	// Refused says why a given decision does not pass (e.g. "actor bob
	// holds none of the roles platform_admin"); empty when none was given.
	Refused string
}

// Gate status words of the views.
const (
	StatusApproved  = "approved"
	StatusWaiting   = "waiting"
	StatusSatisfied = "satisfied"
	StatusWillRun   = "will run"
)

func (s ViewState) gate(id string) GateState {
	return s.Gates[id]
}
