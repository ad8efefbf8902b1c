package provider

import (
	"reflect"
	"testing"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/engine"
	"github.com/intentops/terraform-provider-cp/internal/intent"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// removalOp is predictOp as a removal of worker-1: the pack declares
// zz (which init produced earlier) and report node-scoped, and the token
// cluster-scoped.
func removalOp(t *testing.T) intentOp {
	op := predictOp(t)
	op.Action, op.Targets = intent.RemoveNodeAction, []string{"worker-1"}
	rotate := op.Composed.Plan.Instances[2].Job
	rotate.Outputs.Artifacts[0].Scope = protocol.ScopeCluster
	rotate.Outputs.Artifacts[1].Scope = protocol.ScopeNode
	op.Composed.Pack = &protocol.ScenarioPack{ID: "kubernetes", Jobs: map[string]*protocol.Job{
		"init":   {ID: "init", Outputs: protocol.Outputs{Artifacts: []protocol.ArtifactSpec{{ID: "zz", Scope: protocol.ScopeNode}, {ID: "ca"}}}},
		"rotate": rotate,
	}}
	return op
}

func artifactKeys(arts []protocol.Artifact) []string {
	var out []string
	for _, a := range arts {
		out = append(out, a.ID+"@"+a.Host)
	}
	return out
}

// The plan of a removal predicts the artifacts record leaves: without the
// leaving host's node-scoped ones (the one kept from before, the one the
// removal produces there), with its cluster-scoped one and every other
// host's; and the evidence record keeps has none of the host.
func TestPredictedRemovalDropsTheLeavingHost(t *testing.T) {
	op := removalOp(t)
	res := &engine.Result{Artifacts: ranArtifacts(), Operation: protocol.Operation{ID: op.ID, Status: protocol.StatusCompleted},
		Evidence: []engine.InstanceEvidence{
			foldEv("rotate[worker-1]", "worker-1", "rotated", true, "yes", time.Time{}),
			foldEv("snapshot", "master-1", "taken", true, "yes", time.Time{}),
		}}
	_, plan := newComputed("")
	_, prior := newComputed("")
	*prior.Artifacts = artifactsList(priorArtifacts())
	plan.planned([]intentOp{op})
	plan.predict(prior, []intentOp{op}, true)
	_, applied := newComputed("")
	arts := applied.record([]opResult{{Op: op, Result: res}}, artifactsFromList(*prior.Artifacts),
		func(opResult, []protocol.Artifact) []protocol.Capability { return nil },
		func([]protocol.Artifact, []protocol.Capability) intent.Handle { return intent.Handle{} })
	conforms(t, "artifacts", *plan.Artifacts, *applied.Artifacts)
	if got, want := artifactKeys(arts), []string{"ca@master-1", "etcd.snapshot@master-1", "token@worker-1"}; !reflect.DeepEqual(got, want) {
		t.Errorf("artifacts after the removal: got %v want %v", got, want)
	}
	if got := recordedEvidence(applied); len(got) != 1 || got[0].Instance != "snapshot" {
		t.Errorf("evidence after the removal: got %+v want only the snapshot's", got)
	}
	// A removal that did not complete (a gate, a failure) drops nothing.
	res.Operation.Status = protocol.StatusFailed
	_, failed := newComputed("")
	arts = failed.record([]opResult{{Op: op, Result: res}}, artifactsFromList(*prior.Artifacts),
		func(opResult, []protocol.Artifact) []protocol.Capability { return nil },
		func([]protocol.Artifact, []protocol.Capability) intent.Handle { return intent.Handle{} })
	if got := artifactKeys(arts); len(got) != 5 {
		t.Errorf("artifacts after a removal that failed: got %v want the prior's and the run's", got)
	}
	if got := recordedEvidence(failed); len(got) != 2 {
		t.Errorf("evidence after a removal that failed: got %+v want both checks", got)
	}
}

// An update keeps the evidence the prior state held under the run's: the
// instances the run checked are the run's, the others the prior's; a
// host that left in it leaves the evidence.
func TestKeepPriorEvidence(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	prior := []engine.InstanceEvidence{
		foldEv("prepare[w-1]", "w-1", "modules", true, "create", t0),
		foldEv("prepare[w-2]", "w-2", "modules", true, "create", t0),
		foldEv("verify", "m-1", "ready", true, "create", t0),
	}
	run := []engine.InstanceEvidence{
		foldEv("prepare[w-3]", "w-3", "modules", true, "add", t0.Add(time.Minute)),
		foldEv("verify", "m-1", "ready", true, "add", t0.Add(time.Minute)),
	}
	add := opResult{Op: intentOp{Action: "add_node", Targets: []string{"w-3"}}, Result: &engine.Result{Evidence: run,
		Operation: protocol.Operation{Status: protocol.StatusCompleted}}}
	_, c := newComputed("")
	keepRunEvidence(c, []opResult{add})
	keepPriorEvidence(c, prior, []opResult{add})
	got := map[string]string{}
	for _, e := range recordedEvidence(c) {
		got[e.Instance] = e.Observed
	}
	want := map[string]string{"prepare[w-1]": "create", "prepare[w-2]": "create", "prepare[w-3]": "add", "verify": "add"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("after add_node: got %v want %v", got, want)
	}
	rm := opResult{Op: intentOp{Action: intent.RemoveNodeAction, Targets: []string{"w-2"}}, Result: &engine.Result{
		Evidence:  []engine.InstanceEvidence{foldEv("delete-node[w-2]", "m-1", "gone", true, "yes", t0)},
		Operation: protocol.Operation{Status: protocol.StatusCompleted}}}
	before := recordedEvidence(c)
	_, c2 := newComputed("")
	keepRunEvidence(c2, []opResult{rm})
	keepPriorEvidence(c2, before, []opResult{rm})
	got = map[string]string{}
	for _, e := range recordedEvidence(c2) {
		got[e.Instance] = e.Observed
	}
	delete(want, "prepare[w-2]")
	if !reflect.DeepEqual(got, want) {
		t.Errorf("after remove_node of w-2: got %v want %v", got, want)
	}
}
