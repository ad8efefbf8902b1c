package planner

import (
	"maps"
	"slices"
	"testing"
)

func TestGroupInstancesFoldsEachJobOverItsHosts(t *testing.T) {
	p := buildWithGroupMin(t, 10, groupMin)
	st := ViewState{Satisfied: map[string]bool{"validate-nodes[worker-2]": true}}
	g := GroupInstances(Instances(p, st))
	jw, ok := g["join-workers[*]"]
	if !ok {
		t.Fatalf("no join-workers[*] entry: %v", slices.Sorted(maps.Keys(g)))
	}
	if jw.Hosts != "worker-1..7" || jw.Count != 7 || jw.Host != "" || jw.Job != "join-workers" {
		t.Errorf("join-workers[*] = hosts %q count %d host %q job %q, want worker-1..7, 7, no host, join-workers", jw.Hosts, jw.Count, jw.Host, jw.Job)
	}
	if !slices.Contains(jw.Needs, "install-kubernetes-packages[host]") {
		t.Errorf("join-workers[*] needs %v, want the own host's install-kubernetes-packages[host]", jw.Needs)
	}
	if _, ok := g["join-workers[worker-3]"]; ok {
		t.Errorf("join-workers[worker-3] has its own entry besides its group's")
	}
	// An instance that reads differently (satisfied) keeps its own entry
	// and is not counted in its group's.
	if w2, ok := g["validate-nodes[worker-2]"]; !ok || w2.Status != StatusSatisfied || w2.Count != 1 || w2.Hosts != "worker-2" {
		t.Errorf("validate-nodes[worker-2] = %+v (present %v), want its own satisfied entry", w2, ok)
	}
	if vn := g["validate-nodes[*]"]; vn.Count != 9 || vn.Hosts != "master-1..3, worker-1, worker-3..7" {
		t.Errorf("validate-nodes[*] = hosts %q count %d, want the 9 other hosts", vn.Hosts, vn.Count)
	}
	// A job of one instance is keyed by its id.
	if ic, ok := g["init-control-plane[master-1]"]; !ok || ic.Host != "master-1" || ic.Count != 1 {
		t.Errorf("init-control-plane[master-1] = %+v (present %v), want its own entry", ic, ok)
	}
	total := 0
	for _, e := range g {
		total += e.Count
	}
	if total != len(p.Instances) {
		t.Errorf("entries stand for %d instances, the plan has %d", total, len(p.Instances))
	}
}

func TestGroupInstancesKeyHostInIdempotencyKey(t *testing.T) {
	v := InstanceViews{
		"a[h-1]": {Job: "a", Host: "h-1", IdempotencyKey: "a:h-1:v1", Status: StatusWillRun},
		"a[h-2]": {Job: "a", Host: "h-2", IdempotencyKey: "a:h-2:v1", Status: StatusWillRun},
		"a[h-3]": {Job: "a", Host: "h-3", IdempotencyKey: "a:h-3:v2", Status: StatusWillRun},
	}
	g := GroupInstances(v)
	if e := g["a[*]"]; e.IdempotencyKey != "a:{host}:v1" || e.Hosts != "h-1, h-2" || e.Count != 2 {
		t.Errorf("a[*] = %+v, want key a:{host}:v1 on h-1, h-2", e)
	}
	if e := g["a[h-3]"]; e.IdempotencyKey != "a:h-3:v2" {
		t.Errorf("a[h-3] = %+v, want its own key", e)
	}
}

// The entries grow with the jobs, not the hosts.
func TestGroupInstancesDoNotGrowWithHosts(t *testing.T) {
	small := len(GroupInstances(Instances(buildWithGroupMin(t, 10, groupMin), ViewState{})))
	large := len(GroupInstances(Instances(buildWithGroupMin(t, 1000, groupMin), ViewState{})))
	if small != large {
		t.Errorf("10 nodes: %d entries, 1,000 nodes: %d; want the same", small, large)
	}
}
