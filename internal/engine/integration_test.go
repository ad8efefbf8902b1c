package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// A job that exits 0 while its evidence fails is failed, is not retried
// (evidence is not a retryable failure), skips its dependents, leaves the
// independent branch running and writes no marker: the next run executes
// it again.
func TestIntegrationExitZeroWithFailingEvidenceFails(t *testing.T) {
	e := startIT(t, "ev-a", "ev-b")
	b := e.plan("evidence")
	install := itJob("install", "exit0", protocol.Evidence{ID: "binary_installed", Command: "test -x /usr/local/bin/cp-it-tool"})
	install.Controls.RetryPolicy = protocol.RetryPolicy{MaxAttempts: 3}
	after := itJob("configure", "step", stateEvidence("configured"))
	other := itJob("other", "step", stateEvidence("other_done"))
	b.add(install, "ev-a", nil)
	b.add(after, "ev-a", []string{"install[ev-a]"})
	b.add(other, "ev-b", nil)

	eng, rec := e.engine(nil)
	res := e.run(eng, t.Context(), b.p, RunInput{})
	if res.Operation.Status != protocol.StatusFailed {
		t.Fatalf("operation got: %s want: Failed\n%s", res.Operation.Status, dump(res))
	}
	in := wantStatus(t, res, "install[ev-a]", StatusFailed)
	if in.Class != FailureEvidence || len(in.Attempts) != 1 {
		t.Errorf("install[ev-a] got: class %s, %d attempts want: class evidence, 1 attempt", in.Class, len(in.Attempts))
	}
	for _, want := range []string{"job install on host ev-a", "exited 0 but evidence binary_installed failed", "exit code 1, expected 0"} {
		if !strings.Contains(in.Reason, want) {
			t.Errorf("install[ev-a] reason got: %q want it to contain %q", in.Reason, want)
		}
	}
	if err := res.Err(); err == nil || !strings.Contains(err.Error(), "binary_installed") {
		t.Errorf("Result.Err got: %v want: an error naming evidence binary_installed", err)
	}
	if !slices.Equal(res.Failed, []string{"install[ev-a]"}) {
		t.Errorf("Result.Failed got: %v want: [install[ev-a]]", res.Failed)
	}
	sk := wantStatus(t, res, "configure[ev-a]", StatusSkipped)
	if sk.Reason != "needs install[ev-a] which failed" {
		t.Errorf("configure[ev-a] reason got: %q", sk.Reason)
	}
	wantStatus(t, res, "other[ev-b]", StatusDone)
	reported := false
	for _, ev := range rec.events {
		if ev.Type == EventInstanceFinished && ev.Instance == "install[ev-a]" && ev.Status == StatusFailed {
			reported = true
		}
	}
	if !reported {
		t.Error("no instance.finished event with status failed for install[ev-a]")
	}

	eng2, _ := e.engine(nil)
	res2 := e.run(eng2, t.Context(), b.p, RunInput{Previous: &res.Operation})
	wantStatus(t, res2, "install[ev-a]", StatusFailed)
	wantStatus(t, res2, "other[ev-b]", StatusSatisfied)
	runs := e.runs()
	if runs["install[ev-a]"] != 2 || runs["configure[ev-a]"] != 0 || runs["other[ev-b]"] != 1 {
		t.Errorf("runs on the hosts got: %v want: install twice (no marker), configure never, other once", runs)
	}
}

// resumePlan: prepare on every node, init on the master, join on each
// worker (needs init and its own prepare), verify once.
func resumePlan(e *itEnv, stepByStep bool) *protocol.Plan {
	b := e.plan("resume")
	b.stepByStep = stepByStep
	prep := itJob("prepare", "step", stateEvidence("prepared"))
	initJ := itJob("init", "step", stateEvidence("initialized"))
	join := itJob("join", "step", stateEvidence("joined"))
	verify := itJob("verify", "step", stateEvidence("verified"))
	for _, h := range e.names {
		b.add(prep, h, nil, "sleep", "0.3")
	}
	b.add(initJ, e.names[0], []string{"prepare[" + e.names[0] + "]"}, "sleep", "0.2")
	var joins []string
	for _, w := range e.names[1:] {
		in := b.add(join, w, []string{"init[" + e.names[0] + "]", "prepare[" + w + "]"}, "sleep", "0.3")
		joins = append(joins, in.ID)
	}
	b.add(verify, "", joins)
	return b.p
}

