package planner

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

func TestInstancesKeyedByID(t *testing.T) {
	k := builtinPack(t, "kubernetes")
	in := createInput(k)
	p := builtinCluster(t, in)
	st := ViewState{Satisfied: map[string]bool{"validate-nodes[worker-2]": true}}
	v := Instances(p, st)
	if len(v) != len(p.Instances) {
		t.Fatalf("got %d instances, want %d", len(v), len(p.Instances))
	}
	ids := v.IDs()
	if !slices.IsSorted(ids) {
		t.Fatalf("IDs are not sorted: %v", ids)
	}
	for _, ji := range p.Instances {
		iv, ok := v[ji.ID]
		if !ok {
			t.Fatalf("instance %s is missing", ji.ID)
		}
		if iv.Job != ji.JobID || iv.Host != ji.Host || iv.Stage != ji.Stage || iv.RunOn != ji.RunOn || iv.IdempotencyKey != ji.IdempotencyKey {
			t.Fatalf("instance %s: got %+v", ji.ID, iv)
		}
	}
	if got := v["validate-nodes[worker-2]"].Status; got != StatusSatisfied {
		t.Errorf("satisfied instance status %q, want %q", got, StatusSatisfied)
	}
	if got := v["validate-nodes[worker-3]"].Status; got != StatusWillRun {
		t.Errorf("other instance status %q, want %q", got, StatusWillRun)
	}
}

// A full-mesh fan-in is written JOB[*]; a need of some instances of a
// group lists them.
func TestInstancesCompressWholeGroups(t *testing.T) {
	k := builtinPack(t, "kubernetes")
	p := builtinCluster(t, createInput(k))
	v := Instances(p, ViewState{})
	mesh := v["configure-wireguard-mesh[worker-1]"]
	if !slices.Contains(mesh.Needs, "generate-wireguard-key[*]") {
		t.Fatalf("mesh needs %v, want generate-wireguard-key[*]", mesh.Needs)
	}
	full, _ := p.Instance("configure-wireguard-mesh[worker-1]")
	if len(mesh.Needs) >= len(full.Needs) {
		t.Fatalf("needs not compressed: %v", mesh.Needs)
	}
	for _, n := range mesh.Needs {
		if strings.HasPrefix(n, "generate-wireguard-key[") && n != "generate-wireguard-key[*]" {
			t.Fatalf("a key instance is listed besides the group: %v", mesh.Needs)
		}
	}
	// expanding JOB[*] gives back the plan's needs
	var expanded []string
	for _, n := range mesh.Needs {
		if g, ok := strings.CutSuffix(n, "[*]"); ok {
			for _, ji := range p.Instances {
				if GroupKey(ji) == g && ji.ID != g {
					expanded = append(expanded, ji.ID)
				}
			}
			continue
		}
		expanded = append(expanded, n)
	}
	slices.Sort(expanded)
	if !slices.Equal(expanded, full.Needs) {
		t.Fatalf("expanded needs %v, want %v", expanded, full.Needs)
	}
}

func TestCompressNeedsSubsets(t *testing.T) {
	job := &protocol.Job{ID: "a"}
	p := &protocol.Plan{Instances: []*protocol.JobInstance{
		{ID: "a[h1]", JobID: "a", Host: "h1", Job: job}, {ID: "a[h2]", JobID: "a", Host: "h2", Job: job}, {ID: "a[h3]", JobID: "a", Host: "h3", Job: job},
		{ID: "ab[h1]", JobID: "ab", Host: "h1", Job: job}, {ID: "once", JobID: "once", Job: job},
		{ID: "some", JobID: "some", Needs: []string{"a[h1]", "a[h3]", "once"}, Job: job},
		{ID: "all", JobID: "all", Needs: []string{"a[h1]", "a[h2]", "a[h3]", "ab[h1]", "once"}, Job: job},
		{ID: "tail", JobID: "tail", Needs: []string{"a[h2]", "a[h3]"}, Job: job},
	}}
	v := Instances(p, ViewState{})
	for id, want := range map[string][]string{
		"some":  {"a[h1]", "a[h3]", "once"},
		"all":   {"a[*]", "ab[h1]", "once"},
		"tail":  {"a[h2]", "a[h3]"},
		"a[h1]": {},
	} {
		if got := v[id].Needs; !slices.Equal(got, want) {
			t.Errorf("%s needs %q, want %q", id, got, want)
		}
	}
}

