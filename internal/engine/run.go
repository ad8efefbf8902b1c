package engine

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// Run executes a plan and returns what happened. The error is non-nil only
// when the run could not start (invalid config, plan or input); a job that
// fails is reported in the Result (Operation.Status Failed, Result.Err).
// Cancelling ctx stops new instances from starting, gives running commands
// Config.GracePeriod, and ends the operation Interrupted; running the same
// plan again resumes it. A time limit on ctx (a *TimeoutError cause or a
// deadline) stops the running jobs on their hosts at once and is reported
// in Result.TimedOut.
func (e *Engine) Run(ctx context.Context, plan *protocol.Plan, in RunInput) (*Result, error) {
	if err := e.cfg.validate(); err != nil {
		return nil, err
	}
	if plan == nil {
		return nil, fmt.Errorf("engine: plan is nil")
	}
	if err := checkHosts(&plan.Intent); err != nil {
		return nil, fmt.Errorf("engine: run of plan %s: %w", plan.ID, err)
	}
	if err := checkPause(plan, in.StopAfterStage); err != nil {
		return nil, fmt.Errorf("engine: run of plan %s: %w", plan.ID, err)
	}
	for _, iv := range in.Interventions {
		if err := iv.Validate(); err != nil {
			return nil, fmt.Errorf("engine: run of plan %s: %w", plan.ID, err)
		}
	}
	opID := in.OperationID
	if opID == "" && in.Previous != nil {
		opID = in.Previous.ID
	}
	if opID == "" {
		opID = "op-" + plan.ID
	}
	r := &run{e: e, cfg: &e.cfg, plan: plan, in: in, lay: layout{root: e.cfg.StateDir}, begin: time.Now()}
	r.em = &emitter{op: opID, clock: e.cfg.Clock, redactor: e.cfg.Redactor, sinks: e.cfg.Sinks}
	if err := r.buildStates(); err != nil {
		return nil, err
	}
	store, err := newArtifactStore(e.cfg.Redactor, in.Artifacts)
	if err != nil {
		return nil, fmt.Errorf("engine: run of plan %s: %w", plan.ID, err)
	}
	r.store = store

	ctx, locks, err := r.lockHosts(ctx, opID) // sets r.conns
	if err != nil {
		return nil, fmt.Errorf("engine: run of plan %s: %w", plan.ID, err)
	}
	defer r.conns.closeAll()
	defer locks.release()
	cmdCtx, cut := context.WithCancel(context.WithoutCancel(ctx))
	defer cut()
	runDone := make(chan struct{})
	defer close(runDone)
	go locks.watchCancel(ctx, runDone, cut)
	r.cmdCtx = cmdCtx
	r.runCtx = ctx
	r.interrupted = func() bool { return ctx.Err() != nil }
	r.ships = newShipCache()
	r.preps = newPrepCache()

	r.startOperation(opID)
	r.em.emit(Event{Type: EventOperationStarted, OpStatus: r.op.Status, Outline: outline(plan)})
	if len(in.Interventions) > 0 {
		r.verifyInterventions(ctx)
	}
	r.schedule(ctx)
	locks.awaitStop(ctx)
	r.flushCommits()
	r.endOperation(ctx)
	return r.result(), nil
}

// startOperation continues the previous operation or records a new one,
// and moves it to Running (through Verification when interventions wait).
func (r *run) startOperation(opID string) {
	now := r.cfg.Clock()
	if p := r.in.Previous; p != nil && !p.Status.Terminal() {
		op := *p
		op.ID = opID
		op.Timeline = append([]protocol.TimelineEntry(nil), p.Timeline...)
		if r.cfg.Actor != "" {
			op.Actor = r.cfg.Actor
		}
		r.op = &op
		if op.Status != protocol.StatusCapabilityResolution { // planned, never run: nothing to resume
			r.op.Timeline = append(r.op.Timeline, protocol.TimelineEntry{At: now, Status: op.Status, Event: "resumed", Actor: op.Actor})
		}
	} else {
		r.op = protocol.NewOperation(opID, r.plan.ID, r.cfg.Actor, now)
		r.op.IntentID = r.plan.Intent.ID
	}
	if r.op.Status == protocol.StatusFailed && len(r.in.Interventions) > 0 {
		r.transition(protocol.StatusVerification, fmt.Sprintf("verifying %d manual intervention(s)", len(r.in.Interventions)))
		return
	}
	r.moveTo(protocol.StatusRunning, "running plan "+r.plan.Display())
}

// moveTo walks the shortest legal path of the lifecycle to target.
func (r *run) moveTo(target protocol.OperationStatus, detail string) {
	r.opMu.Lock()
	from := r.op.Status
	r.opMu.Unlock()
	if from == target {
		return
	}
	for _, s := range lifecyclePath(from, target) {
		r.transition(s, detail)
	}
}

func (r *run) transition(to protocol.OperationStatus, detail string) {
	r.opMu.Lock()
	err := r.op.Transition(to, r.cfg.Clock(), r.cfg.Redactor.String(detail))
	r.opMu.Unlock()
	if err != nil {
		// The table has a path for every move the engine makes; an error
		// here is recorded rather than hidden.
		r.em.emit(Event{Type: EventOperationStatus, OpStatus: r.op.Status, Message: err.Error()})
		return
	}
	r.em.emit(Event{Type: EventOperationStatus, OpStatus: to, Message: detail})
}

