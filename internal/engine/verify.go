package engine

import (
	"context"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
	"github.com/intentops/terraform-provider-cp/internal/transport"
)

// producedArtifact is a declared artifact as read from a host.
type producedArtifact struct {
	spec    protocol.ArtifactSpec
	name    string // file name
	content []byte
	present bool
}

// verifyOut is what a verification batch found.
type verifyOut struct {
	evidence  []protocol.EvidenceResult
	failed    []string // one line per failing evidence
	artifacts []producedArtifact
	problems  []string // missing artifacts, failed collect commands
}

// verifyEntry is one item of a verification with the user it runs as.
type verifyEntry struct {
	item   batchItem
	become bool
	ev     *protocol.Evidence
	art    int // index into verifyPlan.artifacts, -1 otherwise
}

// verifyPlan is what a verification will run: collect commands (when
// collect), evidence checks and reads of the declared artifacts.
type verifyPlan struct {
	entries   []verifyEntry
	artifacts []producedArtifact
}

func (r *run) planVerify(st *instState, evidence []protocol.Evidence, artDir string, artBecome, collect bool) (verifyPlan, error) {
	job := st.in.Job
	var vp verifyPlan
	for _, spec := range job.Outputs.Artifacts {
		name, err := artifactFile(spec.ID, spec.File)
		if err != nil {
			return vp, failf(FailureArtifact, false, "%v", err)
		}
		file := path.Join(artDir, name)
		if collect && spec.Collect != "" {
			vp.entries = append(vp.entries, verifyEntry{item: batchItem{kind: "col", cmd: spec.Collect, file: file}, become: job.Controls.Become, art: -1})
		}
		vp.artifacts = append(vp.artifacts, producedArtifact{spec: spec, name: name})
		vp.entries = append(vp.entries, verifyEntry{item: batchItem{kind: "art", file: file}, become: artBecome, art: len(vp.artifacts) - 1})
	}
	for i := range evidence {
		vp.entries = append(vp.entries, verifyEntry{item: batchItem{kind: "ev", cmd: evidence[i].Command}, become: evidence[i].Become, ev: &evidence[i], art: -1})
	}
	return vp, nil
}

// items returns the batch items of the plan.
func (vp verifyPlan) items() []batchItem {
	items := make([]batchItem, len(vp.entries))
	for i, e := range vp.entries {
		items[i] = e.item
	}
	return items
}

// verifyIO says what a verification brings to the host and leaves there.
type verifyIO struct {
	// inputs are written before the checks, for evidence that reads them.
	inputs []inputFile
	// drop removes the instance's run directory when the checks end: the
	// verification is the instance's last command (a satisfied marker),
	// or its caller makes the directory again.
	drop bool
}

// verify runs, on the instance's host, the collect commands (when collect),
// the evidence checks and the reads of the declared artifacts from artDir,
// batched into at most two commands (with and without sudo).
func (r *run) verify(ctx context.Context, conn transport.Conn, st *instState, env map[string]string,
	evidence []protocol.Evidence, artDir string, artBecome, collect bool, io verifyIO) (verifyOut, error) {
	vp, err := r.planVerify(st, evidence, artDir, artBecome, collect)
	if err != nil {
		return verifyOut{}, err
	}
	if len(vp.entries) == 0 {
		if io.drop {
			r.cleanup(ctx, conn, st, env["CP_RUN_DIR"])
		}
		return verifyOut{}, nil
	}
	results := make([]batchOut, len(vp.entries))
	last := false // the batch that runs last: with sudo when any entry needs it
	for _, e := range vp.entries {
		last = last || e.become
	}
	for _, become := range []bool{false, true} {
		var items []batchItem
		var idx []int
		for i, e := range vp.entries {
			if e.become == become {
				items = append(items, e.item)
				idx = append(idx, i)
			}
		}
		if len(items) == 0 {
			continue
		}
		benv := maps.Clone(env)
		batchEnv(benv, items)
		if inputsTravel(io.inputs) {
			inputsEnv(benv, env["CP_INPUT_DIR"], io.inputs)
		}
		if io.drop && become == last {
			benv["CP_DROP_RUN"] = "1"
		}
		sctx, cancel := context.WithTimeout(ctx, r.cfg.StepTimeout)
		res, err := conn.Run(sctx, transport.Command{Cmd: batchCmd, Env: benv, Become: become, RawStdout: true})
		cancel()
		if err != nil {
			return verifyOut{}, fmt.Errorf("check evidence and artifacts on host %s: %w", st.exec, err)
		}
		if res.ExitCode != 0 {
			return verifyOut{}, failf(FailureTransport, false, "check evidence and artifacts on host %s: exited %d: %s", st.exec, res.ExitCode, lastLine(string(res.Stderr)))
		}
		outs, err := parseBatch(res.Stdout, items)
		if err != nil {
			return verifyOut{}, failf(FailureTransport, false, "check evidence and artifacts on host %s: %v", st.exec, err)
		}
		for k, i := range idx {
			results[i] = outs[k]
		}
	}
	return r.judgeVerify(st, vp, results), nil
}

// judgeVerify turns the results of a verification plan into its outcome.
func (r *run) judgeVerify(st *instState, vp verifyPlan, results []batchOut) verifyOut {
	out := verifyOut{artifacts: slices.Clone(vp.artifacts)}
	// Secret values are registered before anything observed is recorded.
	for i, e := range vp.entries {
		if e.art < 0 {
			continue
		}
		pa := &out.artifacts[e.art]
		if results[i].code != 0 {
			out.problems = append(out.problems, fmt.Sprintf("declared artifact %s was not written to %s", pa.spec.ID, e.item.file))
			continue
		}
		pa.content, pa.present = results[i].stdout, true
		if pa.spec.Sensitivity == protocol.SensitivitySecret {
			r.cfg.Redactor.Add(string(pa.content))
		}
		if msg := checkArtifactType(st, *pa); msg != "" {
			out.problems = append(out.problems, msg)
		}
	}
	now := r.cfg.Clock()
	for i, e := range vp.entries {
		switch {
		case e.item.kind == "col" && !results[i].skipped && results[i].code != 0:
			out.problems = append(out.problems, fmt.Sprintf("collect command for %s exited %d: %s", path.Base(e.item.file), results[i].code, lastLine(string(results[i].stderr))))
		case e.ev != nil:
			er := judge(*e.ev, st.host, results[i].stdout, results[i].stderr, results[i].code, now)
			er = redactEvidence(r.cfg.Redactor, er)
			out.evidence = append(out.evidence, er)
			if !er.Passed {
				out.failed = append(out.failed, describeFailure(*e.ev, er))
			}
		}
	}
	// A missing artifact was reported by its read; drop the unread ones.
	kept := out.artifacts[:0]
	for _, pa := range out.artifacts {
		if pa.present {
			kept = append(kept, pa)
		}
	}
	out.artifacts = kept
	return out
}

// summary renders what failed in one line.
func (v verifyOut) summary() string {
	return strings.Join(append(append([]string(nil), v.failed...), v.problems...), "; ")
}
