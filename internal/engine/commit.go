package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
	"github.com/intentops/terraform-provider-cp/internal/transport"
)

func (r *run) newMarker(st *instState, status Status, actor string, evidence []protocol.EvidenceResult) Marker {
	return Marker{
		Key: instanceKey(st.in), Instance: st.in.ID, Job: st.in.JobID, Host: st.host, Operation: r.em.op,
		Status: status, Actor: actor, CompletedAt: r.cfg.Clock(), Evidence: evidence,
	}
}

// commit keeps the produced artifact files beside the marker and writes the
// marker, atomically, in one command.
func (r *run) commit(ctx context.Context, conn transport.Conn, st *instState, p instancePaths, env map[string]string, m Marker, arts []producedArtifact) error {
	cenv := maps.Clone(env)
	cenv["CP_N"] = strconv.Itoa(len(arts))
	for i, a := range arts {
		n := strconv.Itoa(i)
		cenv["CP_S"+n] = path.Join(p.out, a.name)
		cenv["CP_D"+n] = path.Join(p.keep, a.name)
	}
	m.Artifacts = markerArtifacts(p, arts)
	body, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("encode marker of %s: %w", st.in.ID, err)
	}
	sctx, cancel := context.WithTimeout(ctx, r.cfg.StepTimeout)
	defer cancel()
	res, err := conn.Run(sctx, transport.Command{Cmd: commitCmd, Env: cenv, Stdin: bytes.NewReader(body), Become: r.cfg.StateBecome || st.in.Job.Controls.Become})
	if err != nil {
		return fmt.Errorf("write marker %s on host %s: %w", p.marker, st.exec, err)
	}
	if res.ExitCode != 0 {
		return failf(FailureTransport, false, "write marker %s on host %s: exited %d: %s", p.marker, st.exec, res.ExitCode, lastLine(string(res.Stderr)))
	}
	return nil
}

// cleanup removes an instance's run directory when no command of the
// instance did (best effort: what it leaves, the next run's host
// preparation removes).
func (r *run) cleanup(ctx context.Context, conn transport.Conn, st *instState, runDir string) {
	if ctx.Err() != nil {
		return
	}
	sctx, cancel := context.WithTimeout(ctx, r.cfg.StepTimeout)
	defer cancel()
	become := r.cfg.StateBecome || (st.in.Job != nil && st.in.Job.Controls.Become)
	res, err := conn.Run(sctx, transport.Command{Cmd: cleanupCmd, Env: map[string]string{"CP_RUN_DIR": runDir}, Become: become})
	if err == nil && res.ExitCode == 0 {
		return
	}
	msg := fmt.Sprintf("run directory %s of instance %s not removed (the next run removes it): ", runDir, st.in.ID)
	if err != nil {
		msg += err.Error()
	} else {
		msg += fmt.Sprintf("exited %d: %s", res.ExitCode, lastLine(string(res.Stderr)))
	}
	r.em.emit(Event{Type: EventRunDirLeft, Instance: st.in.ID, Host: st.exec, Message: r.cfg.Redactor.String(msg)})
}

// storeArtifacts records the artifacts of a finished instance: values for
// public and internal ones, reference, fingerprint and expiry for secrets.
func (r *run) storeArtifacts(st *instState, p instancePaths, arts []producedArtifact, completed time.Time) []string {
	var ids []string
	for _, pa := range arts {
		a := protocol.Artifact{
			ID: pa.spec.ID, Type: pa.spec.Type, Sensitivity: pa.spec.Sensitivity, Producer: st.in.ID, Host: st.host,
			Fingerprint: fingerprint(pa.content),
		}
		if ttl := pa.spec.TTL.D(); ttl > 0 {
			a.ExpiresAt = completed.Add(ttl)
		}
		if a.Sensitivity == protocol.SensitivitySecret {
			a.Ref = protocol.HostRef(st.exec, path.Join(p.keep, pa.name))
		} else {
			// A value is what the script wrote, without the final newline
			// `echo` adds; the file handed to consumers stays byte-exact.
			a.Value = strings.TrimRight(string(pa.content), "\r\n")
		}
		r.store.add(a, pa.content, st.idx)
		ids = append(ids, a.ID)
		shown := a
		r.em.emit(Event{Type: EventArtifact, Instance: st.in.ID, Job: st.in.JobID, Host: st.host, Artifact: &shown})
	}
	return ids
}

// checkSatisfied decides whether an existing marker still stands: its
// evidence holds now and its kept artifacts are there, unchanged and
// unexpired. It returns the satisfied outcome, or nil and why not.
//
// The verification is given the instance's input artifacts, for evidence
// that reads them, and removes the run directory when it ends: a caller
// that goes on to run the job makes it again.
func (r *run) checkSatisfied(ctx context.Context, conn transport.Conn, st *instState, p instancePaths, env map[string]string, inputs []inputFile, raw []byte) (*attemptOut, string, error) {
	if why, ok := r.in.Repair[st.in.ID]; ok {
		r.cleanup(ctx, conn, st, p.run)
		return nil, "repair: " + why, nil
	}
	m, err := decodeMarker(raw)
	if err != nil {
		r.cleanup(ctx, conn, st, p.run)
		return nil, fmt.Sprintf("marker %s is unreadable (%v)", p.marker, err), nil
	}
	if m.Key != instanceKey(st.in) {
		r.cleanup(ctx, conn, st, p.run)
		return nil, fmt.Sprintf("marker %s records key %q", p.marker, m.Key), nil
	}
	job := st.in.Job
	v, err := r.verify(ctx, conn, st, env, job.Outputs.Evidence, p.keep, r.cfg.StateBecome || job.Controls.Become, false, verifyIO{inputs: inputs, drop: true})
	if err != nil {
		return nil, "", err
	}
	if len(v.failed) > 0 {
		r.emitEvidence(st, v.evidence)
		return nil, v.failed[0] + " (no longer holds)", nil
	}
	if len(v.problems) > 0 {
		return nil, "kept " + v.problems[0], nil
	}
	now := r.cfg.Clock()
	recorded := map[string]string{}
	for _, a := range m.Artifacts {
		recorded[a.ID] = a.Fingerprint
	}
	for _, pa := range v.artifacts {
		if ttl := pa.spec.TTL.D(); ttl > 0 && !now.Before(m.CompletedAt.Add(ttl)) {
			return nil, fmt.Sprintf("artifact %s expired at %s", pa.spec.ID, m.CompletedAt.Add(ttl).Format(time.RFC3339)), nil
		}
		if fp, ok := recorded[pa.spec.ID]; ok && fp != fingerprint(pa.content) {
			return nil, fmt.Sprintf("kept artifact %s changed since the marker was written", pa.spec.ID), nil
		}
	}
	r.emitEvidence(st, v.evidence)
	out := &attemptOut{status: StatusSatisfied, evidence: v.evidence}
	out.arts = r.storeArtifacts(st, p, v.artifacts, m.CompletedAt)
	out.note = fmt.Sprintf("completed by operation %s at %s; evidence still holds", m.Operation, m.CompletedAt.Format(time.RFC3339))
	if m.Unconfirmed {
		out.note = fmt.Sprintf("ran in operation %s at %s (marker written before its evidence was judged); evidence holds", m.Operation, m.CompletedAt.Format(time.RFC3339))
	}
	if m.Status == StatusFixed {
		out.note = fmt.Sprintf("fixed by %s and verified (operation %s); evidence still holds", m.Actor, m.Operation)
	}
	return out, "", nil
}
