package planner

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// The shape of a large cluster's mesh: per-host chains, nodes that fan
// in from every host (a mesh's keys), shared nodes every host needs, and
// per-host nodes needing a fan-in, a shared node and their own host's
// nodes. The search down from a fan-in outgrows its budget on every
// host, so the reduction answers need by need from below (byUp), with
// remembered reachability for the shared nodes. Every path must match
// the naive reduction.
func TestReduceFanInsMatchNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := 0; trial < 8; trial++ {
		hosts := 300 + rng.IntN(200)
		// ids: shared s0, s1; per host h: prep 2+h, key 2+H+h; fan-in
		// keys K = 2+2H, fan-in preps P = 3+2H; per host mesh 4+2H+h,
		// verify 4+3H+h.
		n := 4 + 4*hosts
		prep := func(h int) int { return 2 + h }
		key := func(h int) int { return 2 + hosts + h }
		K, P := 2+2*hosts, 3+2*hosts
		mesh := func(h int) int { return 4 + 2*hosts + h }
		verify := func(h int) int { return 4 + 3*hosts + h }
		edges := map[int][]int{1: {0}}
		for h := 0; h < hosts; h++ {
			edges[prep(h)] = []int{0}
			if trial%2 == 1 {
				edges[prep(h)] = append(edges[prep(h)], 1) // s1 reaches s0: s0 redundant
			}
			edges[key(h)] = []int{prep(h)}
			if rng.IntN(4) == 0 {
				edges[key(h)] = append(edges[key(h)], 0) // transitive through prep
			}
			edges[K] = append(edges[K], key(h))
			edges[P] = append(edges[P], prep(h))
			edges[mesh(h)] = []int{K, prep(h), 1, P}
			if rng.IntN(3) == 0 {
				edges[mesh(h)] = append(edges[mesh(h)], 0)
			}
			edges[verify(h)] = []int{mesh(h), K, key(h)}
			if h > 0 && rng.IntN(5) == 0 {
				edges[verify(h)] = append(edges[verify(h)], mesh(h-1)) // a rolling chain
			}
		}
		nodes := graphNodes(n, edges)
		if err := finishGraph(&protocol.Plan{}, nodes); err != nil {
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
				t.Fatalf("trial %d node %d: got: %v want: %v", trial, v, got, want[v])
			}
		}
	}
}
