package planner

import "fmt"

// orderingEdges adds the explicit ordering-only edges of Job.After, within
// the job's own operation; a name not in the plan (removed, or absent from
// the template) adds nothing.
func (b *builder) orderingEdges() {
	for _, s := range b.stages {
		for _, u := range s.units {
			if u.job == nil {
				continue
			}
			for _, a := range u.job.After {
				if y, ok := b.units[u.prefix+a]; ok && y != u {
					linkAfter(u, y)
				}
			}
		}
	}
}

// linkAfter makes every instance of x depend on y's instance on the same
// host, or on all of y's instances when y has none there.
func linkAfter(x, y *unit) {
	byHost := make(map[string][]*node, len(y.insts))
	for _, n := range y.insts {
		byHost[n.ji.Host] = append(byHost[n.ji.Host], n)
	}
	for _, xn := range x.insts {
		targets := y.insts
		if xn.ji.Host != "" {
			if same, ok := byHost[xn.ji.Host]; ok {
				targets = same
			}
		}
		for _, t := range targets {
			xn.needs = append(xn.needs, t.idx)
		}
	}
}

// applyOrders applies the ordering of inserted jobs in the order they were
// inserted: x runs after y, and whatever depended on y also waits for x
// (so x sits between y and its consumers). Per host: a consumer that
// needed y on host H waits for x on H, and for nothing of x when x does
// not run on H; a consumer of a hostless y waits for every x instance.
// A dependent of y that x itself needs by contract (say x requires what it
// provides) keeps its place before x rather than forming a cycle.
func (b *builder) applyOrders() error {
	for _, o := range b.orders {
		x, y := b.units[o.x], b.units[o.y]
		if x == nil || y == nil {
			return fmt.Errorf("%w: %s: job %s or %s is no longer in the plan (a later change removed it)", ErrEdit, o.source, o.x, o.y)
		}
		linkAfter(x, y)
		if !o.rewire {
			continue
		}
		yHost := make(map[int32]string, len(y.insts))
		for _, n := range y.insts {
			yHost[n.idx] = n.ji.Host
		}
		xByHost := make(map[string][]*node, len(x.insts))
		xPerHost := false
		for _, n := range x.insts {
			xByHost[n.ji.Host] = append(xByHost[n.ji.Host], n)
			xPerHost = xPerHost || n.ji.Host != ""
		}
		before := b.ancestors(x.insts)
		for _, c := range b.nodes {
			if c.u == x || c.u == y || before[c.idx] {
				continue // x itself needs c (by contract): c cannot also wait for x
			}
			var add []*node
			for _, nd := range c.needs {
				h, ok := yHost[nd]
				if !ok {
					continue
				}
				if h != "" && xPerHost {
					add = append(add, xByHost[h]...) // none when x does not run on h
				} else {
					add = x.insts
					break
				}
			}
			for _, a := range add {
				c.needs = append(c.needs, a.idx)
			}
		}
	}
	return nil
}

// ancestors returns the set of nodes the given nodes need, transitively.
func (b *builder) ancestors(from []*node) map[int32]bool {
	seen := map[int32]bool{}
	stack := make([]int32, 0, len(from))
	for _, n := range from {
		stack = append(stack, n.idx)
	}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, u := range b.nodes[v].needs {
			if !seen[u] {
				seen[u] = true
				stack = append(stack, u)
			}
		}
	}
	return seen
}
