package planner

// rollingEdges adds the edges of Controls.RollingAfter: a job's instance
// on the n-th host of its expansion waits for the named job's instance on
// the (n-1)-th host, so a window of several jobs (drain, upgrade,
// uncordon) moves over the hosts one at a time. A named job that is not
// in the plan (removed by a customization) adds nothing, as for After.
func (b *builder) rollingEdges() {
	for _, s := range b.stages {
		for _, u := range s.units {
			if u.job == nil || u.job.Controls.RollingAfter == "" {
				continue
			}
			y, ok := b.units[u.prefix+u.job.Controls.RollingAfter]
			if !ok || y.job == nil {
				continue
			}
			byHost := make(map[string]*node, len(y.insts))
			for _, n := range y.insts {
				byHost[n.ji.Host] = n
			}
			for i := 1; i < len(u.insts); i++ {
				if prev, ok := byHost[u.insts[i-1].ji.Host]; ok && prev != u.insts[i] {
					u.insts[i].needs = append(u.insts[i].needs, prev.idx)
				}
			}
		}
	}
}