// A run cancelled after k instances finished, at several points and with
// or without a grace period for running commands, is resumed by a fresh
// engine over a fresh pool: it completes, and no instance that had
// finished runs again (counted by the run logs on the hosts).
func TestIntegrationCancelledRunResumes(t *testing.T) {
	e := startIT(t, "rs-m1", "rs-w1", "rs-w2")
	total := len(resumePlan(e, false).Instances)
	for _, tc := range []struct {
		after      int
		grace      time.Duration
		stepByStep bool
	}{{1, 0, false}, {3, -1, false}, {5, 0, false}, {total - 1, -1, false}, {2, 0, true}, {total - 1, -1, true}} {
		path := "one command"
		if tc.stepByStep {
			path = "step by step"
		}
		t.Run(fmt.Sprintf("%s after %d grace %v", path, tc.after, tc.grace), func(t *testing.T) {
			s := e.sub(fmt.Sprintf("resume-%d-%v", tc.after, tc.stepByStep))
			s.t = t
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			eng, rec := s.engine(func(c *Config) { c.Parallelism = 2; c.GracePeriod = tc.grace })
			finished := 0
			rec.onEvent(func(ev Event) {
				if ev.Type == EventInstanceFinished && ev.Status == StatusDone {
					finished++
					if finished == tc.after {
						cancel()
					}
				}
			})
			res := s.run(eng, ctx, resumePlan(s, tc.stepByStep), RunInput{OperationID: "op-resume"})
			if res.Operation.Status != protocol.StatusInterrupted {
				t.Fatalf("first run got: %s want: Interrupted\n%s", res.Operation.Status, dump(res))
			}
			var done []string
			for _, in := range res.Instances {
				switch in.Status {
				case StatusDone:
					done = append(done, in.ID)
				case StatusSkipped, StatusFailed:
					t.Errorf("%s: got: %s (%s) want: done, interrupted or pending", in.ID, in.Status, in.Reason)
				}
			}
			if len(done) < tc.after {
				t.Fatalf("first run finished %d instances, cancelled after %d\n%s", len(done), tc.after, dump(res))
			}

			eng2, _ := s.engine(nil) // fresh engine, fresh pool
			res2 := s.run(eng2, t.Context(), resumePlan(s, tc.stepByStep), RunInput{Previous: &res.Operation})
			if res2.Operation.Status != protocol.StatusCompleted {
				t.Fatalf("second run got: %s want: Completed\n%s", res2.Operation.Status, dump(res2))
			}
			runs := s.runs()
			for _, in := range res2.Instances {
				if slices.Contains(done, in.ID) {
					if in.Status != StatusSatisfied || runs[in.ID] != 1 {
						t.Errorf("%s finished in the first run; second run got: %s, executed %d times in all want: satisfied, once", in.ID, in.Status, runs[in.ID])
					}
					continue
				}
				if in.Status != StatusDone || runs[in.ID] < 1 {
					t.Errorf("%s: second run got: %s, executed %d times want: done, at least once", in.ID, in.Status, runs[in.ID])
				}
			}
			if !slices.ContainsFunc(res2.Operation.Timeline, func(te protocol.TimelineEntry) bool { return te.Event == "resumed" }) {
				t.Error("the second run's timeline has no resumed entry")
			}
		})
	}
}

