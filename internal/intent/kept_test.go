package intent

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/engine"
	"github.com/intentops/terraform-provider-cp/internal/planner"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

func keptEv(instance, host, id, observed string) engine.InstanceEvidence {
	return engine.InstanceEvidence{Instance: instance, EvidenceResult: protocol.EvidenceResult{ID: id, Host: host, Passed: true, Observed: observed}}
}

func evKeys(evs []engine.InstanceEvidence) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = fmt.Sprintf("%s %s=%s", e.Instance, e.ID, e.Observed)
	}
	return out
}

// The evidence of an earlier operation's instances stays when a later one
// did not run them; the checks a later operation recorded for an instance
// replace all of that instance's older checks (even a check it no longer
// has), in the place of the first; new instances come after, in the
// order they ran.
func TestKeepEvidence(t *testing.T) {
	create := []engine.InstanceEvidence{
		keptEv("prepare[w-1]", "w-1", "modules", "create"),
		keptEv("prepare[w-1]", "w-1", "sysctl", "create"),
		keptEv("prepare[w-2]", "w-2", "modules", "create"),
		keptEv("verify", "m-1", "ready", "create"),
	}
	addNode := []engine.InstanceEvidence{
		keptEv("prepare[w-3]", "w-3", "modules", "add"),
		keptEv("verify", "m-1", "ready", "add"),
		keptEv("verify", "m-1", "nodes", "add"),
	}
	got := evKeys(KeepEvidence(create, addNode))
	want := []string{
		"prepare[w-1] modules=create", "prepare[w-1] sysctl=create", "prepare[w-2] modules=create",
		"verify ready=add", "verify nodes=add",
		"prepare[w-3] modules=add",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("create then add_node:\n got %q\nwant %q", got, want)
	}
	// The newest of several runs wins; a run that checks one of an
	// instance's checks only replaces them all.
	again := []engine.InstanceEvidence{keptEv("prepare[w-1]", "w-1", "modules", "repair")}
	got = evKeys(KeepEvidence(create, addNode, again))
	want = []string{
		"prepare[w-1] modules=repair", "prepare[w-2] modules=create",
		"verify ready=add", "verify nodes=add",
		"prepare[w-3] modules=add",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("create, add_node, repair:\n got %q\nwant %q", got, want)
	}
	if got := KeepEvidence(create); !reflect.DeepEqual(got, create) {
		t.Errorf("no run: %q, want the prior evidence", evKeys(got))
	}
	if got := evKeys(KeepEvidence(nil, addNode)); !reflect.DeepEqual(got, evKeys(addNode)) {
		t.Errorf("no prior: %q, want the run's", got)
	}
}

// An earlier operation's check of an instance goes when the instance's
// key in the own plan changed (an upgrade) or the instance left it (a
// host removed); one whose key stayed, and one of an instance the own
// plan never held, stay. Without both plans nothing goes.
func TestDropStale(t *testing.T) {
	evs := []engine.InstanceEvidence{
		keptEv("prepare[w-1]", "w-1", "modules", "x"),
		keptEv("render", "m-1", "rendered", "x"),
		keptEv("prepare[w-2]", "w-2", "modules", "x"),
		keptEv("upgrade-node[w-1]", "w-1", "version", "x"),
	}
	before := map[string]string{"prepare[w-1]": "prepare:w-1", "render": "render:1.34", "prepare[w-2]": "prepare:w-2"}
	after := map[string]string{"prepare[w-1]": "prepare:w-1", "render": "render:1.35"}
	got := evKeys(DropStale(evs, before, after))
	want := []string{"prepare[w-1] modules=x", "upgrade-node[w-1] version=x"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q want %q", got, want)
	}
	if got := DropStale(evs, nil, after); !reflect.DeepEqual(got, evs) {
		t.Errorf("no plan before: %q", evKeys(got))
	}
	if len(evs) != 4 {
		t.Errorf("DropStale changed its argument: %q", evKeys(evs))
	}
}

// A host that left takes its evidence with it: the checks run on it and
// those of an instance for it that another host ran (delete-node[w-2] on
// the first master); the other hosts' stay.
func TestDropLeftEvidence(t *testing.T) {
	evs := []engine.InstanceEvidence{
		keptEv("prepare[w-1]", "w-1", "modules", "x"),
		keptEv("prepare[w-2]", "w-2", "modules", "x"),
		keptEv("delete-node[w-2]", "m-1", "gone", "x"),
		keptEv("prune[w-1]", "w-1", "peers", "x"),
		keptEv("verify", "m-1", "ready", "x"),
	}
	got := evKeys(DropLeft(evs, []string{"w-2"}))
	want := []string{"prepare[w-1] modules=x", "prune[w-1] peers=x", "verify ready=x"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q want %q", got, want)
	}
	if got := DropLeft(evs, nil); !reflect.DeepEqual(got, evs) {
		t.Errorf("nobody left: %q", evKeys(got))
	}
	if len(evs) != 5 {
		t.Errorf("DropLeft changed its argument: %q", evKeys(evs))
	}
}

// A host that left takes its node-scoped artifacts with it, as the job
// that produced them declares them (by the planned instance, or by the
// producer's job in the pack); its cluster-scoped ones stay, and so do
// other hosts' and an artifact no job declares.
func TestDropLeftArtifacts(t *testing.T) {
	pack := &protocol.ScenarioPack{ID: "kubernetes", Jobs: map[string]*protocol.Job{
		"preflight": {ID: "preflight", Outputs: protocol.Outputs{Artifacts: []protocol.ArtifactSpec{{ID: "host.identity", Scope: protocol.ScopeNode}}}},
		"snapshot":  {ID: "snapshot", Outputs: protocol.Outputs{Artifacts: []protocol.ArtifactSpec{{ID: "etcd.snapshot", Scope: protocol.ScopeCluster}}}},
	}}
	leave := &protocol.Job{ID: "leave-mesh", Outputs: protocol.Outputs{Artifacts: []protocol.ArtifactSpec{{ID: "wireguard.left", Scope: protocol.ScopeNode}}}}
	op := Op{Action: "remove_node", Targets: []string{"m-2"}, Composed: &planner.Composed{Pack: pack, Plan: &protocol.Plan{Instances: []*protocol.JobInstance{
		{ID: "leave-mesh[m-2]", JobID: "leave-mesh", Host: "m-2", Job: leave},
	}}}}
	arts := []protocol.Artifact{
		{ID: "host.identity", Host: "m-1", Producer: "preflight[m-1]"},
		{ID: "host.identity", Host: "m-2", Producer: "preflight[m-2]"},
		{ID: "etcd.snapshot", Host: "m-2", Producer: "snapshot"},
		{ID: "wireguard.left", Host: "m-2", Producer: "leave-mesh[m-2]"},
		{ID: "undeclared", Host: "m-2", Producer: "gone-job[m-2]"},
	}
	var got []string
	for _, a := range DropLeftArtifacts(arts, []Op{op}, []string{"m-2"}) {
		got = append(got, a.ID+"@"+a.Host)
	}
	want := []string{"host.identity@m-1", "etcd.snapshot@m-2", "undeclared@m-2"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v want %v", got, want)
	}
	if got := DropLeftArtifacts(arts, []Op{op}, nil); !reflect.DeepEqual(got, arts) {
		t.Errorf("nobody left: %v", got)
	}
}
