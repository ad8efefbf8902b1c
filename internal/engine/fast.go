package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"path"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/transport"
)

// The one-session path. A fresh instance whose script, evidence and
// bookkeeping run as the same user costs one command on its host
// (fastCmd): queued final markers, the marker check, input artifacts, the
// script, the evidence and artifact batch, the kept artifacts and a
// pending marker. The engine then judges the evidence and queues the final
// marker for the next command on the host. Hosts are prepared once per run
// (prepareCmd). Other instances take the step-by-step path of attempt.

// inputsEnv adds the input artifacts to env for inputsLoop.
func inputsEnv(env map[string]string, dir string, inputs []inputFile) {
	env["CP_IN_N"] = strconv.Itoa(len(inputs))
	for i, f := range inputs {
		n := strconv.Itoa(i)
		env["CP_INP"+n] = path.Join(dir, f.name)
		env["CP_INB"+n] = string(f.content)
	}
}

// fastOut is what one fastCmd session found.
type fastOut struct {
	marker   []byte // an existing marker (the newest readable): nothing ran
	noScript bool   // the script is missing: prepare the host again
	rc       int
	results  []batchOut
}

// inputsTravel reports whether input artifacts can travel in the
// environment (no NUL byte).
func inputsTravel(inputs []inputFile) bool {
	for _, f := range inputs {
		if bytes.IndexByte(f.content, 0) >= 0 {
			return false
		}
	}
	return true
}

func (r *run) attemptFast(ctx context.Context, conn transport.Conn, st *instState, p instancePaths, env map[string]string,
	inputs []inputFile, tl *tail, fail func(error) *attemptError) (attemptOut, *attemptError) {
	job := st.in.Job
	var out attemptOut
	if err := r.ensurePrepared(ctx, conn, st.exec, false); err != nil {
		return out, fail(err)
	}
	vp, err := r.planVerify(st, job.Outputs.Evidence, p.out, job.Controls.Become, true)
	if err != nil {
		return out, fail(err)
	}
	rerun, reprepared := false, false
	for {
		fo, err := r.fastSession(ctx, conn, st, p, env, inputs, vp, rerun, tl)
		if err != nil {
			ae := fail(err)
			if ae.exit != 0 {
				out.exit = ae.exit
			}
			return out, ae
		}
		if fo.noScript {
			if reprepared {
				return out, failf(FailureTransport, false, "script %s is still missing on host %s after shipping it", p.script, st.exec)
			}
			reprepared = true
			if err := r.ensurePrepared(ctx, conn, st.exec, true); err != nil {
				return out, fail(err)
			}
			continue
		}
		if fo.marker != nil {
			sat, note, err := r.checkSatisfied(ctx, conn, st, p, env, inputs, fo.marker)
			if err != nil {
				return out, fail(err)
			}
			if sat != nil {
				return *sat, nil
			}
			out.note = "drift: " + note + "; ran again"
			rerun = true
			continue
		}
		out.exit = fo.rc
		v := r.judgeVerify(st, vp, fo.results)
		out.evidence = v.evidence
		r.emitEvidence(st, v.evidence)
		if ae := r.outcome(st, out.exit, v, tl); ae != nil {
			if out.exit == 0 { // the command wrote a pending marker
				r.dropPending(ctx, conn, st, p)
			}
			return out, ae
		}
		m := r.newMarker(st, StatusDone, "", v.evidence)
		m.Artifacts = markerArtifacts(p, v.artifacts)
		body, err := json.Marshal(m)
		if err != nil {
			return out, failf(FailureTransport, false, "encode marker of %s: %v", st.in.ID, err)
		}
		r.commits.put(st.exec, finalMarker{path: p.marker, body: body})
		out.arts = r.storeArtifacts(st, p, v.artifacts, m.CompletedAt)
		out.status = StatusDone
		return out, nil
	}
}

// sourceable reports whether a script may be sourced by the subshell that
// runs it rather than started as a program: it is a POSIX sh script
// (first line exactly #!/bin/sh or #!/usr/bin/env sh) that does not refer
// to $0, which would name the shell instead of the script. Sourcing saves
// loading a second shell per job; the script still runs in a process of
// its own, with the same environment, directory, stdin and output.
func sourceable(script []byte) bool {
	first, rest, _ := bytes.Cut(script, []byte("\n"))
	first = bytes.TrimRight(first, " \t\r")
	if !bytes.Equal(first, []byte("#!/bin/sh")) && !bytes.Equal(first, []byte("#!/usr/bin/env sh")) {
		return false
	}
	return !bytes.Contains(rest, []byte("$0")) && !bytes.Contains(rest, []byte("${0"))
}

