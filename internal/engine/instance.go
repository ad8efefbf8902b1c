package engine

import (
	"context"
	"fmt"
	"maps"
	"path"
	"slices"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
	"github.com/intentops/terraform-provider-cp/internal/transport"
)

// attemptOut is what a successful (or evidence-recording) attempt found.
type attemptOut struct {
	status   Status // done or satisfied on success
	exit     int
	evidence []protocol.EvidenceResult
	arts     []string
	note     string // why a marker did not satisfy (drift)
}

// start records and announces that an instance starts (scheduler goroutine).
func (r *run) start(st *instState) {
	st.res.Started = r.cfg.Clock()
	st.res.Status = StatusRunning
	r.em.emit(Event{Type: EventInstanceStarted, Status: StatusRunning, Instance: st.in.ID, Job: st.in.JobID, Stage: st.in.Stage, Host: st.host})
}

// finishInstance announces the outcome of an instance that ran.
func (r *run) finishInstance(st *instState) { r.emitFinished(st) }

func (r *run) emitFinished(st *instState) {
	msg := st.res.Reason
	r.em.emit(Event{Type: EventInstanceFinished, Status: st.res.Status, Instance: st.in.ID, Job: st.in.JobID, Stage: st.in.Stage, Host: st.host, Attempt: len(st.res.Attempts), Message: msg})
}

// execute runs one instance to its outcome, with retries (worker goroutine).
func (r *run) execute(st *instState) {
	job := st.in.Job
	res := &st.res
	begin := r.cfg.Clock()
	defer func() { res.Duration = r.cfg.Clock().Sub(begin) }()
	tl := newTail(r.cfg.LogTailLines)
	script, err := r.scriptFor(st)
	if err != nil {
		r.fail(st, 0, failf(FailureScript, false, "%w", err), tl)
		return
	}
	inputs, err := r.inputsFor(r.cmdCtx, st)
	if err != nil {
		r.fail(st, 0, failf(FailureInput, false, "%w", err), tl)
		return
	}
	p := r.paths(st, script)
	env := r.env(st, p, inputs)
	maxAttempts := max(1, job.Controls.RetryPolicy.MaxAttempts)
	for n := 1; ; n++ {
		aStart := r.cfg.Clock()
		out, aerr := r.attempt(st, p, env, script, inputs, tl)
		a := Attempt{Number: n, Started: aStart, Duration: r.cfg.Clock().Sub(aStart), ExitCode: out.exit}
		res.Evidence = out.evidence
		if aerr == nil {
			res.Attempts = append(res.Attempts, a)
			res.Status, res.Artifacts, res.Reason = out.status, out.arts, out.note
			res.LogTail = tl.Lines(r.cfg.Redactor)
			return
		}
		if r.interrupted() && aerr.class != FailureInterrupted {
			// The stop cut the attempt off (TERM to the script's group,
			// whose exit the transport reports): not a failure of the
			// job, which the next run starts again.
			aerr = &attemptError{class: FailureInterrupted, exit: aerr.exit, err: context.Cause(r.runCtx)}
		}
		a.Class, a.Error = aerr.class, r.cfg.Redactor.String(aerr.Error())
		res.Attempts = append(res.Attempts, a)
		r.em.emit(Event{Type: EventAttemptFailed, Status: StatusRunning, Instance: st.in.ID, Job: st.in.JobID, Stage: st.in.Stage, Host: st.host, Attempt: n, Message: a.Class + ": " + a.Error})
		if !aerr.retryable || n >= maxAttempts || r.interrupted() {
			r.fail(st, n, aerr, tl)
			return
		}
		backoff := job.Controls.RetryPolicy.Backoff.D() << (n - 1)
		if err := r.cfg.Sleep(r.runCtx, backoff); err != nil {
			r.fail(st, n, classify(err, true), tl)
			return
		}
	}
}

