package engine

import (
	"fmt"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// Pausing at a stage boundary. RunInput.StopAfterStage names a stage of
// the plan: no instance of a later stage (in the order of plan.Stages)
// starts, neither job nor gate, and once every instance up to that stage
// has finished the operation ends Paused, the held instances Pending.
// Running the plan again with the paused operation as Previous and
// without StopAfterStage resumes it (Paused -> Running) from the next
// stage; the finished instances are satisfied from their markers and not
// run again.

// stageIndex is the position of stage id in the plan's stages, -1 when
// the plan has no such stage.
func stageIndex(p *protocol.Plan, id string) int {
	for i, s := range p.Stages {
		if s.ID == id {
			return i
		}
	}
	return -1
}

// checkPause refuses a StopAfterStage that is not a stage of the plan.
func checkPause(p *protocol.Plan, stage string) error {
	if stage == "" || stageIndex(p, stage) >= 0 {
		return nil
	}
	ids := make([]string, 0, len(p.Stages))
	for _, s := range p.Stages {
		ids = append(ids, s.ID)
	}
	return fmt.Errorf("stop after stage %q: the plan has no such stage (stages: %v)", stage, ids)
}

// afterPause reports whether st belongs to a stage after the one the run
// stops after.
func (r *run) afterPause(st *instState) bool {
	if r.in.StopAfterStage == "" {
		return false
	}
	stop := stageIndex(r.plan, r.in.StopAfterStage)
	i := stageIndex(r.plan, st.in.Stage)
	return stop >= 0 && i > stop
}

// holdForPause keeps a ready instance of a later stage from starting
// (scheduler goroutine only).
func (r *run) holdForPause(st *instState) bool {
	if !r.afterPause(st) {
		return false
	}
	r.pauseHeld = true
	return true
}

// pendingForPause leaves an instance not started because of the pause
// Pending, for the resumed run, and reports whether it did.
func (r *run) pendingForPause(st *instState) bool {
	if !r.afterPause(st) {
		return false
	}
	r.pauseHeld = true
	st.decided = true
	st.res.Status = StatusPending
	st.res.Reason = fmt.Sprintf("paused after stage %s: starts when the operation is resumed", r.in.StopAfterStage)
	return true
}

// pauseDetail is the timeline detail of the Paused status.
func (r *run) pauseDetail() string {
	next := ""
	if i := stageIndex(r.plan, r.in.StopAfterStage); i >= 0 && i+1 < len(r.plan.Stages) {
		next = r.plan.Stages[i+1].ID
	}
	return fmt.Sprintf("paused after stage %s as asked; running the plan again without the pause resumes it from stage %s", r.in.StopAfterStage, next)
}
