package planner

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// Long chains with a few extra needs per node make the reduction's search
// outgrow its budget, so nodes with few needs are answered by remembered
// reachability; with many distinct low needs the remembered tables run
// out and the full search answers. Every path must match the naive
// reduction.
func TestReduceChainsMatchNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 12; trial++ {
		// two chains, A = 0..half-1 and B = half..n-1; B's nodes also need
		// nodes of A, which B's chain reaches only when an earlier B node
		// needed one at or above them
		half := 300 + rng.IntN(200)
		n := 2 * half
		edges := map[int][]int{}
		for v := 1; v < n; v++ {
			if v != half {
				edges[v] = append(edges[v], v-1)
			}
			if v < half {
				continue
			}
			extra := rng.IntN(3)
			if trial%3 == 2 && v%5 == 0 {
				extra += 40 // some nodes with many needs: the full search
			}
			for k := 0; k < extra; k++ {
				u := rng.IntN(half) // many distinct targets: the tables run out
				if trial%3 == 0 {
					u = rng.IntN(8) // few distinct low targets: remembered tables
				}
				if !slices.Contains(edges[v], u) {
					edges[v] = append(edges[v], u)
				}
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