// A host frozen in the middle of the run (SIGSTOP of its sshd and
// sessions) makes its next job time out, be retried and fail with a
// classified failure, while the other hosts' branches complete. After the
// thaw, a fresh run finishes the rest.
func TestIntegrationFrozenHostRetriesThenFails(t *testing.T) {
	e := startIT(t, "fz-1", "fz-2", "fz-3")
	t.Cleanup(func() { _ = e.c.Thaw("fz-2") })
	b := e.plan("frozen")
	first := itJob("first", "step", stateEvidence("first_done"))
	second := itJob("second", "step", stateEvidence("second_done"))
	second.Controls.Timeout = protocol.Duration(3 * time.Second)
	second.Controls.RetryPolicy = protocol.RetryPolicy{MaxAttempts: 2, Backoff: protocol.Duration(100 * time.Millisecond)}
	for _, h := range e.names {
		b.add(first, h, nil)
		b.add(second, h, []string{"first[" + h + "]"})
	}
	eng, rec := e.engine(func(c *Config) { c.StepTimeout = 3 * time.Second })
	rec.onEvent(func(ev Event) {
		if ev.Type == EventInstanceFinished && ev.Instance == "first[fz-2]" && ev.Status == StatusDone {
			if err := e.c.Freeze("fz-2"); err != nil {
				t.Errorf("freeze: %v", err)
			}
		}
	})
	res := e.run(eng, t.Context(), b.p, RunInput{})
	if err := e.c.Thaw("fz-2"); err != nil {
		t.Fatal(err)
	}
	if res.Operation.Status != protocol.StatusFailed {
		t.Fatalf("operation got: %s want: Failed\n%s", res.Operation.Status, dump(res))
	}
	in := wantStatus(t, res, "second[fz-2]", StatusFailed)
	classes := []string{FailureTimeout, FailureConnLost, FailureUnreachable}
	if !slices.Contains(classes, in.Class) {
		t.Errorf("second[fz-2] class got: %q want: one of %v", in.Class, classes)
	}
	if len(in.Attempts) != 2 {
		t.Errorf("second[fz-2] got: %d attempts want: 2\n%+v", len(in.Attempts), in.Attempts)
	}
	for _, a := range in.Attempts {
		if !slices.Contains(classes, a.Class) {
			t.Errorf("attempt %d class got: %q (%s) want: one of %v", a.Number, a.Class, a.Error, classes)
		}
	}
	if !strings.Contains(in.Reason, "failed after 2 attempts") || !strings.Contains(in.Reason, "fz-2") {
		t.Errorf("reason got: %q want: the host and \"failed after 2 attempts\"", in.Reason)
	}
	retried := 0
	for _, ev := range rec.events {
		if ev.Type == EventAttemptFailed && ev.Instance == "second[fz-2]" {
			retried++
		}
	}
	if retried != 2 {
		t.Errorf("attempt_failed events for second[fz-2] got: %d want: 2", retried)
	}
	wantStatus(t, res, "first[fz-2]", StatusDone)
	for _, h := range []string{"fz-1", "fz-3"} {
		wantStatus(t, res, "first["+h+"]", StatusDone)
		wantStatus(t, res, "second["+h+"]", StatusDone)
	}

	eng2, _ := e.engine(nil)
	res2 := e.run(eng2, t.Context(), b.p, RunInput{Previous: &res.Operation})
	if res2.Operation.Status != protocol.StatusCompleted {
		t.Fatalf("run after thaw got: %s want: Completed\n%s", res2.Operation.Status, dump(res2))
	}
	wantStatus(t, res2, "first[fz-2]", StatusSatisfied)
	if got := e.runs()["first[fz-2]"]; got != 1 {
		t.Errorf("first[fz-2] executed %d times want 1", got)
	}
}

