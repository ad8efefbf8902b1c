package planner

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// finishGraph deduplicates edges, checks for cycles, removes transitive
// edges and writes each instance's sorted Needs.
func finishGraph(p *protocol.Plan, nodes []*node) error {
	n := len(nodes)
	for _, nd := range nodes {
		slices.Sort(nd.needs)
		nd.needs = slices.Compact(nd.needs)
		if i, ok := slices.BinarySearch(nd.needs, nd.idx); ok {
			nd.needs = slices.Delete(nd.needs, i, i+1)
		}
	}
	order, err := topoOrder(nodes)
	if err != nil {
		return err
	}
	level := make([]int32, n)
	for _, v := range order {
		for _, u := range nodes[v].needs {
			if level[u]+1 > level[v] {
				level[v] = level[u] + 1
			}
		}
	}
	reduce(nodes, order, level)
	if splice(nodes) {
		reduce(nodes, order, level)
	}
	for _, nd := range nodes {
		if nd.virtual {
			continue
		}
		if len(nd.needs) == 0 {
			nd.ji.Needs = nil
			continue
		}
		ids := make([]string, len(nd.needs))
		for i, u := range nd.needs {
			ids[i] = nodes[u].ji.ID
		}
		sort.Strings(ids)
		nd.ji.Needs = ids
	}
	return nil
}

// topoOrder returns node indexes so that needs come first, or an error
// naming a cycle.
func topoOrder(nodes []*node) ([]int32, error) {
	n := len(nodes)
	indeg := make([]int32, n)
	start := make([]int32, n+1)
	for _, nd := range nodes {
		indeg[nd.idx] = int32(len(nd.needs))
		for _, u := range nd.needs {
			start[u+1]++
		}
	}
	for i := 0; i < n; i++ {
		start[i+1] += start[i]
	}
	dependents := make([]int32, start[n])
	fill := slices.Clone(start[:n])
	for _, nd := range nodes {
		for _, u := range nd.needs {
			dependents[fill[u]] = nd.idx
			fill[u]++
		}
	}
	order := make([]int32, 0, n)
	for i := int32(0); i < int32(n); i++ {
		if indeg[i] == 0 {
			order = append(order, i)
		}
	}
	for head := 0; head < len(order); head++ {
		v := order[head]
		for _, d := range dependents[start[v]:start[v+1]] {
			indeg[d]--
			if indeg[d] == 0 {
				order = append(order, d)
			}
		}
	}
	if len(order) == n {
		return order, nil
	}
	return nil, cycleError(nodes, indeg)
}

// cycleError walks unfinished needs from the first node left over until a
// node repeats, and names the cycle in run order: a -> b means b needs a.
func cycleError(nodes []*node, indeg []int32) error {
	start := -1
	for i, d := range indeg {
		if d > 0 {
			start = i
			break
		}
	}
	pos := map[int32]int{}
	var path []int32
	v := int32(start)
	for {
		if i, seen := pos[v]; seen {
			path = path[i:]
			break
		}
		pos[v] = len(path)
		path = append(path, v)
		for _, u := range nodes[v].needs {
			if indeg[u] > 0 {
				v = u
				break
			}
		}
	}
	// path follows needs (backwards in time); reverse for run order and
	// start at the smallest id so the message is stable.
	slices.Reverse(path)
	min := 0
	for i, x := range path {
		if nodes[x].ji.ID < nodes[path[min]].ji.ID {
			min = i
		}
	}
	path = append(path[min:], path[:min]...)
	names := make([]string, 0, len(path)+1)
	for _, x := range path {
		if !nodes[x].virtual {
			names = append(names, nodes[x].ji.ID)
		}
	}
	names = append(names, names[0])
	return fmt.Errorf("%w: %s; an edit or a job contract makes these jobs wait for each other: remove one of the edges (a customization, a patch or an after)",
		ErrCycle, strings.Join(names, " -> "))
}

// reduce removes transitive edges: a need u of v is dropped when u is
// reachable from another need of v. Nodes are visited in topological order
// so ancestors are already reduced. The search from v's needs only follows
// nodes above the lowest level among v's needs (a node can only reach
// nodes of lower level), and at that lowest level it looks up v's needs
// by binary search instead of scanning wide fan-ins, which keeps the
// per-host chains of a large cluster near-linear.
func reduce(nodes []*node, order []int32, level []int32) {
	n := len(nodes)
	for _, nd := range nodes {
		sortByLevel(nd.needs, level)
	}
	visited := make([]uint32, n)
	cand := make([]uint32, n)
	redundant := make([]uint32, n)
	var stack []int32
	gen := uint32(0)
	for _, v := range order {
		ns := nodes[v].needs
		if len(ns) < 2 {
			continue
		}
		gen++
		minL := level[ns[len(ns)-1]]
		lowest := ns[levelFloor(ns, level, minL):]
		for _, u := range ns {
			cand[u] = gen
			visited[u] = gen
		}
		stack = append(stack[:0], ns...)
		for len(stack) > 0 {
			x := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			ps := nodes[x].needs
			i := 0
			for ; i < len(ps) && level[ps[i]] > minL; i++ {
				p := ps[i]
				if cand[p] == gen {
					redundant[p] = gen
				}
				if visited[p] != gen {
					visited[p] = gen
					stack = append(stack, p)
				}
			}
			seg := ps[i:levelFloor(ps, level, minL-1)]
			if len(seg) <= len(lowest) {
				for _, p := range seg {
					if cand[p] == gen {
						redundant[p] = gen
					}
				}
				continue
			}
			for _, c := range lowest {
				if _, ok := slices.BinarySearch(seg, c); ok {
					redundant[c] = gen
				}
			}
		}
		kept := ns[:0]
		for _, u := range ns {
			if redundant[u] != gen {
				kept = append(kept, u)
			}
		}
		nodes[v].needs = kept
	}
}

// sortByLevel orders needs by level descending, then index ascending.
func sortByLevel(ns []int32, level []int32) {
	slices.SortFunc(ns, func(a, b int32) int {
		if level[a] != level[b] {
			return int(level[b] - level[a])
		}
		return int(a - b)
	})
}

// levelFloor returns the first position in ns (sorted by level descending)
// whose level is <= l.
func levelFloor(ns []int32, level []int32, l int32) int {
	return sort.Search(len(ns), func(i int) bool { return level[ns[i]] <= l })
}

// splice replaces each remaining need of a barrier node with the barrier's
// own (reduced) needs. It reports whether anything was spliced.
func splice(nodes []*node) bool {
	any := false
	for _, nd := range nodes {
		if nd.virtual {
			continue
		}
		has := false
		for _, u := range nd.needs {
			if nodes[u].virtual {
				has = true
				break
			}
		}
		if !has {
			continue
		}
		any = true
		var out []int32
		for _, u := range nd.needs {
			if nodes[u].virtual {
				out = append(out, nodes[u].needs...)
			} else {
				out = append(out, u)
			}
		}
		slices.Sort(out)
		nd.needs = slices.Compact(out)
	}
	return any
}
