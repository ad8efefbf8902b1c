package operation

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// The lifecycle as it is lived (see the package doc): the states before
// Running are recorded when the caller actually converts, composes and
// resolves; the states after a run (Diagnosing, PlanPatchReview) when a
// diagnosis is made; and the record of one apply is handed to the next as
// the engine's RunInput.Previous, so Paused, Failed -> Verification and
// PlanPatchReview -> Running are continued, not stamped.

// Planning is what the caller did before a run, for the timeline.
type Planning struct {
	// Drafted is when the resource was converted into an intent.
	Drafted time.Time
	// Composed is when the plan was composed; Resolved when its
	// capability requirements were resolved (the planner does both).
	Composed, Resolved time.Time
	// Intent describes the intent ("kubernetes create of prod on 2
	// hosts"); Resolution the requirements' decisions ("none" when the
	// pack requires nothing).
	Intent, Resolution string
}

// Planned is the record of an operation planned and not yet run:
// DraftIntent, PlanPreview, CapabilityResolution, each when it happened.
// The engine continues it straight to Running.
func Planned(id string, plan *protocol.Plan, actor string, p Planning) (*protocol.Operation, error) {
	op := protocol.NewOperation(id, plan.ID, actor, p.Drafted)
	op.IntentID = plan.Intent.ID
	op.Timeline[0].Detail = p.Intent
	jobs := 0
	for _, in := range plan.Instances {
		if !in.IsGate() {
			jobs++
		}
	}
	if err := op.Transition(protocol.StatusPlanPreview, p.Composed, fmt.Sprintf("plan %s composed: %d job(s) in %d stage(s)", plan.Display(), jobs, len(plan.Stages))); err != nil {
		return nil, err
	}
	if err := op.Transition(protocol.StatusCapabilityResolution, p.Resolved, "capabilities resolved: "+p.Resolution); err != nil {
		return nil, err
	}
	return op, nil
}

// Proposal is a plan patch a diagnosis proposes.
type Proposal struct {
	Patch, Author, Job string
}

// Diagnosed records the diagnosis of a Failed operation: Diagnosing, then
// PlanPatchReview for the first proposed patch (its id the entry's
// subject), or back to Failed when no patch is proposed. failedJobs names
// the failed instances.
func Diagnosed(op *protocol.Operation, failedJobs []string, proposals []Proposal, now time.Time) error {
	if op.Status != protocol.StatusFailed {
		return fmt.Errorf("operation %s: diagnose: status is %s, not Failed", op.ID, op.Status)
	}
	if err := op.Transition(protocol.StatusDiagnosing, now, "diagnosing "+strings.Join(failedJobs, ", ")); err != nil {
		return err
	}
	if len(proposals) == 0 {
		return op.Transition(protocol.StatusFailed, now, "no plan patch proposed: fix the cause by hand and record it in interventions, then apply again")
	}
	p := proposals[0]
	if err := op.Transition(protocol.StatusPlanPatchReview, now, fmt.Sprintf("plan patch by %s for %s proposed; review it and add it to plan_patches to go on", p.Author, p.Job)); err != nil {
		return err
	}
	op.Timeline[len(op.Timeline)-1].Subject = p.Patch
	return nil
}

// proposedPatch is the patch a PlanPatchReview entry names.
func proposedPatch(op *protocol.Operation) string {
	for i := len(op.Timeline) - 1; i >= 0; i-- {
		if op.Timeline[i].Status == protocol.StatusPlanPatchReview {
			return op.Timeline[i].Subject
		}
	}
	return ""
}

// Continue returns the record a run of operation planned goes on from:
// prev, the record the last apply kept, when it is the same operation and
// not over (a Completed or Cancelled operation is not continued; a new
// one is recorded); otherwise planned. A PlanPatchReview whose proposed
// patch the plan does not carry, and a Diagnosing left unfinished, go
// back to Failed first: the failure stands and is resumed from there
// (through Verification when interventions are given). prev is not
// modified.
func Continue(prev, planned *protocol.Operation, plan *protocol.Plan, now time.Time) (*protocol.Operation, error) {
	if prev == nil || prev.ID != planned.ID || prev.Status.Terminal() {
		return planned, nil
	}
	op := *prev
	op.Timeline = slices.Clone(prev.Timeline)
	op.PlanID = plan.ID
	switch op.Status {
	case protocol.StatusPlanPatchReview:
		id := proposedPatch(&op)
		for _, p := range plan.Patches {
			if id != "" && p.ID == id {
				return &op, nil
			}
		}
		if err := op.Transition(protocol.StatusFailed, now, fmt.Sprintf("proposed plan patch %s is not in the plan: the failure stands", orNone(id))); err != nil {
			return nil, err
		}
	case protocol.StatusDiagnosing:
		if err := op.Transition(protocol.StatusFailed, now, "diagnosis not finished: the failure stands"); err != nil {
			return nil, err
		}
	}
	return &op, nil
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// Kept is what a resource keeps of its last operation for the next one
// (the provider's private state key "operation"): the record, and the
// change it ran, so a Paused operation can be resumed by the same change.
type Kept struct {
	Operation protocol.Operation `json:"operation"`
	Action    string             `json:"action"`
	Targets   []string           `json:"targets,omitempty"`
	IDParts   []string           `json:"id_parts,omitempty"`
	// PausedAfter is the stage a Paused operation stopped after.
	PausedAfter string `json:"paused_after,omitempty"`
	// Resumable says the change is whole without the prior state (it
	// overrides neither hosts nor parameters), so the next apply can run
	// it again from this record alone.
	Resumable bool `json:"resumable,omitempty"`
	// Create says the action is the pack's create: resumed, it plans the
	// whole intent as configured.
	Create bool `json:"create,omitempty"`
}

// Encode is the compact JSON of k.
func (k Kept) Encode() ([]byte, error) {
	b, err := json.Marshal(k)
	if err != nil {
		return nil, fmt.Errorf("encode operation %s: %w", k.Operation.ID, err)
	}
	return b, nil
}

// DecodeKept reads a Kept; empty input is no record.
func DecodeKept(b []byte) (*Kept, error) {
	if len(b) == 0 {
		return nil, nil
	}
	var k Kept
	if err := json.Unmarshal(b, &k); err != nil {
		return nil, fmt.Errorf("decode the kept operation: %w", err)
	}
	if k.Operation.ID == "" || !slices.Contains(protocol.Statuses, k.Operation.Status) {
		return nil, fmt.Errorf("decode the kept operation: id %q, status %q is not an operation", k.Operation.ID, k.Operation.Status)
	}
	return &k, nil
}