// An unapproved gate stops its branch and the operation waits with the
// gate's reason, options and roles; a decision by an actor without the
// role is refused with the reason; with the role, the branch proceeds.
func TestIntegrationGateApproval(t *testing.T) {
	e := startIT(t, "gt-1", "gt-2")
	b := e.plan("gate")
	prep := itJob("prepare", "step", stateEvidence("prepared"))
	upgrade := itJob("upgrade", "step", stateEvidence("upgraded"))
	other := itJob("other", "step", stateEvidence("other_done"))
	b.add(prep, "gt-1", nil)
	g := protocol.Gate{ID: "approve-upgrade", Type: protocol.GateApproval, Reason: "the upgrade restarts the control plane",
		Options: []protocol.GateOption{protocol.Proceed("approve"), protocol.Cancel("reject")}, RequiredRoles: []string{"sre-lead"}}
	b.gate(g, "prepare[gt-1]")
	b.add(upgrade, "gt-1", []string{"approve-upgrade"})
	b.add(other, "gt-2", nil)

	eng, _ := e.engine(nil)
	res := e.run(eng, t.Context(), b.p, RunInput{})
	if res.Operation.Status != protocol.StatusWaitingForApproval {
		t.Fatalf("operation got: %s want: WaitingForApproval\n%s", res.Operation.Status, dump(res))
	}
	if len(res.Waiting) != 1 {
		t.Fatalf("waiting got: %+v want: one gate", res.Waiting)
	}
	w := res.Waiting[0]
	if w.Gate != g.ID || w.Reason != g.Reason || !slices.Equal(w.Options, g.OptionIDs()) || !slices.Equal(w.RequiredRoles, g.RequiredRoles) || w.Status != protocol.StatusWaitingForApproval {
		t.Errorf("waiting gate got: %+v want: gate %s with its reason, options and roles", w, g.ID)
	}
	sk := wantStatus(t, res, "upgrade[gt-1]", StatusSkipped)
	if sk.Reason != "needs gate approve-upgrade which waits for a decision" {
		t.Errorf("upgrade reason got: %q", sk.Reason)
	}
	wantStatus(t, res, "other[gt-2]", StatusDone)

	eng2, rec2 := e.engine(nil)
	dev := protocol.Decision{Gate: g.ID, Option: "approve", Actor: "dev", Roles: []string{"developer"}}
	res2 := e.run(eng2, t.Context(), b.p, RunInput{Previous: &res.Operation, Decisions: []protocol.Decision{dev}})
	if res2.Operation.Status != protocol.StatusWaitingForApproval || len(res2.Waiting) != 1 {
		t.Fatalf("with a decision of an actor without the role got: %s %+v want: still WaitingForApproval", res2.Operation.Status, res2.Waiting)
	}
	if want := `actor "dev" has roles ["developer"] but the gate requires one of ["sre-lead"]`; !strings.Contains(res2.Waiting[0].Refused, want) {
		t.Errorf("refused got: %q want it to contain %q", res2.Waiting[0].Refused, want)
	}
	if !slices.ContainsFunc(rec2.events, func(ev Event) bool { return ev.Type == EventGateRefused && ev.Instance == g.ID }) {
		t.Error("no gate.refused event")
	}
	if got := e.runs()["upgrade[gt-1]"]; got != 0 {
		t.Errorf("upgrade ran %d times before approval", got)
	}

	eng3, _ := e.engine(nil)
	lead := protocol.Decision{Gate: g.ID, Option: "approve", Actor: "lead", Roles: []string{"sre-lead"}}
	res3 := e.run(eng3, t.Context(), b.p, RunInput{Previous: &res2.Operation, Decisions: []protocol.Decision{dev, lead}})
	if res3.Operation.Status != protocol.StatusCompleted {
		t.Fatalf("with the lead's approval got: %s want: Completed\n%s", res3.Operation.Status, dump(res3))
	}
	gr := wantStatus(t, res3, g.ID, StatusDone)
	if gr.Decision == nil || gr.Decision.Actor != "lead" {
		t.Errorf("gate decision got: %+v want: lead's", gr.Decision)
	}
	wantStatus(t, res3, "upgrade[gt-1]", StatusDone)
	wantStatus(t, res3, "prepare[gt-1]", StatusSatisfied)
	if runs := e.runs(); runs["upgrade[gt-1]"] != 1 || runs["prepare[gt-1]"] != 1 {
		t.Errorf("runs got: %v want: upgrade and prepare once each", runs)
	}
}

// seedPlan is seed 000 §5: runtime everywhere, init on the master, join
// on each worker (worker-3's leaves its kubelet.conf missing), a label
// after each join, verify once.
func seedPlan(e *itEnv) *protocol.Plan {
	b := e.plan("seed")
	runtime := itJob("runtime", "step", stateEvidence("containerd_active"))
	initJ := itJob("init", "step", stateEvidence("apiserver_healthy"))
	join := itJob("join", "join", protocol.Evidence{ID: "kubelet_conf_present", Command: `cat "$CP_PARAM_CONF"`, Expected: "ok"})
	join.Controls.ManualIntervention.Allowed = true
	label := itJob("label", "step", stateEvidence("node_labelled"))
	verify := itJob("verify", "step", stateEvidence("nodes_ready"))
	master := e.names[0]
	for _, h := range e.names {
		b.add(runtime, h, nil)
	}
	b.add(initJ, master, []string{"runtime[" + master + "]"})
	var labels []string
	for _, w := range e.names[1:] {
		params := []string{"conf", e.statePath("kubelet-" + w + ".conf")}
		if w == "worker-3" {
			params = append(params, "break", "1")
		}
		b.add(join, w, []string{"init[" + master + "]", "runtime[" + w + "]"}, params...)
		labels = append(labels, b.add(label, w, []string{"join[" + w + "]"}).ID)
	}
	b.add(verify, "", labels)
	return b.p
}