// Adding a worker changes the instances of that worker and those that
// wait for all nodes; the other instances are equal, so a keyed diff shows
// only what changed.
func TestInstancesDiffByInstance(t *testing.T) {
	k := builtinPack(t, "kubernetes")
	a := createInput(k)
	b := createInput(k)
	b.Intent = clusterIntent(3, 6)
	va, vb := Instances(builtinCluster(t, a), ViewState{}), Instances(builtinCluster(t, b), ViewState{})
	var added, changed []string
	for id, x := range vb {
		y, ok := va[id]
		switch {
		case !ok:
			added = append(added, id)
		case !equalView(x, y):
			changed = append(changed, id)
		}
	}
	for _, id := range added {
		if !strings.HasSuffix(id, "[worker-6]") {
			t.Errorf("added %s, want only worker-6's instances", id)
		}
	}
	if len(added) == 0 {
		t.Fatal("no instance added for worker-6")
	}
	if len(changed) > 5 {
		t.Errorf("%d instances changed (%v); a new worker should change only its fan-ins", len(changed), changed)
	}
}

func equalView(a, b InstanceView) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return bytes.Equal(ja, jb)
}

func TestDigest(t *testing.T) {
	k := builtinPack(t, "kubernetes")
	p := builtinCluster(t, createInput(k))
	d := Digest(p)
	if !strings.HasPrefix(d, "sha256:") || len(d) != len("sha256:")+64 {
		t.Fatalf("digest %q", d)
	}
	if again := Digest(builtinCluster(t, createInput(k))); again != d {
		t.Fatalf("digest differs across builds: %s, %s", d, again)
	}
	var buf bytes.Buffer
	if err := WriteCanonicalDAG(&buf, p); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(buf.Bytes())
	if want := "sha256:" + hex.EncodeToString(sum[:]); want != d {
		t.Fatalf("digest %s is not the sha256 of the canonical DAG (%s)", d, want)
	}
	var doc struct {
		Template  string                  `json:"template"`
		Instances map[string]InstanceView `json:"instances"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("canonical DAG is not JSON: %v", err)
	}
	v := Instances(p, ViewState{})
	if doc.Template != p.Template || len(doc.Instances) != len(v) {
		t.Fatalf("canonical DAG has %d instances of %s", len(doc.Instances), doc.Template)
	}
	for id, iv := range v {
		iv.Status = ""
		if !equalView(doc.Instances[id], iv) {
			t.Fatalf("canonical %s = %+v, want %+v", id, doc.Instances[id], iv)
		}
	}
	if ShortDigest(d) != d[:19] {
		t.Fatalf("short digest %q", ShortDigest(d))
	}
	if got := RenderCompact(p, ViewState{}); !strings.Contains(got, ShortDigest(d)) {
		t.Fatalf("compact view does not show the digest %s", ShortDigest(d))
	}

	// the digest follows the DAG
	other := createInput(k)
	other.Intent = clusterIntent(3, 6)
	if Digest(builtinCluster(t, other)) == d {
		t.Fatal("a plan with another worker has the same digest")
	}
	in := addNodeInput(k, testNow.Add(time.Hour))
	in.State = builtinAddNodeState(testNow.Add(time.Hour))
	p2 := builtinCluster(t, in)
	d2 := Digest(p2)
	p2.Instances[len(p2.Instances)-1].IdempotencyKey += "x"
	if Digest(p2) == d2 {
		t.Fatal("an idempotency key change leaves the digest as it was")
	}
}

func TestInstancesGateStatus(t *testing.T) {
	p := tempoGatePlan(t)
	gateID := "approve-dedicated-minio"
	if _, ok := p.Instance(gateID); !ok {
		t.Fatalf("no gate %s in the plan", gateID)
	}
	if got := Instances(p, ViewState{})[gateID]; got.Status != StatusWaiting || got.Gate != string(protocol.GateApproval) {
		t.Fatalf("gate view %+v, want waiting approval", got)
	}
	st := ViewState{Gates: map[string]GateState{gateID: {Approved: true, Actor: "ana", Option: "create dedicated_minio"}}}
	if got := Instances(p, st)[gateID].Status; got != StatusApproved {
		t.Fatalf("approved gate status %q", got)
	}
}
