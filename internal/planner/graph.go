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
	rank := idRanks(nodes)
	kept := groupNeeds(nodes)
	reduce(nodes, order, level, rank)
	keepWide(nodes, kept)
	if splice(nodes, level, rank) {
		reduce(nodes, order, level, rank)
	}
	var buf []int32
	for _, nd := range nodes {
		if nd.virtual {
			continue
		}
		if len(nd.needs) == 0 {
			nd.ji.Needs = nil
			continue
		}
		buf = byRank(nd.needs, level, rank, buf)
		ids := make([]string, 0, len(nd.needs))
		grouped := false
		for _, u := range nd.needs {
			if g := nodes[u].group; g != nil {
				ids = append(ids, g...)
				grouped = true
				continue
			}
			ids = append(ids, nodes[u].ji.ID)
		}
		if grouped {
			slices.Sort(ids)
			ids = slices.Compact(ids)
		}
		nd.ji.Needs = ids
	}
	return nil
}

// groupMin is the fan-in and fan-out from which a barrier stays in the
// plan as group needs instead of being spliced into its dependents:
// splicing a barrier of k needs into d dependents writes k*d edges, at
// most groupMin per need or per dependent when either side is smaller.
var groupMin = 16

// groupNeeds returns, for each barrier, the needs its dependents will
// write if it is kept (see keepWide): "JOB[*]" (protocol.GroupNeed) for
// each job group all of whose instances it needs, the instance id for any
// other need. It reads the needs before transitive reduction, which
// drops some of a group's instances that another reaches.
func groupNeeds(nodes []*node) map[int32][]string {
	out := map[int32][]string{}
	for _, bn := range nodes {
		if !bn.virtual || len(bn.needs) <= groupMin {
			continue
		}
		count := map[*unit]int{}
		for _, p := range bn.needs {
			count[nodes[p].u]++
		}
		var g []string
		for _, p := range bn.needs {
			pu := nodes[p].u
			switch c := count[pu]; {
			case c < 0:
				continue // its group is written
			case c > 1 && c == len(pu.insts) && wholeGroup(pu):
				g = append(g, protocol.GroupNeed(pu.key))
				count[pu] = -1
			default:
				g = append(g, nodes[p].ji.ID)
			}
		}
		slices.Sort(g)
		out[bn.idx] = slices.Compact(g)
	}
	return out
}

// wholeGroup reports whether the instances of u are exactly the job
// group u.key, as protocol.JobInstance.Group reads ids.
func wholeGroup(u *unit) bool {
	for _, n := range u.insts {
		if n.ji.Group() != u.key {
			return false
		}
	}
	return true
}

// keepWide marks the barriers of groups (from groupNeeds) that more than
// groupMin nodes still need after reduction: those stay, written as their
// group needs, and are not spliced.
func keepWide(nodes []*node, groups map[int32][]string) {
	if len(groups) == 0 {
		return
	}
	dependents := map[int32]int{}
	for _, nd := range nodes {
		for _, u := range nd.needs {
			if _, ok := groups[u]; ok {
				dependents[u]++
			}
		}
	}
	for b, g := range groups {
		if dependents[b] > groupMin {
			nodes[b].group = g
		}
	}
}

// idRanks returns each node's position in the order of ids, so that lists
// of needs are put in id order by comparing integers: sorting the id
// strings of every instance's needs was most of the time of a large plan.
func idRanks(nodes []*node) []int32 {
	byID := make([]int32, len(nodes))
	for i := range byID {
		byID[i] = int32(i)
	}
	slices.SortFunc(byID, func(a, b int32) int {
		if c := strings.Compare(nodes[a].ji.ID, nodes[b].ji.ID); c != 0 {
			return c
		}
		return int(a - b)
	})
	rank := make([]int32, len(nodes))
	for r, i := range byID {
		rank[i] = int32(r)
	}
	return rank
}

// byRank puts ns, sorted by level descending then rank (see sortByLevel),
// in rank order: each run of one level is already in rank order, so the
// runs are merged, in time linear in len(ns) per run. buf is scratch
// space, returned for reuse.
func byRank(ns []int32, level, rank []int32, buf []int32) []int32 {
	end := 0
	for end < len(ns) && level[ns[end]] == level[ns[0]] {
		end++
	}
	for end < len(ns) {
		next := end
		for next < len(ns) && level[ns[next]] == level[ns[end]] {
			next++
		}
		buf = mergeRank(buf[:0], ns[:end], ns[end:next], rank)
		copy(ns, buf)
		end = next
	}
	return buf
}