// fail records the final failure of an instance.
func (r *run) fail(st *instState, attempts int, aerr *attemptError, tl *tail) {
	res := &st.res
	res.Class = aerr.class
	res.Status = StatusFailed
	if aerr.class == FailureInterrupted {
		res.Status = StatusInterrupted
	}
	what := "failed"
	if res.Status == StatusInterrupted {
		what = "was stopped"
	} else if attempts > 1 {
		what = fmt.Sprintf("failed after %d attempts", attempts)
	}
	err := fmt.Errorf("job %s on host %s (instance %s) %s: %w", st.in.JobID, st.where(), st.in.ID, what, aerr)
	res.err = redactErr(r.cfg.Redactor, err)
	res.Reason = res.err.Error()
	res.LogTail = tl.Lines(r.cfg.Redactor)
}

// attempt runs one try: probe, satisfied check, ship, inputs, script,
// verification and commit. The host is prepared for the run first (its
// stale run directories removed) on either path. On the step-by-step path
// the commit removes the run directory; an attempt that fails before it
// removes it with one more command.
func (r *run) attempt(st *instState, p instancePaths, env map[string]string, script *jobScript, inputs []inputFile, tl *tail) (out attemptOut, aerr *attemptError) {
	ctx := r.cmdCtx
	job := st.in.Job
	conn, err := r.conns.get(ctx, st.exec, r.cfg.StepTimeout)
	if err != nil {
		return out, classify(err, r.interrupted())
	}
	fail := func(err error) *attemptError {
		ae := classify(err, r.interrupted())
		if ae.class == FailureConnLost || ae.class == FailureTimeout {
			r.conns.drop(st.exec, conn)
		}
		return ae
	}
	if err := r.ensurePrepared(ctx, conn, st.exec, false); err != nil {
		return out, fail(err)
	}
	if r.fastEligible(st) && inputsTravel(inputs) {
		return r.attemptFast(ctx, conn, st, p, env, inputs, tl, fail)
	}
	pr, err := r.probe(ctx, conn, st, env)
	if err != nil {
		return out, fail(err)
	}
	if pr.marker != nil {
		sat, note, err := r.checkSatisfied(ctx, conn, st, p, env, inputs, pr.marker)
		if err != nil {
			return out, fail(err)
		}
		if sat != nil {
			return *sat, nil
		}
		out.note = "drift: " + note + "; ran again"
		// The check removed the run directory; make it again.
		if pr, err = r.probe(ctx, conn, st, env); err != nil {
			return out, fail(err)
		}
	}
	committed := false
	defer func() {
		if !committed {
			r.cleanup(ctx, conn, st, p.run)
		}
	}()
	if script != nil {
		shipped, err := r.ships.ensure(ctx, conn, st.exec, p.script, script.body, pr.scriptPresent, r.cfg.StateBecome)
		if err != nil {
			return out, fail(err)
		}
		if shipped {
			r.em.emit(Event{Type: EventScriptShipped, Instance: st.in.ID, Host: st.exec, Message: job.Script + " -> " + p.script})
		}
	}
	for _, f := range inputs {
		uctx, cancel := context.WithTimeout(ctx, r.cfg.StepTimeout)
		err := conn.Upload(uctx, transport.File{Path: path.Join(p.in, f.name), Content: f.content, Mode: 0o600})
		cancel()
		if err != nil {
			return out, fail(fmt.Errorf("upload input artifact %s to host %s: %w", f.id, st.exec, err))
		}
	}
	if script != nil {
		timeout := r.jobTimeout(job)
		renv := maps.Clone(env)
		renv["CP_TIMEOUT"] = fmt.Sprintf("%.3fs", timeout.Seconds())
		cctx, cancel := context.WithTimeout(ctx, timeout+2*time.Second)
		res, err := conn.Run(cctx, transport.Command{Cmd: runCmd, Env: renv, Become: job.Controls.Become, Stdout: tl, Stderr: tl})
		cancel()
		if err != nil {
			return out, fail(fmt.Errorf("run script %s on host %s: %w", job.Script, st.exec, err))
		}
		out.exit = res.ExitCode
	}
	v, err := r.verify(ctx, conn, st, env, job.Outputs.Evidence, p.out, job.Controls.Become, out.exit == 0, verifyIO{})
	out.evidence = v.evidence
	r.emitEvidence(st, v.evidence)
	if err != nil {
		return out, fail(err)
	}
	if ae := r.outcome(st, out.exit, v, tl); ae != nil {
		return out, ae
	}
	m := r.newMarker(st, StatusDone, "", v.evidence)
	if err := r.commit(ctx, conn, st, p, env, m, v.artifacts); err != nil {
		return out, fail(err)
	}
	committed = true
	out.arts = r.storeArtifacts(st, p, v.artifacts, m.CompletedAt)
	out.status = StatusDone
	return out, nil
}

