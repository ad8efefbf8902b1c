package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
	"github.com/intentops/terraform-provider-cp/internal/transport"
)

func TestExitZeroWithFailingEvidenceIsFailed(t *testing.T) {
	n := clusterNet("w1", "w2")
	base := n.script
	n.script = func(h *memHost, content string, env map[string]string, out io.Writer) int {
		code := base(h, content, env, out)
		if h.name == "w2" && strings.Contains(content, "runtime") {
			h.set("runtime", "inactive") // the script "succeeds" but containerd is down
		}
		return code
	}
	e, _ := newTestEngine(n, nil)
	res := mustRun(t, e, clusterPlan("w1", "w2"), RunInput{})
	if res.Operation.Status != protocol.StatusFailed {
		t.Fatalf("got: %s want: Failed", res.Operation.Status)
	}
	in := wantStatus(t, res, "runtime[w2]", StatusFailed)
	want := "exited 0 but evidence containerd_service_active failed: observed inactive, expected active"
	if !strings.Contains(in.Reason, want) || in.Class != FailureEvidence {
		t.Errorf("reason got: %q (%s) want it to contain: %q (evidence)", in.Reason, in.Class, want)
	}
	if len(in.Evidence) != 1 || in.Evidence[0].Passed || in.Evidence[0].Observed != "inactive" {
		t.Errorf("evidence got: %+v want: one failed result observing inactive", in.Evidence)
	}
	if skip := wantStatus(t, res, "join[w2]", StatusSkipped); skip.Reason != "needs runtime[w2] which failed" {
		t.Errorf("skip reason got: %q want: needs runtime[w2] which failed", skip.Reason)
	}
	wantStatus(t, res, "join[w1]", StatusDone) // independent branch kept running
	if skip := wantStatus(t, res, "verify", StatusSkipped); skip.Reason != "needs runtime[w2] which failed" {
		t.Errorf("transitive skip reason got: %q want the root cause", skip.Reason)
	}
	if res.Err() == nil || !strings.Contains(res.Err().Error(), "runtime[w2]") {
		t.Errorf("Err got: %v want an error naming runtime[w2]", res.Err())
	}
}

func TestNonZeroExitIsFailedWithEvidenceRecorded(t *testing.T) {
	n := clusterNet("w1")
	n.host("w1").set("break:runtime", "E: Unable to locate package containerd")
	e, _ := newTestEngine(n, nil)
	res := mustRun(t, e, clusterPlan("w1"), RunInput{})
	in := wantStatus(t, res, "runtime[w1]", StatusFailed)
	if in.Class != FailureExitCode || !strings.Contains(in.Reason, "exited 1: E: Unable to locate package containerd") {
		t.Errorf("got: %q (%s) want: exit_code with the last log line", in.Reason, in.Class)
	}
	if len(in.Evidence) != 1 {
		t.Errorf("evidence got: %d results want: 1 (recorded for diagnosis)", len(in.Evidence))
	}
	if len(in.LogTail) == 0 || in.LogTail[len(in.LogTail)-1] != "E: Unable to locate package containerd" {
		t.Errorf("log tail got: %q", in.LogTail)
	}
	if len(in.Attempts) != 1 {
		t.Errorf("attempts got: %d want: 1 (exit 1 is not transient)", len(in.Attempts))
	}
}

func TestFailFastStopsStartingInstances(t *testing.T) {
	n := clusterNet("w1", "w2")
	n.host("m1").set("break:validate", "bad input")
	p := clusterPlan("w1", "w2")
	other := newJob("other", evidence("ok", "state none", ""))
	other.Outputs.Evidence = nil
	p.Instances = append(p.Instances, newInst(other, "verify", "w2"))
	e, _ := newTestEngine(n, func(c *Config) { c.FailFast = true; c.Parallelism = 1 })
	res := mustRun(t, e, p, RunInput{})
	wantStatus(t, res, "validate", StatusFailed)
	if in := wantStatus(t, res, "other[w2]", StatusSkipped); !strings.Contains(in.Reason, "fail-fast") {
		t.Errorf("got: %q want a fail-fast reason", in.Reason)
	}
	// Without fail-fast the independent instance runs.
	e2, _ := newTestEngine(n, func(c *Config) { c.Parallelism = 1 })
	res = mustRun(t, e2, p, RunInput{})
	wantStatus(t, res, "other[w2]", StatusDone)
}

func TestRetriesTransientExitCodesWithBackoff(t *testing.T) {
	n := clusterNet("w1")
	var mu sync.Mutex
	tries := 0
	base := n.script
	n.script = func(h *memHost, content string, env map[string]string, out io.Writer) int {
		if strings.Contains(content, "runtime") && h.name == "w1" {
			mu.Lock()
			tries++
			k := tries
			mu.Unlock()
			if k < 3 {
				return 75 // apt lock held
			}
		}
		return base(h, content, env, out)
	}
	var sleeps []time.Duration
	p := clusterPlan("w1")
	for _, in := range p.Instances {
		if in.JobID == "runtime" {
			in.Job.Controls.RetryPolicy = protocol.RetryPolicy{MaxAttempts: 3, Backoff: protocol.Duration(2 * time.Second), TransientExitCodes: []int{75}}
		}
	}
	e, _ := newTestEngine(n, func(c *Config) {
		c.Sleep = func(ctx context.Context, d time.Duration) error {
			mu.Lock()
			sleeps = append(sleeps, d)
			mu.Unlock()
			return nil
		}
	})
	res := mustRun(t, e, p, RunInput{})
	in := wantStatus(t, res, "runtime[w1]", StatusDone)
	if len(in.Attempts) != 3 || in.Attempts[0].ExitCode != 75 || in.Attempts[0].Class != FailureExitCode || in.Attempts[2].Error != "" {
		t.Errorf("attempts got: %+v want: two failed with 75, then success", in.Attempts)
	}
	if fmt.Sprint(sleeps) != "[2s 4s]" {
		t.Errorf("backoff got: %v want: [2s 4s]", sleeps)
	}
}