// Seed 000 §5: join fails on worker-3 (its evidence finds no
// kubelet.conf); the file is created on the host by hand and recorded as
// an intervention, which is verified, and the operation continues to
// Completed without running the join again. An intervention whose
// verification still fails keeps the operation Failed with what fails.
func TestIntegrationManualFixSeed000(t *testing.T) {
	e := startIT(t, "master-1", "worker-1", "worker-2", "worker-3")
	fix := protocol.Intervention{Type: "manually_fixed", Job: "join", Node: "worker-3", Actor: "alice", Note: "wrote kubelet.conf by hand"}

	firstRun := func(t *testing.T, s *itEnv) *Result {
		eng, _ := s.engine(nil)
		res := s.run(eng, t.Context(), seedPlan(s), RunInput{})
		if res.Operation.Status != protocol.StatusFailed {
			t.Fatalf("first run got: %s want: Failed\n%s", res.Operation.Status, dump(res))
		}
		in := wantStatus(t, res, "join[worker-3]", StatusFailed)
		if in.Class != FailureEvidence || !strings.Contains(in.Reason, "evidence kubelet_conf_present failed") {
			t.Errorf("join[worker-3] got: class %s reason %q want: evidence kubelet_conf_present failed", in.Class, in.Reason)
		}
		wantStatus(t, res, "label[worker-3]", StatusSkipped)
		wantStatus(t, res, "verify", StatusSkipped)
		wantStatus(t, res, "label[worker-2]", StatusDone)
		return res
	}

	t.Run("fixed by hand and verified", func(t *testing.T) {
		s := e.sub("seed-fixed")
		s.t = t
		res := firstRun(t, s)
		s.writeHostFile("worker-3", s.statePath("kubelet-worker-3.conf"), []byte("ok\n"))
		eng, rec := s.engine(nil)
		res2 := s.run(eng, t.Context(), seedPlan(s), RunInput{Previous: &res.Operation, Interventions: []protocol.Intervention{fix}})
		if res2.Operation.Status != protocol.StatusCompleted {
			t.Fatalf("run with the intervention got: %s want: Completed\n%s", res2.Operation.Status, dump(res2))
		}
		if len(res2.Interventions) != 1 || !res2.Interventions[0].Verified || !slices.Equal(res2.Interventions[0].Instances, []string{"join[worker-3]"}) {
			t.Errorf("interventions got: %+v want: verified on join[worker-3]", res2.Interventions)
		}
		in := wantStatus(t, res2, "join[worker-3]", StatusFixed)
		if in.FixedBy != "alice" || !strings.Contains(in.Reason, "wrote kubelet.conf by hand") {
			t.Errorf("join[worker-3] got: fixed by %q reason %q", in.FixedBy, in.Reason)
		}
		wantStatus(t, res2, "label[worker-3]", StatusDone)
		wantStatus(t, res2, "verify", StatusDone)
		wantStatus(t, res2, "join[worker-1]", StatusSatisfied)
		var path []protocol.OperationStatus
		for _, te := range res2.Operation.Timeline {
			path = append(path, te.Status)
		}
		if !slices.Contains(path, protocol.StatusVerification) {
			t.Errorf("timeline got: %v want: a Verification step", path)
		}
		if !slices.ContainsFunc(rec.events, func(ev Event) bool { return ev.Type == EventIntervention && ev.Host == "worker-3" }) {
			t.Error("no intervention.verified event")
		}
		runs := s.runs()
		for _, in := range res2.Instances {
			if runs[in.ID] != 1 {
				t.Errorf("%s executed %d times want 1 (the fix is not re-run)", in.ID, runs[in.ID])
			}
		}
		// A third run finds everything satisfied, the fix included.
		eng3, _ := s.engine(nil)
		res3 := s.run(eng3, t.Context(), seedPlan(s), RunInput{})
		if res3.Operation.Status != protocol.StatusCompleted {
			t.Fatalf("third run got: %s\n%s", res3.Operation.Status, dump(res3))
		}
		if in := wantStatus(t, res3, "join[worker-3]", StatusSatisfied); !strings.Contains(in.Reason, "fixed by alice") {
			t.Errorf("join[worker-3] on the third run: reason got: %q want: fixed by alice", in.Reason)
		}
	})

	t.Run("verification still fails", func(t *testing.T) {
		s := e.sub("seed-unfixed")
		s.t = t
		res := firstRun(t, s)
		eng, _ := s.engine(nil)
		res2 := s.run(eng, t.Context(), seedPlan(s), RunInput{Previous: &res.Operation, Interventions: []protocol.Intervention{fix}})
		if res2.Operation.Status != protocol.StatusFailed {
			t.Fatalf("got: %s want: Failed\n%s", res2.Operation.Status, dump(res2))
		}
		if len(res2.Interventions) != 1 || res2.Interventions[0].Verified {
			t.Fatalf("interventions got: %+v want: one, not verified", res2.Interventions)
		}
		still := strings.Join(res2.Interventions[0].StillFailing, "; ")
		if !strings.Contains(still, "join[worker-3]") || !strings.Contains(still, "evidence kubelet_conf_present failed") {
			t.Errorf("still failing got: %q want: join[worker-3] and its evidence", still)
		}
		in := wantStatus(t, res2, "join[worker-3]", StatusFailed)
		if in.Class != FailureVerification || !strings.Contains(in.Reason, "manually fixed by alice but verification still fails") {
			t.Errorf("join[worker-3] got: class %s reason %q", in.Class, in.Reason)
		}
		if err := res2.Err(); err == nil || !strings.Contains(err.Error(), "kubelet_conf_present") {
			t.Errorf("Result.Err got: %v want: the failing evidence", err)
		}
		wantStatus(t, res2, "label[worker-3]", StatusSkipped)
		wantStatus(t, res2, "verify", StatusSkipped)
		if got := s.runs()["join[worker-3]"]; got != 1 {
			t.Errorf("join[worker-3] executed %d times want 1", got)
		}
	})
}

