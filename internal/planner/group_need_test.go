package planner

import (
	"slices"
	"strings"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// closure maps each instance id to the sorted ids of every instance it
// waits for, directly or transitively, with group needs expanded.
func closure(t *testing.T, p *protocol.Plan) map[string][]string {
	t.Helper()
	groups := p.Groups()
	out := map[string][]string{}
	var visit func(in *protocol.JobInstance) []string
	visit = func(in *protocol.JobInstance) []string {
		if s, ok := out[in.ID]; ok {
			return s
		}
		set := map[string]bool{}
		for _, n := range in.Needs {
			if !p.NeedInstances(n, groups, func(dep *protocol.JobInstance) {
				set[dep.ID] = true
				for _, x := range visit(dep) {
					set[x] = true
				}
			}) {
				t.Fatalf("%s needs %q, which names no instance of the plan", in.ID, n)
			}
		}
		ids := make([]string, 0, len(set))
		for id := range set {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		out[in.ID] = ids
		return ids
	}
	for _, in := range p.Instances {
		visit(in)
	}
	return out
}

func buildWithGroupMin(t *testing.T, nodes, min int) *protocol.Plan {
	t.Helper()
	old := groupMin
	groupMin = min
	defer func() { groupMin = old }()
	p, err := Build(benchInput(t, nodes))
	if err != nil {
		t.Fatalf("build a create plan of %d nodes: %v", nodes, err)
	}
	return p
}

func edgeCount(p *protocol.Plan) int {
	n := 0
	for _, in := range p.Instances {
		n += len(in.Needs)
	}
	return n
}

// A full mesh (each node's WireGuard configuration needs every node's key)
// is written as one group need per instance, not one need per key.
func TestFullMeshIsOneGroupNeedPerInstance(t *testing.T) {
	p := buildWithGroupMin(t, 40, groupMin)
	mesh := 0
	for _, in := range p.Instances {
		if in.JobID != "configure-wireguard-mesh" {
			continue
		}
		mesh++
		if !slices.Contains(in.Needs, "generate-wireguard-key[*]") {
			t.Errorf("%s needs %v, want generate-wireguard-key[*] among them", in.ID, in.Needs)
		}
		for _, n := range in.Needs {
			if strings.HasPrefix(n, "generate-wireguard-key[") && n != "generate-wireguard-key[*]" {
				t.Errorf("%s needs %s besides the group need", in.ID, n)
			}
		}
	}
	if mesh != 40 {
		t.Fatalf("found %d configure-wireguard-mesh instances, want 40", mesh)
	}
}

// The group needs wait for the same instances as the needs spliced one
// by one, and the per-instance DAG (and its digest) reads the same.
func TestGroupNeedsKeepTheSpliceSemantics(t *testing.T) {
	grouped := buildWithGroupMin(t, 40, groupMin)
	spliced := buildWithGroupMin(t, 40, 1<<30)
	if g, s := edgeCount(grouped), edgeCount(spliced); g >= s {
		t.Errorf("grouped plan has %d needs, spliced %d: want fewer with group needs", g, s)
	}
	gc, sc := closure(t, grouped), closure(t, spliced)
	if len(gc) != len(sc) {
		t.Fatalf("grouped plan has %d instances, spliced %d", len(gc), len(sc))
	}
	for id, want := range sc {
		if got := gc[id]; !slices.Equal(got, want) {
			t.Errorf("%s waits for %d instances with group needs, %d spliced", id, len(got), len(want))
		}
	}
	if g, s := Digest(grouped), Digest(spliced); g != s {
		t.Errorf("digest with group needs %s, spliced %s: want the same per-instance DAG", g, s)
	}
}

// Below groupMin dependents or needs, a barrier is spliced: a 3+7 plan
// has no group need.
func TestSmallPlanSplicesBarriers(t *testing.T) {
	p := buildWithGroupMin(t, 10, groupMin)
	for _, in := range p.Instances {
		for _, n := range in.Needs {
			if _, ok := protocol.NeedGroup(n); ok {
				t.Errorf("%s needs group %s in a 10-node plan, want instance ids", in.ID, n)
			}
		}
	}
	keys := 0
	mesh, _ := p.Instance("configure-wireguard-mesh[worker-1]")
	for _, n := range mesh.Needs {
		if strings.HasPrefix(n, "generate-wireguard-key[") {
			keys++
		}
	}
	if keys != 10 {
		t.Errorf("configure-wireguard-mesh[worker-1] needs %d keys (%v), want all 10", keys, mesh.Needs)
	}
}

// Edges grow linearly with the nodes: ten times the nodes, at most
// eleven times the needs.
func TestPlanNeedsGrowLinearly(t *testing.T) {
	small, large := edgeCount(buildWithGroupMin(t, 100, groupMin)), edgeCount(buildWithGroupMin(t, 1000, groupMin))
	if large > 11*small {
		t.Errorf("100 nodes: %d needs, 1,000 nodes: %d; want at most 11 times as many", small, large)
	}
}

// meshPlan is a gate, two key instances after it and a mesh instance
// that needs the key group.
func meshPlan() *protocol.Plan {
	gate := &protocol.JobInstance{ID: "approve", JobID: "approve", Stage: "s", Origin: protocol.OriginGate, Gate: &protocol.Gate{ID: "approve", Type: "destructive_action"}}
	return &protocol.Plan{Template: "t.create@1.0.0", Stages: []protocol.PlanStage{{ID: "s", Title: "S", Instances: []string{"approve", "key[a]", "key[b]", "mesh[a]"}}},
		Instances: []*protocol.JobInstance{gate,
			{ID: "key[a]", JobID: "key", Stage: "s", Host: "a", Needs: []string{"approve"}},
			{ID: "key[b]", JobID: "key", Stage: "s", Host: "b", Needs: []string{"approve"}},
			{ID: "mesh[a]", JobID: "mesh", Stage: "s", Host: "a", Needs: []string{"key[*]"}}}}
}

func TestGatesAheadFollowGroupNeeds(t *testing.T) {
	if got := gatesAhead(meshPlan())["mesh[a]"]; !slices.Equal(got, []string{"approve"}) {
		t.Errorf("gates ahead of mesh[a]: %v, want [approve] through key[*]", got)
	}
}

func TestMermaidDrawsAGroupNeedOnce(t *testing.T) {
	got := RenderMermaid(meshPlan())
	for _, want := range []string{"  key_all((\"key[*]\"))\n", "  key_a_ --> key_all\n", "  key_b_ --> key_all\n", "  key_all --> mesh_a_\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("mermaid lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, " --> \n") || strings.Contains(got, "   --> ") {
		t.Errorf("mermaid has an edge without an end:\n%s", got)
	}
}