// jobTimeout is the job's timeout, else Config.DefaultTimeout.
func (r *run) jobTimeout(job *protocol.Job) time.Duration {
	if t := job.Controls.Timeout.D(); t > 0 {
		return t
	}
	return r.cfg.DefaultTimeout
}

// outcome judges a finished script and its verification: nil when it
// succeeded, else the failure (exit code, failing evidence, or a missing
// artifact), the same on both paths.
func (r *run) outcome(st *instState, exit int, v verifyOut, tl *tail) *attemptError {
	switch {
	case exit != 0:
		return r.exitFailure(st, exit, v, tl)
	case len(v.failed) > 0:
		return failf(FailureEvidence, false, "exited 0 but %s", v.summary())
	case len(v.problems) > 0:
		return failf(FailureArtifact, false, "exited 0 but %s", v.summary())
	}
	return nil
}

// exitFailure classifies a non-zero exit: 124 is the job's timeout cutting
// the script off (timeout(1) on the step-by-step path, the engine's TERM
// on the one-command path); declared transient codes are retryable.
func (r *run) exitFailure(st *instState, exit int, v verifyOut, tl *tail) *attemptError {
	job := st.in.Job
	if exit == 124 {
		ae := failf(FailureTimeout, true, "script %s timed out after %s", job.Script, r.jobTimeout(job))
		ae.exit = exit
		return ae
	}
	msg := fmt.Sprintf("exited %d", exit)
	if lines := tl.Lines(r.cfg.Redactor); len(lines) > 0 {
		msg += ": " + abbreviate(lines[len(lines)-1])
	}
	if s := v.summary(); s != "" {
		msg += "; " + s
	}
	ae := failf(FailureExitCode, slices.Contains(job.Controls.RetryPolicy.TransientExitCodes, exit), "%s", msg)
	ae.exit = exit
	return ae
}

func (r *run) probe(ctx context.Context, conn transport.Conn, st *instState, env map[string]string) (probeOut, error) {
	sctx, cancel := context.WithTimeout(ctx, r.cfg.StepTimeout)
	defer cancel()
	res, err := conn.Run(sctx, transport.Command{Cmd: probeCmd, Env: env, Become: r.cfg.StateBecome})
	if err != nil {
		return probeOut{}, fmt.Errorf("prepare run directory on host %s: %w", st.exec, err)
	}
	if res.ExitCode != 0 {
		return probeOut{}, failf(FailureTransport, false, "prepare run directory %s on host %s: exited %d: %s", env["CP_RUN_DIR"], st.exec, res.ExitCode, lastLine(string(res.Stderr)))
	}
	pr, err := parseProbe(res.Stdout)
	if err != nil {
		return pr, failf(FailureTransport, false, "prepare run directory on host %s: %v", st.exec, err)
	}
	return pr, nil
}

func (r *run) emitEvidence(st *instState, evs []protocol.EvidenceResult) {
	for i := range evs {
		ev := evs[i]
		r.em.emit(Event{Type: EventEvidence, Instance: st.in.ID, Job: st.in.JobID, Stage: st.in.Stage, Host: st.host, Evidence: &ev})
	}
}
