package planner

import (
	"slices"
	"strings"
)

// GroupedView is one entry of the grouped per-instance DAG: a job
// group's instances that read the same once their own host is written
// "host" (keyed JOB[*]), or one instance (keyed by its id).
type GroupedView struct {
	InstanceView
	// Hosts are the hosts of the instances the entry stands for, as
	// ranges (HostRanges); the instance's host for an entry of one.
	Hosts string
	// Count is how many instances the entry stands for.
	Count int
}

// hostWord stands for an instance's own host in a grouped entry's
// idempotency key ("install-containerd:{host}:1.7"); its needs write it
// as hostPattern does ("prepare-network[host]").
const hostWord = "{host}"

// GroupInstances folds v, the per-instance DAG, by job group: the
// instances of a group of more than one that read the same once their
// host is written "host" (the pattern most of them share) become one
// entry keyed JOB[*] with their hosts as ranges and their count; every
// other instance keeps its own entry, keyed by its id. A change of plan
// then diffs as the groups whose hosts changed and the instances that
// differ from their group, in entries linear in the jobs rather than the
// hosts.
func GroupInstances(v InstanceViews) map[string]GroupedView {
	type member struct {
		id, key string
		pat     InstanceView
	}
	groups := map[string][]member{}
	out := make(map[string]GroupedView, 16)
	for _, id := range v.IDs() {
		iv := v[id]
		key, ok := strings.CutSuffix(id, "["+iv.Host+"]")
		if iv.Host == "" || !ok {
			out[id] = GroupedView{InstanceView: iv, Hosts: iv.Host, Count: 1}
			continue
		}
		pat := hostless(iv)
		groups[key] = append(groups[key], member{id: id, key: patternKey(pat), pat: pat})
	}
	for key, ms := range groups {
		// Bucket the members by pattern; the largest bucket (the first
		// in id order on a tie) is the group's entry.
		buckets := map[string][]int{}
		best := ""
		for i, m := range ms {
			k := m.key
			buckets[k] = append(buckets[k], i)
			if n := len(buckets[k]); n > len(buckets[best]) || n == len(buckets[best]) && buckets[k][0] < buckets[best][0] {
				best = k
			}
		}
		if len(buckets[best]) < 2 {
			best = "\x00none"
		}
		var hosts []string
		for _, m := range ms {
			if m.key == best {
				hosts = append(hosts, v[m.id].Host)
				continue
			}
			out[m.id] = GroupedView{InstanceView: v[m.id], Hosts: v[m.id].Host, Count: 1}
		}
		if len(hosts) > 0 {
			out[key+"[*]"] = GroupedView{InstanceView: ms[buckets[best][0]].pat, Hosts: HostRanges(hosts), Count: len(hosts)}
		}
	}
	return out
}

// hostless is iv with its own host written "[host]" in needs (sorted)
// and hostWord in the idempotency key, and Host empty. An idempotency key
// that does not give back iv's own when the host is put back keeps the
// host, so that it matches no other instance's.
func hostless(iv InstanceView) InstanceView {
	h := iv.Host
	p := iv
	p.Host = ""
	p.Needs = make([]string, len(iv.Needs))
	for i, n := range iv.Needs {
		p.Needs[i] = hostPattern(n, h)
	}
	slices.Sort(p.Needs)
	if k := strings.ReplaceAll(iv.IdempotencyKey, h, hostWord); strings.ReplaceAll(k, hostWord, h) == iv.IdempotencyKey {
		p.IdempotencyKey = k
	}
	return p
}

// patternKey is a string equal for two patterns exactly when they read
// the same (fields joined by NUL, which no field holds).
func patternKey(p InstanceView) string {
	return strings.Join(append([]string{p.Job, p.Stage, p.RunOn, p.Origin, p.Because, p.SubOperation, p.Gate,
		p.IdempotencyKey, p.Status}, p.Needs...), "\x00")
}
