package engine

import (
	"strings"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

func TestRunCompletesClusterPlan(t *testing.T) {
	n := clusterNet("w1", "w2", "w3")
	e, _ := newTestEngine(n, nil)
	res := mustRun(t, e, clusterPlan("w1", "w2", "w3"), RunInput{OperationID: "op-1"})
	if res.Operation.Status != protocol.StatusCompleted {
		t.Fatalf("got: %s want: Completed\n%s", res.Operation.Status, statuses(res))
	}
	var path []string
	for _, tl := range res.Operation.Timeline {
		path = append(path, string(tl.Status))
	}
	if got, want := strings.Join(path, ">"), "DraftIntent>PlanPreview>CapabilityResolution>Running>Completed"; got != want {
		t.Errorf("timeline got: %s want: %s", got, want)
	}
	for _, in := range res.Instances {
		if in.Status != StatusDone {
			t.Errorf("%s: got: %s want: done (%s)", in.ID, in.Status, in.Reason)
		}
	}
	if in := wantStatus(t, res, "validate", StatusDone); in.Host != "m1" {
		t.Errorf("validate ran on %q, want the first master m1", in.Host)
	}
	if len(res.Evidence) != len(res.Instances) {
		t.Errorf("evidence results: got: %d want: %d", len(res.Evidence), len(res.Instances))
	}
	var caps []string
	for _, c := range res.Capabilities {
		caps = append(caps, c.Key+"@"+c.Host)
	}
	if got, want := strings.Join(caps, " "), "container.runtime.containerd@m1 container.runtime.containerd@w1 container.runtime.containerd@w2 container.runtime.containerd@w3 kubernetes.api@"; got != want {
		t.Errorf("capabilities got: %s want: %s", got, want)
	}
}

func TestSecretArtifactsTravelByReference(t *testing.T) {
	n := clusterNet("w1")
	var journal strings.Builder
	e, rec := newTestEngine(n, func(c *Config) { c.Sinks = append(c.Sinks, NewJournal(&journal)) })
	res := mustRun(t, e, clusterPlan("w1"), RunInput{OperationID: "op-1"})
	if res.Operation.Status != protocol.StatusCompleted {
		t.Fatalf("got: %s want: Completed\n%s", res.Operation.Status, statuses(res))
	}
	var tok, ep protocol.Artifact
	for _, a := range res.Artifacts {
		switch a.ID {
		case "kubeadm.join_token":
			tok = a
		case "cluster.endpoint":
			ep = a
		}
	}
	if tok.Value != "" || !strings.HasPrefix(tok.Ref, "m1:/var/lib/cp/artifacts/") || !strings.HasPrefix(tok.Fingerprint, "sha256:") || tok.ExpiresAt.IsZero() {
		t.Errorf("secret artifact: got: %+v want: no value, ref m1:/var/lib/cp/artifacts/..., fingerprint and expiry", tok)
	}
	if ep.Value != "https://10.0.0.1:6443" {
		t.Errorf("public artifact value got: %q want: https://10.0.0.1:6443", ep.Value)
	}
	if v, ok := res.SecretValue("kubeadm.join_token", ""); !ok || v != testToken {
		t.Errorf("SecretValue got: %q %v want: the token", v, ok)
	}
	// The token reached join as a file (its script checks it), runtime[m1]
	// never saw it, and no run directory is left on any host.
	if got := n.inputsSeen("runtime[m1]"); len(got) != 0 {
		t.Errorf("runtime[m1] got inputs %v although it requires none", got)
	}
	if got := n.inputsSeen("join[w1]"); len(got) != 1 || got[0] != "/var/lib/cp/run/op-1/join@w1/in/kubeadm.join_token" {
		t.Errorf("join[w1] inputs got: %v want: its run directory's kubeadm.join_token", got)
	}
	for _, h := range []string{"m1", "w1"} {
		if left := n.host(h).under("/var/lib/cp/run"); len(left) != 0 {
			t.Errorf("host %s keeps under /var/lib/cp/run: %v", h, left)
		}
	}
	assertNoSecrets(t, rec, journal.String(), testToken, testKubeconfig)
}

func assertNoSecrets(t *testing.T, rec *recorder, journal string, secrets ...string) {
	t.Helper()
	var lines []string
	for _, s := range secrets {
		for _, l := range strings.Split(s, "\n") {
			if l = strings.TrimSpace(l); len(l) >= 16 {
				lines = append(lines, l)
			}
		}
		lines = append(lines, strings.TrimSpace(s))
	}
	for _, s := range lines {
		if strings.Contains(journal, s) {
			t.Errorf("journal contains secret %q", s)
		}
		for _, e := range rec.events {
			if strings.Contains(e.Message, s) || e.Evidence != nil && strings.Contains(e.Evidence.Observed+e.Evidence.Detail, s) || e.Artifact != nil && strings.Contains(e.Artifact.Value, s) {
				t.Errorf("event %d (%s) contains secret %q", e.Seq, e.Type, s)
			}
		}
	}
}
