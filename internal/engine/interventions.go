package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// verifyInterventions verifies each recorded manual fix before scheduling
// (seed 000 §5). A verified target counts as fixed: a marker is written and
// its dependents may start. A target that still fails stays failed, with
// what still fails, and is not run again by this run. A target whose job
// forbids manual intervention is not verified: the fix is refused and the
// instance runs as planned.
func (r *run) verifyInterventions(ctx context.Context) {
	allOK := true
	for _, iv := range r.in.Interventions {
		ir := InterventionResult{Intervention: iv, Verified: true}
		var targets []*instState
		for _, st := range r.states {
			if st.in.IsGate() || (st.in.JobID != iv.Job && st.in.Stage != iv.Job) {
				continue
			}
			if iv.Node != "" && st.host != iv.Node {
				continue
			}
			targets = append(targets, st)
		}
		if len(targets) == 0 {
			ir.Verified = false
			ir.StillFailing = append(ir.StillFailing, fmt.Sprintf("no instance of job or stage %s on node %q in plan %s", iv.Job, iv.Node, r.plan.ID))
		}
		for _, st := range targets {
			ir.Instances = append(ir.Instances, st.in.ID)
			if refused := forbidsIntervention(st); refused != "" {
				// The fix is not taken: the instance runs as planned.
				ir.Verified = false
				ir.StillFailing = append(ir.StillFailing, refused)
				continue
			}
			failing := r.verifyFix(ctx, st, iv)
			if len(failing) > 0 {
				ir.Verified = false
				ir.StillFailing = append(ir.StillFailing, failing...)
			}
		}
		if !ir.Verified {
			allOK = false
		}
		msg := fmt.Sprintf("manual fix of %s by %s verified", iv.Job, iv.Actor)
		if !ir.Verified {
			msg = fmt.Sprintf("manual fix of %s by %s: still failing: %s", iv.Job, iv.Actor, strings.Join(ir.StillFailing, "; "))
		}
		r.em.emit(Event{Type: EventIntervention, Host: iv.Node, Job: iv.Job, Message: msg})
		r.interv = append(r.interv, ir)
	}
	if r.op.Status != protocol.StatusVerification {
		return
	}
	if allOK {
		r.transition(protocol.StatusRunning, "manual fixes verified; continuing")
		return
	}
	r.transition(protocol.StatusFailed, "a manual fix did not verify")
	r.transition(protocol.StatusRunning, "running independent branches")
}

// forbidsIntervention says why a job's contract refuses a manual fix
// (controls.manual_intervention.allowed: false), or "" when it allows one.
func forbidsIntervention(st *instState) string {
	if st.in.Job == nil || st.in.Job.Controls.ManualIntervention.Allowed {
		return ""
	}
	return fmt.Sprintf("%s: refused: job %s declares manual_intervention.allowed: false, so a fix by hand is not accepted; it runs again instead", st.in.ID, st.in.JobID)
}