// A secret artifact produced on one host reaches its consumer on another
// (the consumer's evidence compares what it kept with its input), and the
// literal value appears nowhere: not in the journal file, the events, the
// result, errors, log tails or the markers on the hosts, even though both
// scripts print it.
func TestIntegrationSecretArtifactNeverLeaks(t *testing.T) {
	e := startIT(t, "sc-1", "sc-2")
	b := e.plan("secret")
	issue := itJob("issue", "issue")
	issue.Outputs.Artifacts = []protocol.ArtifactSpec{{ID: "join.token", Type: "string", Sensitivity: protocol.SensitivitySecret, TTL: protocol.Duration(time.Hour)}}
	consume := itJob("consume", "consume",
		protocol.Evidence{ID: "token_kept", Command: `cat "$CP_PARAM_STATE"`, Expected: "^[0-9a-f]{32}$", Match: protocol.MatchRegex},
		protocol.Evidence{ID: "token_matches_input", Command: `cmp -s "$CP_PARAM_STATE" "$CP_ARTIFACT_JOIN_TOKEN" && echo same`, Expected: "same"})
	consume.Inputs.Requires.Artifacts = []protocol.ArtifactRef{{ID: "join.token"}}
	b.add(issue, "sc-1", nil)
	b.add(consume, "sc-2", []string{"issue[sc-1]"})

	eng, rec := e.engine(nil)
	res := e.run(eng, t.Context(), b.p, RunInput{})
	if res.Operation.Status != protocol.StatusCompleted {
		t.Fatalf("operation got: %s want: Completed\n%s", res.Operation.Status, dump(res))
	}
	secret, ok := res.SecretValue("join.token", "issue[sc-1]")
	if !ok || len(secret) != 32 {
		t.Fatalf("SecretValue got: %q %v want: the 32-hex token", secret, ok)
	}
	kept, err := e.hostFile("sc-2", e.statePath("consume[sc-2]"))
	if err != nil || string(kept) != secret {
		t.Fatalf("the consumer kept %q (%v), want the producer's value", kept, err)
	}
	for _, a := range res.Artifacts {
		if a.ID == "join.token" && (a.Value != "" || a.Ref == "" || a.Fingerprint == "") {
			t.Errorf("artifact got: %+v want: no value, a reference and a fingerprint", a)
		}
	}
	issueRes, _ := res.Instance("issue[sc-1]")
	if !slices.ContainsFunc(issueRes.LogTail, func(l string) bool { return strings.HasPrefix(l, "issued token ") }) {
		t.Errorf("issue log tail got: %q want: the (masked) line that printed the token", issueRes.LogTail)
	}

	journal, err := os.ReadFile(e.journal)
	if err != nil || len(journal) == 0 {
		t.Fatalf("journal %s: %v (%d bytes)", e.journal, err, len(journal))
	}
	resJSON, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	places := map[string]string{"journal": string(journal), "events": rec.json(t), "result": string(resJSON)}
	for _, in := range res.Instances {
		places["log tail of "+in.ID] = strings.Join(in.LogTail, "\n")
		places["reason of "+in.ID] = in.Reason
		if err := in.Err(); err != nil {
			places["error of "+in.ID] = err.Error()
		}
	}
	if err := res.Err(); err != nil {
		places["Result.Err"] = err.Error()
	}
	for _, h := range e.names {
		root, err := e.c.RootPath(h)
		if err != nil {
			t.Fatal(err)
		}
		markers, _ := filepath.Glob(filepath.Join(root, e.stateDir(), "markers", "*.json"))
		if len(markers) == 0 {
			t.Errorf("no marker on %s", h)
		}
		for _, m := range markers {
			b, _ := os.ReadFile(m)
			places["marker "+h+":"+path.Base(m)] = string(b)
		}
	}
	for where, text := range places {
		if strings.Contains(text, secret) {
			t.Errorf("the secret value appears in the %s", where)
		}
	}
	if !strings.Contains(places["events"], "token_kept") {
		t.Error("the events have no evidence token_kept; the search looked at the wrong thing")
	}
}