// fastSession runs fastCmd for the instance once.
func (r *run) fastSession(ctx context.Context, conn transport.Conn, st *instState, p instancePaths, env map[string]string,
	inputs []inputFile, vp verifyPlan, rerun bool, tl *tail) (fastOut, error) {
	job := st.in.Job
	timeout := r.jobTimeout(job)
	fenv := maps.Clone(env)
	if rerun {
		fenv["CP_RERUN"] = "1"
	}
	items := vp.items()
	batchEnv(fenv, items)
	inputsEnv(fenv, p.in, inputs)
	fenv["CP_KN"] = strconv.Itoa(len(vp.artifacts))
	for i, a := range vp.artifacts {
		n := strconv.Itoa(i)
		fenv["CP_S"+n] = path.Join(p.out, a.name)
		fenv["CP_D"+n] = path.Join(p.keep, a.name)
	}
	pending := r.newMarker(st, StatusDone, "", nil)
	pending.Unconfirmed = true
	body, err := json.Marshal(pending)
	if err != nil {
		return fastOut{}, fmt.Errorf("encode marker of %s: %w", st.in.ID, err)
	}
	fenv["CP_PENDING"] = string(body)
	if p.scriptSource {
		fenv["CP_SCRIPT_SOURCE"] = "1"
	}
	commits := r.commits.take(st.exec)
	commitEnv(fenv, commits)

	cctx, cancel := context.WithTimeout(ctx, timeout+killAfter+r.cfg.StepTimeout)
	defer cancel()
	var timedOut atomic.Bool
	done := make(chan struct{})
	if job.Script != "" {
		go r.watchTimeout(ctx, conn, p, job.Controls.Become, timeout, done, &timedOut)
	}
	res, err := conn.Run(cctx, transport.Command{Cmd: fastCmd, Env: fenv, Become: job.Controls.Become, Stderr: tl, RawStdout: true})
	close(done)
	if err != nil && timedOut.Load() {
		// KILL ended the session before its trap could run.
		r.cleanup(ctx, conn, st, p.run)
		r.commits.put(st.exec, commits...)
		ae := failf(FailureTimeout, true, "script %s timed out after %s (killed)", job.Script, timeout)
		ae.exit = 124
		return fastOut{}, ae
	}
	if err != nil {
		r.commits.put(st.exec, commits...)
		what := "run the checks of " + st.in.JobID
		if job.Script != "" {
			what = "run script " + job.Script
		}
		return fastOut{}, fmt.Errorf("%s on host %s: %w", what, st.exec, err)
	}
	frames, perr := parseFrames(res.Stdout)
	var fo fastOut
	var markers [][]byte // the final and the pending marker as read
	committed, ran := false, false
	for _, f := range frames {
		switch f.kind {
		case "commits":
			committed = true
		case "marker":
			markers = append(markers, f.stdout)
		case "noscript":
			fo.noScript = true
		case "ran":
			fo.rc, ran = f.code, true
		}
	}
	if !committed {
		r.commits.put(st.exec, commits...)
	}
	if res.ExitCode != 0 {
		return fastOut{}, failf(FailureTransport, false, "engine step for %s on host %s exited %d: %s", st.in.ID, st.exec, res.ExitCode, lastLine(string(res.Stderr)))
	}
	if perr != nil {
		return fastOut{}, failf(FailureTransport, false, "run %s on host %s: %v", st.in.ID, st.exec, perr)
	}
	if fo.noScript {
		return fastOut{noScript: true}, nil
	}
	if len(markers) > 0 {
		fo.marker = newestMarker(markers)
		return fo, nil
	}
	if !ran {
		return fo, failf(FailureTransport, false, "run %s on host %s: the engine's command stopped before the script ran", st.in.ID, st.exec)
	}
	fo.results, err = batchResults(frames, items)
	if err != nil {
		return fo, failf(FailureTransport, false, "check evidence and artifacts of %s on host %s: %v", st.in.ID, st.exec, err)
	}
	return fo, nil
}

// newestMarker picks, of the final and the pending marker of an instance,
// the readable one completed last; when neither is readable, the first
// non-empty one, so the caller reports why.
func newestMarker(raws [][]byte) []byte {
	var best []byte
	var bestAt time.Time
	for _, raw := range raws {
		m, err := decodeMarker(raw)
		if err != nil {
			continue
		}
		if best == nil || m.CompletedAt.After(bestAt) {
			best, bestAt = raw, m.CompletedAt
		}
	}
	if best != nil {
		return best
	}
	for _, raw := range raws {
		if len(raw) > 0 {
			return raw
		}
	}
	return []byte{}
}

// killAfter is how long a script may take to end after TERM before its
// process group gets KILL (timeout(1)'s -k).
const killAfter = 5 * time.Second

// watchTimeout enforces the job's timeout on a fastCmd session: at d it
// sends TERM to the script's process group through killCmd, killAfter
// later KILL, unless done closes first.
func (r *run) watchTimeout(ctx context.Context, conn transport.Conn, p instancePaths, become bool, d time.Duration, done <-chan struct{}, fired *atomic.Bool) {
	t := time.NewTimer(d)
	defer t.Stop()
	for _, sig := range []string{"TERM", "KILL"} {
		select {
		case <-done:
			return
		case <-ctx.Done():
			return
		case <-t.C:
		}
		fired.Store(true)
		sctx, cancel := context.WithTimeout(ctx, r.cfg.StepTimeout)
		_, _ = conn.Run(sctx, transport.Command{Cmd: killCmd, Env: map[string]string{"CP_RUN_DIR": p.run, "CP_SIGNAL": sig}, Become: become})
		cancel()
		t.Reset(killAfter)
	}
}

// dropPending removes the pending marker the session wrote when the script
// exited 0 but the engine judged the attempt failed, so that the failure
// is not taken for work done (a later manual fix is verified as such).
// When that fails, the next run still checks the marker's evidence first.
func (r *run) dropPending(ctx context.Context, conn transport.Conn, st *instState, p instancePaths) {
	sctx, cancel := context.WithTimeout(ctx, r.cfg.StepTimeout)
	defer cancel()
	res, err := conn.Run(sctx, transport.Command{Cmd: dropPendingCmd, Env: map[string]string{"CP_MARKER": p.marker}, Become: st.in.Job.Controls.Become})
	if err == nil && res.ExitCode == 0 {
		return
	}
	msg := fmt.Sprintf("pending marker %s.pending of failed instance %s not removed: ", p.marker, st.in.ID)
	if err != nil {
		msg += err.Error()
	} else {
		msg += fmt.Sprintf("exited %d: %s", res.ExitCode, lastLine(string(res.Stderr)))
	}
	r.em.emit(Event{Type: EventMarkersPending, Instance: st.in.ID, Host: st.exec, Message: r.cfg.Redactor.String(msg)})
}