// verifyFix verifies one target and returns what still fails (nil when the
// fix holds or the instance was already done).
func (r *run) verifyFix(ctx context.Context, st *instState, iv protocol.Intervention) []string {
	fail := func(format string, a ...any) []string {
		msg := r.cfg.Redactor.String(fmt.Sprintf(format, a...))
		st.decided = true
		st.res.Status = StatusFailed
		st.res.Class = FailureVerification
		st.res.err = redactErr(r.cfg.Redactor, fmt.Errorf("job %s on host %s (instance %s) manually fixed by %s but verification still fails: %s", st.in.JobID, st.where(), st.in.ID, iv.Actor, msg))
		st.res.Reason = st.res.err.Error()
		r.emitFinished(st)
		return []string{st.in.ID + ": " + msg}
	}
	job := st.in.Job
	evidence := append([]protocol.Evidence(nil), job.Outputs.Evidence...)
	var verifyJobs []*protocol.JobInstance
	for _, name := range iv.Verification {
		if slices.ContainsFunc(evidence, func(e protocol.Evidence) bool { return e.ID == name }) {
			continue
		}
		if ev, ok := r.findEvidence(name); ok {
			evidence = append(evidence, ev)
			continue
		}
		if vj := r.verificationJob(name, st); vj != nil {
			verifyJobs = append(verifyJobs, vj)
			continue
		}
		return fail("verification %s is neither an evidence id nor a job of plan %s", name, r.plan.ID)
	}
	conn, err := r.conns.get(r.cmdCtx, st.exec, r.cfg.StepTimeout)
	if err != nil {
		return fail("%v", err)
	}
	if err := r.ensurePrepared(r.cmdCtx, conn, st.exec, false); err != nil {
		return fail("%v", err)
	}
	inputs, _ := r.inputsFor(r.cmdCtx, st) // verification runs without inputs that are not there yet
	p := r.paths(st, nil)
	env := r.env(st, p, inputs)
	pr, err := r.probe(r.cmdCtx, conn, st, env)
	if err != nil {
		return fail("%v", err)
	}
	// An unconfirmed marker may be the failed attempt's own: verify the fix.
	if m, derr := decodeMarker(pr.marker); pr.marker != nil && derr == nil && !m.Unconfirmed {
		sat, _, err := r.checkSatisfied(r.cmdCtx, conn, st, p, env, inputs, pr.marker)
		if err == nil && sat != nil {
			return nil // already done: the scheduler finds it satisfied
		}
		// The check removed the run directory; make it again.
		if _, err := r.probe(r.cmdCtx, conn, st, env); err != nil {
			return fail("%v", err)
		}
	}
	committed := false
	defer func() {
		if !committed {
			r.cleanup(r.cmdCtx, conn, st, p.run)
		}
	}()
	v, err := r.verify(r.cmdCtx, conn, st, env, evidence, p.out, job.Controls.Become, true, verifyIO{inputs: inputs})
	r.emitEvidence(st, v.evidence)
	st.res.Evidence = v.evidence
	if err != nil {
		return fail("%v", err)
	}
	var failing []string
	failing = append(failing, v.failed...)
	failing = append(failing, v.problems...)
	for _, vj := range verifyJobs {
		vs := &instState{idx: -1, in: vj, host: st.host, exec: st.exec, hostIdx: st.hostIdx, res: InstanceResult{ID: vj.ID}}
		script, err := r.scriptFor(vs)
		if err != nil {
			failing = append(failing, err.Error())
			continue
		}
		vp := r.paths(vs, script)
		out, aerr := r.attempt(vs, vp, r.env(vs, vp, nil), script, nil, newTail(r.cfg.LogTailLines))
		st.res.Evidence = append(st.res.Evidence, out.evidence...)
		if aerr != nil {
			failing = append(failing, fmt.Sprintf("verification job %s: %v", vj.JobID, aerr))
		}
	}
	if len(failing) > 0 {
		return fail("%s", strings.Join(failing, "; "))
	}
	m := r.newMarker(st, StatusFixed, iv.Actor, v.evidence)
	if err := r.commit(r.cmdCtx, conn, st, p, env, m, v.artifacts); err != nil {
		return fail("%v", err)
	}
	committed = true
	st.res.Artifacts = r.storeArtifacts(st, p, v.artifacts, m.CompletedAt)
	st.decided = true
	st.res.Status = StatusFixed
	st.res.FixedBy = iv.Actor
	st.res.Reason = fmt.Sprintf("manually fixed by %s and verified", iv.Actor)
	if iv.Note != "" {
		st.res.Reason += ": " + r.cfg.Redactor.String(iv.Note)
	}
	r.emitFinished(st)
	return nil
}

// findEvidence looks an evidence id up in the jobs of the plan.
func (r *run) findEvidence(id string) (protocol.Evidence, bool) {
	for _, st := range r.states {
		if st.in.Job == nil {
			continue
		}
		for _, e := range st.in.Job.Outputs.Evidence {
			if e.ID == id {
				return e, true
			}
		}
	}
	return protocol.Evidence{}, false
}

// verificationJob builds an instance of job id on the target's host, with
// the parameters of that job's instance on the host when the plan has one.
func (r *run) verificationJob(id string, target *instState) *protocol.JobInstance {
	var found *protocol.JobInstance
	for _, st := range r.states {
		if st.in.Job == nil || st.in.JobID != id {
			continue
		}
		if found == nil || st.host == target.host {
			found = st.in
		}
	}
	if found == nil {
		return nil
	}
	return &protocol.JobInstance{
		ID: fmt.Sprintf("%s[%s]@verify", id, target.host), JobID: id, Stage: target.in.Stage, Host: target.host,
		Pack: found.Pack, Params: found.Params, Job: found.Job, Origin: found.Origin,
	}
}