// Killing a host's sessions (CutOff) or its whole sshd (Kill, then the
// host comes back) while a long job runs yields a connection_lost attempt
// and a retry that completes.
func TestIntegrationConnectionLostMidCommandIsRetried(t *testing.T) {
	e := startIT(t, "kl-1", "kl-2")
	for _, fault := range []string{"cutoff", "kill"} {
		t.Run(fault, func(t *testing.T) {
			s := e.sub("lost-" + fault)
			s.t = t
			b := s.plan("lost")
			long := itJob("long", "long", stateEvidence("long_done"))
			long.Controls.RetryPolicy = protocol.RetryPolicy{MaxAttempts: 3, Backoff: protocol.Duration(200 * time.Millisecond)}
			other := itJob("other", "step", stateEvidence("other_done"))
			b.add(long, "kl-1", nil)
			b.add(other, "kl-2", nil)
			eng, rec := s.engine(nil)
			if fault == "kill" {
				rec.onEvent(func(ev Event) {
					if ev.Type == EventAttemptFailed && ev.Instance == "long[kl-1]" {
						ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
						defer cancel()
						if err := s.c.StartHost(ctx, "kl-1"); err != nil {
							t.Errorf("start host again: %v", err)
						}
					}
				})
			}
			type out struct{ res *Result }
			done := make(chan out, 1)
			go func() {
				ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
				defer cancel()
				res, err := eng.Run(ctx, b.p, RunInput{})
				if err != nil {
					t.Errorf("Run: %v", err)
				}
				done <- out{res}
			}()
			s.waitHostFile("kl-1", s.statePath("long[kl-1]")+".started", time.Minute)
			switch fault {
			case "cutoff":
				if n, err := s.c.CutOff("kl-1"); err != nil || n == 0 {
					t.Fatalf("cut off: killed %d processes, %v", n, err)
				}
			case "kill":
				if err := s.c.Kill("kl-1"); err != nil {
					t.Fatal(err)
				}
			}
			res := (<-done).res
			if res == nil {
				t.FailNow()
			}
			if res.Operation.Status != protocol.StatusCompleted {
				t.Fatalf("operation got: %s want: Completed\n%s", res.Operation.Status, dump(res))
			}
			in := wantStatus(t, res, "long[kl-1]", StatusDone)
			if len(in.Attempts) != 2 || in.Attempts[0].Class != FailureConnLost {
				t.Errorf("long[kl-1] attempts got: %+v want: a connection_lost attempt, then a successful one", in.Attempts)
			}
			wantStatus(t, res, "other[kl-2]", StatusDone)
			if got := s.runs()["long[kl-1]"]; got != 2 {
				t.Errorf("long[kl-1] executed %d times want 2", got)
			}
		})
	}
}

