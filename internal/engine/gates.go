package engine

import (
	"strings"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// decideGate finishes a gate with an accepted decision or leaves it
// waiting; refused decisions are reported with the reason. The chosen
// option's effect decides what follows: proceed, bind and create release
// the jobs the gate holds (the plan was built for the bind or create
// option), cancel ends the operation (see cancelGate).
func (r *run) decideGate(st *instState) {
	g := st.in.Gate
	st.decided = true
	st.res.Started = r.cfg.Clock()
	var refused []string
	for _, d := range r.in.Decisions {
		if d.Gate != g.ID && d.Gate != st.in.ID {
			continue
		}
		opt, err := d.Choose(*g)
		if err != nil {
			refused = append(refused, err.Error())
			r.em.emit(Event{Type: EventGateRefused, Status: StatusWaiting, Instance: st.in.ID, Stage: st.in.Stage, Message: "decision refused: " + err.Error()})
			continue
		}
		dec := d
		st.res.Decision = &dec
		if opt.Effect == protocol.EffectCancel {
			r.cancelGate(st, opt)
			return
		}
		st.res.Status = StatusDone
		st.res.Reason = "decided " + d.Option + " (" + string(opt.Effect) + ") by " + d.Actor
		r.em.emit(Event{Type: EventGateApproved, Status: StatusDone, Instance: st.in.ID, Stage: st.in.Stage, Message: st.res.Reason})
		r.emitFinished(st)
		return
	}
	st.res.Status = StatusWaiting
	st.res.Reason = string(g.Type) + " gate waits: " + g.Reason
	if len(refused) > 0 {
		st.res.Reason += "; refused: " + strings.Join(refused, "; ")
	}
	r.em.emit(Event{Type: EventGateWaiting, Status: StatusWaiting, OpStatus: g.Type.WaitStatus(), Instance: st.in.ID, Stage: st.in.Stage, Message: st.res.Reason})
	r.emitFinished(st)
}

// gateWait describes a waiting gate for the result.
func (r *run) gateWait(st *instState) GateWait {
	g := st.in.Gate
	w := GateWait{
		Instance: st.in.ID, Gate: g.ID, Type: g.Type, Status: g.Type.WaitStatus(), Reason: g.Reason,
		Options: g.OptionIDs(), Effects: make([]protocol.OptionEffect, len(g.Options)),
		RequiredRoles: append([]string(nil), g.RequiredRoles...), Parameter: g.Parameter,
	}
	for i, o := range g.Options {
		w.Effects[i] = o.Effect
	}
	for _, d := range r.in.Decisions {
		if d.Gate != g.ID && d.Gate != st.in.ID {
			continue
		}
		if err := d.Check(*g); err != nil {
			if w.Refused != "" {
				w.Refused += "; "
			}
			w.Refused += r.cfg.Redactor.String(err.Error())
		}
	}
	return w
}
