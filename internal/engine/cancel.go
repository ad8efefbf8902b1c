package engine

import (
	"fmt"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// cancelGate records that a decision chose a gate's cancel option. The
// scheduler (settle) then starts nothing more: the gate's dependents and
// every instance not started yet are skipped, running instances finish,
// and the operation ends Cancelled.
func (r *run) cancelGate(st *instState, opt protocol.GateOption) {
	d := st.res.Decision
	st.res.Status = StatusCancelled
	st.res.Reason = fmt.Sprintf("cancelled by %s: option %s chosen by %s", st.in.ID, opt.ID, d.Actor)
	r.em.emit(Event{Type: EventGateApproved, Status: StatusCancelled, Instance: st.in.ID, Stage: st.in.Stage, Message: st.res.Reason})
	r.emitFinished(st)
}

// cancelledBy returns the first gate (in plan order) whose cancel option
// was chosen, or nil.
func (r *run) cancelledBy() *GateCancel {
	for _, st := range r.states {
		if st.res.Status != StatusCancelled || st.in.Gate == nil {
			continue
		}
		c := &GateCancel{Instance: st.in.ID, Gate: st.in.Gate.ID}
		if d := st.res.Decision; d != nil {
			c.Option, c.Actor = d.Option, d.Actor
		}
		return c
	}
	return nil
}

// stopForCancel stops the scheduler after a cancel decision: nothing that
// has not started yet starts.
func (s *scheduler) stopForCancel(st *instState) {
	if s.stopReason == "" {
		s.stopReason = fmt.Sprintf("not started: gate %s cancelled the operation", st.in.ID)
	}
	s.cancelled = true
}