// A script that outlives its job's timeout is stopped with the processes
// it started: the attempt fails as a timeout with exit 124 (what
// timeout(1) reports), is retried per the policy, and no child of the
// script lives on to write its file.
func TestIntegrationScriptTimeoutStopsItsProcessGroup(t *testing.T) {
	e := startIT(t, "to-1")
	// hang is a bash script (exec'd), hangsh a POSIX one (sourced).
	for _, script := range []string{"hang", "hangsh"} {
		t.Run(script, func(t *testing.T) { testScriptTimeout(t, e.sub("timeout-"+script), script) })
	}
}

func testScriptTimeout(t *testing.T, e *itEnv, script string) {
	e.t = t
	b := e.plan("timeout")
	hang := itJob("hang", script)
	hang.Controls.Timeout = protocol.Duration(time.Second)
	hang.Controls.RetryPolicy = protocol.RetryPolicy{MaxAttempts: 2, Backoff: protocol.Duration(10 * time.Millisecond)}
	b.add(hang, "to-1", nil)
	eng, _ := e.engine(nil)
	res := e.run(eng, t.Context(), b.p, RunInput{})
	in := wantStatus(t, res, "hang[to-1]", StatusFailed)
	if in.Class != FailureTimeout || len(in.Attempts) != 2 {
		t.Fatalf("got: class %s, %d attempts want: timeout after 2 attempts\n%s", in.Class, len(in.Attempts), dump(res))
	}
	for _, a := range in.Attempts {
		if a.ExitCode != 124 || a.Class != FailureTimeout {
			t.Errorf("attempt %d got: exit %d class %s (%s) want: 124, timeout", a.Number, a.ExitCode, a.Class, a.Error)
		}
	}
	if !strings.Contains(in.Reason, "timed out after 1s") {
		t.Errorf("reason got: %q", in.Reason)
	}
	// The child would write its file 3 s after it started.
	time.Sleep(4 * time.Second)
	if b, err := e.hostFile("to-1", e.statePath("hang[to-1]")+".child"); err == nil {
		t.Errorf("a child of the timed-out script lived on and wrote %q", b)
	}
	if got := e.runs()["hang[to-1]"]; got != 2 {
		t.Errorf("hang[to-1] started %d times want 2", got)
	}
}

// A POSIX sh script is sourced by the subshell that runs it (one shell
// start fewer per job) and sees what an exec'd script sees: its work
// directory, no arguments, empty stdin, its parameters; its exit status is
// the job's. A script naming $0 is exec'd and sees its own path.
func TestIntegrationSourcedScriptsBehaveAsExecd(t *testing.T) {
	e := startIT(t, "src-1")
	b := e.plan("sourced")
	ev := protocol.Evidence{ID: "seen", Command: `cat "$CP_PARAM_STATE"`, Expected: "args=0 stdin= color=blue", Match: protocol.MatchContains}
	b.add(itJob("ok", "posix", ev), "src-1", nil, "color", "blue")
	fail := itJob("fail", "posix")
	b.add(fail, "src-1", nil, "color", "red", "exit", "3")
	b.add(itJob("self", "self"), "src-1", nil)
	eng, _ := e.engine(nil)
	res := e.run(eng, t.Context(), b.p, RunInput{})
	wantStatus(t, res, "ok[src-1]", StatusDone)
	in := wantStatus(t, res, "fail[src-1]", StatusFailed)
	if n := len(in.Attempts); n == 0 || in.Attempts[n-1].ExitCode != 3 {
		t.Errorf("fail[src-1]: got attempts %+v want: exit 3", in.Attempts)
	}
	got, err := e.hostFile("src-1", e.statePath("ok[src-1]"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(got), "pwd=/var/lib/cp-it-") || !strings.Contains(string(got), "/work args=0") {
		t.Errorf("the sourced script ran in %q want: its work directory", got)
	}
	if strings.Contains(string(got), "/scripts/") {
		t.Errorf("posix.sh was exec'd, not sourced: %q", got)
	}
	self, err := e.hostFile("src-1", e.statePath("self[src-1]"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(self), "/scripts/") || !strings.HasSuffix(strings.TrimSpace(string(self)), ".sh") {
		t.Errorf("self.sh got $0 = %q want: its own path in the scripts directory", self)
	}
	if got := e.runs(); got["ok[src-1]"] != 1 || got["fail[src-1]"] != 1 || got["self[src-1]"] != 1 {
		t.Errorf("runs got %v want each once", got)
	}
}