// lifecyclePath returns the statuses after from on a shortest legal path to
// target (breadth-first over protocol.Next), or nil when there is none.
func lifecyclePath(from, target protocol.OperationStatus) []protocol.OperationStatus {
	prev := map[protocol.OperationStatus]protocol.OperationStatus{from: from}
	queue := []protocol.OperationStatus{from}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		if s == target {
			var path []protocol.OperationStatus
			for c := s; c != from; c = prev[c] {
				path = append([]protocol.OperationStatus{c}, path...)
			}
			return path
		}
		for _, n := range protocol.Next(s) {
			if _, seen := prev[n]; !seen {
				prev[n] = s
				queue = append(queue, n)
			}
		}
	}
	return nil
}

// endOperation sets the final status: Interrupted when the context was
// cancelled (recording the timeout when a time limit ran out), Cancelled
// when a gate's cancel option was chosen, Failed when an instance failed,
// the wait status of the first waiting gate, else Completed.
func (r *run) endOperation(ctx context.Context) {
	var failed, waiting []*instState
	for _, st := range r.states {
		switch st.res.Status {
		case StatusFailed:
			failed = append(failed, st)
		case StatusWaiting:
			waiting = append(waiting, st)
		}
	}
	cancel := r.cancelledBy()
	switch {
	case ctx.Err() != nil:
		if te := timeoutOf(ctx, r.begin); te != nil {
			r.timedOut = r.timedOutReport(te)
			r.recordTimeout(r.timedOut)
			r.moveTo(protocol.StatusInterrupted, r.timedOut.Error()+"; the running jobs were stopped on their hosts; run the plan again to resume")
			return
		}
		r.moveTo(protocol.StatusInterrupted, "interrupted; run the plan again to resume")
	case cancel != nil:
		r.moveTo(protocol.StatusCancelled, fmt.Sprintf("gate %s: option %s chosen by %s cancelled the operation", cancel.Gate, cancel.Option, cancel.Actor))
	case len(failed) > 0:
		r.moveTo(protocol.StatusFailed, fmt.Sprintf("%d instance(s) failed, first %s", len(failed), failed[0].in.ID))
	case len(waiting) > 0:
		g := waiting[0].in.Gate
		r.moveTo(g.Type.WaitStatus(), fmt.Sprintf("gate %s waits: %s", g.ID, g.Reason))
	case r.pauseHeld:
		r.moveTo(protocol.StatusPaused, r.pauseDetail())
	default:
		for _, st := range r.states {
			if !st.res.Status.Finished() {
				r.moveTo(protocol.StatusFailed, fmt.Sprintf("instance %s did not finish: %s", st.in.ID, st.res.Reason))
				return
			}
		}
		r.moveTo(protocol.StatusCompleted, "all outputs verified")
	}
}

func outline(p *protocol.Plan) *Outline {
	o := &Outline{Title: p.Title}
	if o.Title == "" {
		o.Title = p.Display()
	}
	for _, s := range p.Stages {
		title := s.Title
		if title == "" {
			title = s.ID
		}
		o.Phases = append(o.Phases, Phase{ID: s.ID, Title: title, Instances: append([]string(nil), s.Instances...)})
	}
	if len(o.Phases) == 0 {
		byStage := map[string]int{}
		for _, in := range p.Instances {
			i, ok := byStage[in.Stage]
			if !ok {
				i = len(o.Phases)
				byStage[in.Stage] = i
				o.Phases = append(o.Phases, Phase{ID: in.Stage, Title: in.Stage})
			}
			o.Phases[i].Instances = append(o.Phases[i].Instances, in.ID)
		}
	}
	return o
}

// result assembles the sorted Result.
func (r *run) result() *Result {
	res := &Result{secrets: r.store.secretValues()}
	r.opMu.Lock()
	res.Operation = *r.op
	res.Operation.Timeline = append([]protocol.TimelineEntry(nil), r.op.Timeline...)
	r.opMu.Unlock()
	for _, st := range r.states {
		ir := st.res
		res.Instances = append(res.Instances, ir)
		for _, ev := range ir.Evidence {
			res.Evidence = append(res.Evidence, InstanceEvidence{Instance: ir.ID, EvidenceResult: ev})
		}
		switch ir.Status {
		case StatusFailed:
			res.Failed = append(res.Failed, ir.ID)
		case StatusWaiting:
			res.Waiting = append(res.Waiting, r.gateWait(st))
		}
		if ir.Status.Finished() && st.in.Job != nil {
			for _, c := range st.in.Job.Outputs.Provides.Capabilities {
				pc := ProvidedCapability{Key: c.Key, Scope: c.Scope, Instance: ir.ID, Attributes: r.capAttributes(st, c.Attributes)}
				if c.Scope.Normal() == protocol.ScopeNode {
					pc.Host = st.host
				}
				res.Capabilities = append(res.Capabilities, pc)
			}
		}
	}
	res.Artifacts = r.store.produced()
	sort.Slice(res.Capabilities, func(i, j int) bool {
		a, b := res.Capabilities[i], res.Capabilities[j]
		if a.Key != b.Key {
			return a.Key < b.Key
		}
		if a.Host != b.Host {
			return a.Host < b.Host
		}
		return a.Instance < b.Instance
	})
	sort.SliceStable(res.Evidence, func(i, j int) bool {
		a, b := res.Evidence[i], res.Evidence[j]
		if a.Instance != b.Instance {
			return a.Instance < b.Instance
		}
		return a.ID < b.ID
	})
	res.Interventions = r.interv
	res.Cancelled = r.cancelledBy()
	res.TimedOut = r.timedOut
	for _, rs := range r.rolling {
		slices.SortFunc(rs.NotRun, func(a, b string) int { return r.byID[a].idx - r.byID[b].idx })
		res.RollingStops = append(res.RollingStops, *rs)
	}
	return res
}
