package planner

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

func graphNodes(n int, edges map[int][]int) []*node {
	nodes := make([]*node, n)
	for i := range nodes {
		nodes[i] = &node{idx: int32(i), ji: &protocol.JobInstance{ID: "n" + strconv.Itoa(i)}}
		for _, e := range edges[i] {
			nodes[i].needs = append(nodes[i].needs, int32(e))
		}
	}
	return nodes
}

// naiveReduce keeps need u of v unless u is reachable from another need.
func naiveReduce(n int, edges map[int][]int) map[int][]int {
	reach := func(from, to int) bool {
		seen := map[int]bool{}
		stack := []int{from}
		for len(stack) > 0 {
			x := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, p := range edges[x] {
				if p == to {
					return true
				}
				if !seen[p] {
					seen[p] = true
					stack = append(stack, p)
				}
			}
		}
		return false
	}
	out := map[int][]int{}
	for v := 0; v < n; v++ {
		for _, u := range edges[v] {
			redundant := false
			for _, w := range edges[v] {
				if w != u && reach(w, u) {
					redundant = true
					break
				}
			}
			if !redundant {
				out[v] = append(out[v], u)
			}
		}
		slices.Sort(out[v])
	}
	return out
}

func TestReduceMatchesNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 200; trial++ {
		n := 2 + rng.IntN(30)
		edges := map[int][]int{}
		for v := 1; v < n; v++ {
			for u := 0; u < v; u++ {
				if rng.IntN(4) == 0 {
					edges[v] = append(edges[v], u)
				}
			}
		}
		nodes := graphNodes(n, edges)
		p := &protocol.Plan{}
		if err := finishGraph(p, nodes); err != nil {
			t.Fatal(err)
		}
		want := naiveReduce(n, edges)
		for v := 0; v < n; v++ {
			got := make([]int, 0)
			for _, u := range nodes[v].needs {
				got = append(got, int(u))
			}
			slices.Sort(got)
			if !slices.Equal(got, want[v]) && !(len(got) == 0 && len(want[v]) == 0) {
				t.Fatalf("trial %d node %d: got: %v want: %v (edges %v)", trial, v, got, want[v], edges)
			}
		}
	}
}

func TestCycleNamed(t *testing.T) {
	nodes := graphNodes(4, map[int][]int{1: {0, 3}, 2: {1}, 3: {2}})
	err := finishGraph(&protocol.Plan{}, nodes)
	if !errors.Is(err, ErrCycle) || !strings.Contains(err.Error(), "cycle: n1 -> n2 -> n3 -> n1") {
		t.Fatalf("got: %v want: cycle: n1 -> n2 -> n3 -> n1", err)
	}
}

func TestRenderKey(t *testing.T) {
	got := renderKey("install-containerd:{node_id}:{version}:{cluster}:{job_id}:{unknown}", "install", "w1", "prod", "op", map[string]string{"version": "1.7"})
	if want := "install-containerd:w1:1.7:prod:install:{unknown}"; got != want {
		t.Fatalf("got: %s want: %s", got, want)
	}
}

func TestMermaidSafe(t *testing.T) {
	if got := mermaidSafe("join-workers[worker-3]"); got != "join_workers_worker_3_" {
		t.Fatalf("got: %s", got)
	}
	if got := mermaidSafe("1st"); got != "n_1st" {
		t.Fatalf("got: %s", got)
	}
}

func TestAdvancedGroupsLargeClusters(t *testing.T) {
	in := createInput(fixtureKubernetes())
	in.Intent = clusterIntent(3, 40)
	p := mustBuild(t, in)
	out := RenderAdvanced(p, AdvancedOptions{GroupAbove: 10})
	for _, w := range []string{
		"  - join-workers[host] on 40 hosts: worker-1, worker-2, …, worker-40\n      needs: install-cni, install-container-runtime[host], prepare-network[host]\n",
		"  - install-container-runtime[host] on 43 hosts: master-1, master-2, …, worker-40\n",
	} {
		if !strings.Contains(out, w) {
			t.Fatalf("got:\n%s\nwant substring:\n%s", out, w)
		}
	}
	if lines := strings.Count(out, "\n"); lines > 120 {
		t.Fatalf("got: %d lines want: a compact view", lines)
	}
}
