package provider

import (
	"reflect"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/intentops/terraform-provider-cp/internal/engine"
	"github.com/intentops/terraform-provider-cp/internal/intent"
	"github.com/intentops/terraform-provider-cp/internal/packs"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// removalOp is predictOp as a removal of worker-1: the pack declares
// zz (which init produced earlier) and report node-scoped, and the token
// cluster-scoped.
func removalOp(t *testing.T) intentOp {
	op := predictOp(t)
	op.Action, op.Targets = "remove_node", []string{"worker-1"}
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

// The plan of a removal keeps the artifacts known as record leaves them:
// the leaving host's too, and its evidence (the refresh after drops both,
// dropGoneHosts), so the removal's diff does not list them.
func TestPredictedRemovalKeepsWhatApplyLeaves(t *testing.T) {
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
	if plan.Artifacts.IsUnknown() {
		t.Fatalf("the artifacts of a removal are not predicted")
	}
	conforms(t, "artifacts", *plan.Artifacts, *applied.Artifacts)
	if got := artifactKeys(arts); len(got) != 5 {
		t.Errorf("artifacts after the removal: got %v want the prior's and the run's", got)
	}
	if got := recordedEvidence(applied); len(got) != 2 {
		t.Errorf("evidence after the removal: got %+v want both checks of the run", got)
	}
}

// The refresh after a removal drops what the removed node's state held:
// the artifacts it produced that the pack declares node-scoped, and its
// evidence; its cluster-scoped artifact and the staying nodes' stay.
// Nothing changes while every host is still in the intent.
func TestDropGoneHosts(t *testing.T) {
	cat, err := packs.LoadBuiltin()
	if err != nil {
		t.Fatal(err)
	}
	r := &KubernetesClusterResource{}
	h := clusterHooks{r: r}
	r.init(h)
	r.data = &providerData{Environment: "dev", Catalog: cat}
	m := relabelModel(nil, nil)
	m.Environment = types.StringValue("dev")
	arts := []protocol.Artifact{
		{ID: "host.identity", Host: "worker-1", Producer: "preflight-host[worker-1]", Sensitivity: protocol.SensitivityPublic, Value: "a"},
		{ID: "host.identity", Host: "worker-2", Producer: "preflight-host[worker-2]", Sensitivity: protocol.SensitivityPublic, Value: "b"},
		{ID: "wireguard.public_key", Host: "worker-2", Producer: "generate-wireguard-key[worker-2]", Sensitivity: protocol.SensitivityPublic, Value: "k"},
		{ID: "node_inventory", Host: "worker-2", Producer: "build-node-inventory", Sensitivity: protocol.SensitivityInternal, Value: "i"},
	}
	m.Artifacts = artifactsList(arts)
	evs := []engine.InstanceEvidence{
		foldEv("prepare-network[worker-1]", "worker-1", "modules_persisted", true, "", time.Time{}),
		foldEv("prepare-network[worker-2]", "worker-2", "modules_persisted", true, "", time.Time{}),
	}
	setRecordedEvidence(m.computed(), evs)
	dropGoneHosts(&r.intentBase, h, m)
	if got := artifactKeys(artifactsFromList(m.Artifacts)); len(got) != 4 {
		t.Errorf("every host in the intent: artifacts %v, want all four", got)
	}
	m.Workers = m.Workers[:1]
	dropGoneHosts(&r.intentBase, h, m)
	if got, want := artifactKeys(artifactsFromList(m.Artifacts)), []string{"host.identity@worker-1", "node_inventory@worker-2"}; !reflect.DeepEqual(got, want) {
		t.Errorf("worker-2 removed: artifacts %v, want %v", got, want)
	}
	if got := recordedEvidence(m.computed()); len(got) != 1 || got[0].Instance != "prepare-network[worker-1]" {
		t.Errorf("worker-2 removed: evidence %+v, want worker-1's only", got)
	}
}

// An update keeps the evidence the prior state held under the run's: the
// instances the run checked are the run's, the others the prior's, but
// for those whose key in the own plan changed or that it no longer holds
// (staleAfter).
func TestKeepPriorEvidence(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	prior := []engine.InstanceEvidence{
		foldEv("prepare[w-1]", "w-1", "modules", true, "create", t0),
		foldEv("prepare[w-2]", "w-2", "modules", true, "create", t0),
		foldEv("render", "m-1", "rendered", true, "create", t0),
		foldEv("verify", "m-1", "ready", true, "create", t0),
	}
	run := []engine.InstanceEvidence{
		foldEv("prepare[w-3]", "w-3", "modules", true, "add", t0.Add(time.Minute)),
		foldEv("verify", "m-1", "ready", true, "add", t0.Add(time.Minute)),
	}
	observed := func(c computed) map[string]string {
		got := map[string]string{}
		for _, e := range recordedEvidence(c) {
			got[e.Instance] = e.Observed
		}
		return got
	}
	add := opResult{Op: intentOp{Action: "add_node"}, Result: &engine.Result{Evidence: run}}
	_, c := newComputed("")
	keepRunEvidence(c, []opResult{add})
	keepPriorEvidence(c, prior, nil)
	want := map[string]string{"prepare[w-1]": "create", "prepare[w-2]": "create", "prepare[w-3]": "add", "render": "create", "verify": "add"}
	if got := observed(c); !reflect.DeepEqual(got, want) {
		t.Errorf("after add_node: got %v want %v", got, want)
	}
	// An upgrade changed render's key; w-2 left the own plan.
	before := map[string]string{"prepare[w-1]": "p1", "prepare[w-2]": "p2", "render": "r:1.34", "verify": "v"}
	after := map[string]string{"prepare[w-1]": "p1", "render": "r:1.35", "verify": "v"}
	_, c2 := newComputed("")
	keepRunEvidence(c2, []opResult{add})
	keepPriorEvidence(c2, prior, func(evs []engine.InstanceEvidence) []engine.InstanceEvidence {
		return intent.DropStale(evs, before, after)
	})
	want = map[string]string{"prepare[w-1]": "create", "prepare[w-3]": "add", "verify": "add"}
	if got := observed(c2); !reflect.DeepEqual(got, want) {
		t.Errorf("after a change of render's key and w-2 leaving: got %v want %v", got, want)
	}
}