// A frozen host: every command hangs until its deadline. The instances on
// it are retried, then fail classified as timeouts; the other branches
// complete.
func TestFrozenHostRetriesThenFailsWhileOthersComplete(t *testing.T) {
	n := clusterNet("w1", "w2")
	n.hook = func(ctx context.Context, host, what string) error {
		if host != "w2" || what == "dial" {
			return nil
		}
		<-ctx.Done()
		return fmt.Errorf("%s: %w", what, transport.ErrTimeout)
	}
	p := clusterPlan("w1", "w2")
	for _, in := range p.Instances {
		in.Job.Controls.RetryPolicy.MaxAttempts = 2
	}
	e, _ := newTestEngine(n, func(c *Config) { c.StepTimeout = 20 * time.Millisecond })
	res := mustRun(t, e, p, RunInput{})
	in := wantStatus(t, res, "runtime[w2]", StatusFailed)
	if in.Class != FailureTimeout || len(in.Attempts) != 2 || !errors.Is(in.Err(), transport.ErrTimeout) {
		t.Errorf("got: class %s, %d attempts, err %v want: timeout after 2 attempts", in.Class, len(in.Attempts), in.Err())
	}
	if !strings.Contains(in.Reason, "failed after 2 attempts") || !strings.Contains(in.Reason, "host w2") {
		t.Errorf("reason got: %q", in.Reason)
	}
	wantStatus(t, res, "join[w1]", StatusDone)
	wantStatus(t, res, "join[w2]", StatusSkipped)
}

func TestSecretsNeverInErrors(t *testing.T) {
	n := clusterNet("w1")
	base := n.script
	n.script = func(h *memHost, content string, env map[string]string, out io.Writer) int {
		if strings.Contains(content, "join") {
			tok, _ := h.file(env["CP_ARTIFACT_KUBEADM_JOIN_TOKEN"])
			fmt.Fprintf(out, "kubeadm join --token %s failed\n", tok)
			return 1
		}
		return base(h, content, env, out)
	}
	var journal strings.Builder
	e, rec := newTestEngine(n, func(c *Config) { c.Sinks = append(c.Sinks, NewJournal(&journal)) })
	res := mustRun(t, e, clusterPlan("w1"), RunInput{})
	in := wantStatus(t, res, "join[w1]", StatusFailed)
	for _, s := range append(in.LogTail, in.Reason, in.Err().Error(), res.Err().Error()) {
		if strings.Contains(s, testToken) {
			t.Errorf("secret in %q", s)
		}
	}
	if !strings.Contains(in.Reason, "--token "+transport.Mask) {
		t.Errorf("reason got: %q want the token masked", in.Reason)
	}
	assertNoSecrets(t, rec, journal.String(), testToken, testKubeconfig)
}

func TestInputArtifactGivenByReference(t *testing.T) {
	n := clusterNet("w4")
	n.host("m1").put("/var/lib/cp/artifacts/abc/kubeadm.join_token", []byte(testToken))
	join := newJob("join", evidence("node_registered", "state joined", "yes"))
	join.Inputs.Requires.Artifacts = []protocol.ArtifactRef{{ID: "kubeadm.join_token"}}
	p := &protocol.Plan{ID: "add", Instances: []*protocol.JobInstance{newInst(join, "join", "w4")}}
	p.Intent.Hosts = []protocol.Host{{Name: "m1", Role: "master"}, {Name: "w4", Role: "worker"}}
	e, rec := newTestEngine(n, nil)
	in := RunInput{Artifacts: []InputArtifact{{Artifact: protocol.Artifact{ID: "kubeadm.join_token", Sensitivity: protocol.SensitivitySecret, Ref: "m1:/var/lib/cp/artifacts/abc/kubeadm.join_token", Fingerprint: fingerprint([]byte(testToken))}}}}
	res := mustRun(t, e, p, in)
	wantStatus(t, res, "join[w4]", StatusDone)
	assertNoSecrets(t, rec, "", testToken)

	// Expired input: the job is not run, with a reason that says what to do.
	in.Artifacts[0].ExpiresAt = time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	n2 := clusterNet("w4")
	e2, _ := newTestEngine(n2, nil)
	res = mustRun(t, e2, p, in)
	if got := wantStatus(t, res, "join[w4]", StatusFailed); !strings.Contains(got.Reason, "expired") || got.Class != FailureInput {
		t.Errorf("got: %q (%s) want an expired input failure", got.Reason, got.Class)
	}
}