// mergeRank appends the merge of a and b, each in rank order, to out.
func mergeRank(out, a, b []int32, rank []int32) []int32 {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if rank[a[i]] <= rank[b[j]] {
			out = append(out, a[i])
			i++
		} else {
			out = append(out, b[j])
			j++
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
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
// per-host chains of a large cluster near-linear. A search that grows past
// a budget while v has few needs (a rolling chain, where each worker's
// drain finds the control plane only at the chain's start) is answered
// instead by reachability to each need, remembered per need across nodes.
func reduce(nodes []*node, order []int32, level, rank []int32) {
	for _, nd := range nodes {
		sortByLevel(nd.needs, level, rank)
	}
	r := newReducer(nodes, level, rank)
	for _, v := range order {
		ns := nodes[v].needs
		if len(ns) < 2 {
			continue
		}
		r.gen++
		done := len(ns) <= memoMaxNeeds && r.byUp(ns, memoBudget(len(ns)))
		if !done {
			r.gen++
			done = r.search(ns, memoBudget(len(ns)))
		}
		if !done && !r.byMemo(ns) {
			r.gen++
			r.search(ns, -1)
		}
		kept := ns[:0]
		for _, u := range ns {
			if r.redundant[u] != r.gen {
				kept = append(kept, u)
			}
		}
		nodes[v].needs = kept
	}
}

// reducer holds the scratch state of one reduce pass.
type reducer struct {
	nodes                    []*node
	level, rank              []int32
	visited, cand, redundant []uint32
	gen                      uint32
	stack                    []int32
	// reach remembers, per target need, whether each node reaches it:
	// 0 unknown, 1 yes, 2 no. Removing transitive edges keeps
	// reachability, so answers stay true for the whole pass.
	reach map[int32][]int8
	// up lists, per node, the nodes that need it (from the needs before
	// the pass: the same reachability), by level ascending; byUp walks it
	// with upVisited, marked per searched need (upGen).
	up        [][]int32
	upVisited []uint32
	upGen     uint32
}

const (
	// memoMaxNeeds: only nodes with at most this many needs are answered
	// by remembered reachability (one question per pair of needs).
	memoMaxNeeds = 32
	// memoMaxTargets bounds the remembered tables (one byte per node
	// each).
	memoMaxTargets = 256
)

// memoBudget is how many nodes a search may push before a node with few
// needs switches to remembered reachability; -1 means no limit.
func memoBudget(needs int) int {
	if needs > memoMaxNeeds {
		return -1
	}
	return 256 + 16*needs
}

func newReducer(nodes []*node, level, rank []int32) *reducer {
	n := len(nodes)
	up := make([][]int32, n)
	for x, nd := range nodes {
		for _, p := range nd.needs {
			up[p] = append(up[p], int32(x))
		}
	}
	for _, ds := range up {
		slices.SortFunc(ds, func(a, b int32) int { return int(level[a] - level[b]) })
	}
	return &reducer{nodes: nodes, level: level, rank: rank, visited: make([]uint32, n), cand: make([]uint32, n),
		redundant: make([]uint32, n), reach: map[int32][]int8{}, up: up, upVisited: make([]uint32, n)}
}

// byUp marks (for r.gen) each need of ns that another need reaches,
// need by need: searching up from the need, through the nodes that need
// it, to the level of the highest need (a per-host node has few such
// nodes, where the search down from a need that fans in from every host,
// such as a WireGuard mesh's keys, visits every host); or, when that
// passes budget nodes (a node every host needs), by reachability from
// each higher need, remembered per such target across the pass (they are
// few: the shared nodes). False when a table it would need is over
// memoMaxTargets.
func (r *reducer) byUp(ns []int32, budget int) bool {
	level, gen := r.level, r.gen
	top := level[ns[0]] // ns is sorted by level descending
	for _, u := range ns {
		r.cand[u] = gen
	}
	for _, u := range ns {
		if level[u] == top {
			continue // no other need is above it to reach it
		}
		found, ok := r.upFrom(u, top, budget)
		if !ok {
			memo := r.reach[u]
			if memo == nil {
				if len(r.reach) >= memoMaxTargets {
					return false
				}
				memo = make([]int8, len(r.nodes))
				r.reach[u] = memo
			}
			for _, w := range ns {
				if w != u && level[w] > level[u] && r.reaches(w, u, memo) {
					found = true
					break
				}
			}
		}
		if found {
			r.redundant[u] = gen
		}
	}
	return true
}

// upFrom searches up from u, through the nodes that need it, for another
// candidate need (r.cand of r.gen) of level at most top: found says
// whether one was; ok is false once more than budget nodes were pushed.
func (r *reducer) upFrom(u, top int32, budget int) (found, ok bool) {
	level, gen := r.level, r.gen
	r.upGen++
	r.upVisited[u] = r.upGen
	r.stack = append(r.stack[:0], u)
	pushed := 0
	for len(r.stack) > 0 {
		x := r.stack[len(r.stack)-1]
		r.stack = r.stack[:len(r.stack)-1]
		for _, d := range r.up[x] {
			if level[d] > top {
				break
			}
			if r.cand[d] == gen {
				return true, true
			}
			if r.upVisited[d] != r.upGen {
				r.upVisited[d] = r.upGen
				r.stack = append(r.stack, d)
				if pushed++; pushed > budget {
					return false, false
				}
			}
		}
	}
	return false, true
}

// search marks the needs of ns reachable from another need as redundant
// (for r.gen). It gives up, returning false, once it has pushed more than
// budget nodes; a negative budget never gives up.
func (r *reducer) search(ns []int32, budget int) bool {
	nodes, level, gen := r.nodes, r.level, r.gen
	minL := level[ns[len(ns)-1]]
	lowest := ns[levelFloor(ns, level, minL):]
	for _, u := range ns {
		r.cand[u] = gen
		r.visited[u] = gen
	}
	r.stack = append(r.stack[:0], ns...)
	pushed := 0
	for len(r.stack) > 0 {
		x := r.stack[len(r.stack)-1]
		r.stack = r.stack[:len(r.stack)-1]
		ps := nodes[x].needs
		i := 0
		for ; i < len(ps) && level[ps[i]] > minL; i++ {
			p := ps[i]
			if r.cand[p] == gen {
				r.redundant[p] = gen
			}
			if r.visited[p] != gen {
				r.visited[p] = gen
				r.stack = append(r.stack, p)
				pushed++
			}
		}
		if budget >= 0 && pushed > budget {
			return false
		}
		seg := ps[i:levelFloor(ps, level, minL-1)]
		if len(seg) <= len(lowest) {
			for _, p := range seg {
				if r.cand[p] == gen {
					r.redundant[p] = gen
				}
			}
			continue
		}
		for _, c := range lowest {
			if _, ok := slices.BinarySearchFunc(seg, c, func(a, b int32) int { return int(r.rank[a] - r.rank[b]) }); ok {
				r.redundant[c] = gen
			}
		}
	}
	return true
}

// byMemo marks (for a fresh r.gen) each need of ns that another need
// reaches, with remembered reachability; false when a table it would
// need is over memoMaxTargets.
func (r *reducer) byMemo(ns []int32) bool {
	top := r.level[ns[0]] // ns is sorted by level descending
	added := 0
	for _, u := range ns {
		if _, ok := r.reach[u]; !ok && r.level[u] < top {
			added++
		}
	}
	if len(r.reach)+added > memoMaxTargets {
		return false
	}
	r.gen++
	for _, u := range ns {
		if r.level[u] == top {
			continue // no other need is above it to reach it
		}
		memo := r.reach[u]
		if memo == nil {
			memo = make([]int8, len(r.nodes))
			r.reach[u] = memo
		}
		for _, w := range ns {
			if w != u && r.level[w] > r.level[u] && r.reaches(w, u, memo) {
				r.redundant[u] = r.gen
				break
			}
		}
	}
	return true
}

// reaches reports whether x reaches c through needs. Needs are sorted by
// level descending, and only a node of higher level than c can reach it.
func (r *reducer) reaches(x, c int32, memo []int8) bool {
	if x == c {
		return true
	}
	if r.level[x] <= r.level[c] {
		return false
	}
	switch memo[x] {
	case 1:
		return true
	case 2:
		return false
	}
	for _, p := range r.nodes[x].needs {
		if r.level[p] < r.level[c] {
			break
		}
		if r.reaches(p, c, memo) {
			memo[x] = 1
			return true
		}
	}
	memo[x] = 2
	return false
}

// sortByLevel orders needs by level descending, then rank ascending; a
// list already in that order (what splice writes) is left as it is.
func sortByLevel(ns []int32, level, rank []int32) {
	cmp := func(a, b int32) int { return levelRankCmp(a, b, level, rank) }
	if !slices.IsSortedFunc(ns, cmp) {
		slices.SortFunc(ns, cmp)
	}
}

func levelRankCmp(a, b int32, level, rank []int32) int {
	if level[a] != level[b] {
		return int(level[b] - level[a])
	}
	return int(rank[a] - rank[b])
}

// levelFloor returns the first position in ns (sorted by level descending)
// whose level is <= l.
func levelFloor(ns []int32, level []int32, l int32) int {
	return sort.Search(len(ns), func(i int) bool { return level[ns[i]] <= l })
}

// splice replaces each remaining need of a barrier node (but a kept one,
// see keepWide) with the barrier's own (reduced) needs, merging the lists
// (each in sortByLevel order) so that the result keeps that order without
// a sort. It reports whether anything was spliced.
func splice(nodes []*node, level, rank []int32) bool {
	cmp := func(a, b int32) int { return levelRankCmp(a, b, level, rank) }
	any := false
	for _, nd := range nodes {
		if nd.virtual {
			continue
		}
		has := false
		for _, u := range nd.needs {
			if nodes[u].spliced() {
				has = true
				break
			}
		}
		if !has {
			continue
		}
		any = true
		var own []int32
		var out []int32
		for _, u := range nd.needs {
			if !nodes[u].spliced() {
				own = append(own, u)
			}
		}
		for _, u := range nd.needs {
			if nodes[u].spliced() {
				out = mergeLevelRank(make([]int32, 0, len(own)+len(nodes[u].needs)), own, nodes[u].needs, cmp)
				own = out
			}
		}
		nd.needs = slices.Compact(own)
	}
	return any
}

// mergeLevelRank appends the merge of a and b, each ordered by cmp, to out.
func mergeLevelRank(out, a, b []int32, cmp func(a, b int32) int) []int32 {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if cmp(a[i], b[j]) <= 0 {
			out = append(out, a[i])
			i++
		} else {
			out = append(out, b[j])
			j++
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}
