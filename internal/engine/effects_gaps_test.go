package engine

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// An evidence check with become runs through sudo: the refresh batch that
// holds it runs with become, and the checks without become in the same
// batch are marked to run as the login user; a batch of checks without
// become runs without sudo.
func TestRecheckBatchEvidenceBecome(t *testing.T) {
	in := &protocol.JobInstance{ID: "x"}
	root := recheckItem{in: in, ev: protocol.Evidence{ID: "root", Command: "test -r /etc/shadow", Become: true}, env: map[string]string{}}
	user := recheckItem{in: in, ev: protocol.Evidence{ID: "user", Command: "true"}, env: map[string]string{}}

	env, become, err := recheckBatchEnv([]recheckItem{root, user}, time.Second, false)
	if err != nil {
		t.Fatal(err)
	}
	if !become {
		t.Fatal("got: batch without sudo want: through sudo, one check has become")
	}
	if env["CP_U0"] != "" || env["CP_U1"] != "1" {
		t.Fatalf("got: CP_U0=%q CP_U1=%q want: the become check as root, the other as the login user", env["CP_U0"], env["CP_U1"])
	}

	_, become, err = recheckBatchEnv([]recheckItem{user}, time.Second, false)
	if err != nil {
		t.Fatal(err)
	}
	if become {
		t.Fatal("got: batch through sudo want: without, no check has become")
	}
}

// An intervention's note is recorded in the fixed instance's reason,
// after who fixed it.
func TestInterventionNoteRecorded(t *testing.T) {
	n := clusterNet("w1", "w2")
	n.host("w2").set("break:join", "could not resolve host: api.prod")
	e, _ := newTestEngine(n, nil)
	res := mustRun(t, e, clusterPlan("w1", "w2"), RunInput{OperationID: "op-7"})
	if res.Operation.Status != protocol.StatusFailed {
		t.Fatalf("got: %s want: Failed", res.Operation.Status)
	}
	n.host("w2").set("joined", "yes")
	n.host("w2").set("kubelet", "active")
	iv := protocol.Intervention{Type: "manually_fixed", Job: "join", Node: "w2", Actor: "alice", Note: "resolv.conf repaired by hand"}
	res2 := mustRun(t, e, clusterPlan("w1", "w2"), RunInput{Previous: &res.Operation, Interventions: []protocol.Intervention{iv}})
	in := wantStatus(t, res2, "join[w2]", StatusFixed)
	if want := "manually fixed by alice and verified: resolv.conf repaired by hand"; in.Reason != want {
		t.Fatalf("reason got: %q want: %q", in.Reason, want)
	}
}

// An artifact's collect command writes the artifact: its output is the
// value recorded, although the script wrote no file for it.
func TestArtifactCollectWritesTheArtifact(t *testing.T) {
	root := t.TempDir()
	n := &shellNet{root: root, state: filepath.Join(root, "state")}
	must(t, os.MkdirAll(n.hostRoot("w1"), 0o755))
	job := newJob("probe")
	job.Outputs.Artifacts = []protocol.ArtifactSpec{{ID: "probe.version", Sensitivity: protocol.SensitivityPublic, Collect: `echo v1.2.3`}}
	plan := &protocol.Plan{ID: "p1", Template: "probe.install@1.0.0"}
	plan.Intent.Hosts = []protocol.Host{{Name: "w1", Address: "10.0.0.1", Role: "worker"}}
	plan.Instances = []*protocol.JobInstance{newInst(job, "s", "w1")}
	scripts := func(pack, path string) ([]byte, error) { return []byte("#!/bin/sh\ntrue\n"), nil }
	e := New(Config{Dialer: n, Scripts: scripts, Clock: fixedClock(), StateDir: filepath.Join(root, "state")})
	res := mustRun(t, e, plan, RunInput{OperationID: "op-col"})
	if res.Operation.Status != protocol.StatusCompleted {
		t.Fatalf("got: %s want: Completed\n%s%v", res.Operation.Status, statuses(res), res.Err())
	}
	var got string
	for _, a := range res.Artifacts {
		if a.ID == "probe.version" {
			got = a.Value
		}
	}
	if got != "v1.2.3" {
		t.Fatalf("artifact probe.version got: %q want: v1.2.3, the collect command's output", got)
	}
}
