package protocol

import "strings"

// groupSuffix ends a need on a whole job group. Host names are DNS-1123
// labels, so no instance id ends with it.
const groupSuffix = "[*]"

// GroupNeed is the need on every instance of job group key, "key[*]". A
// plan writes it instead of one need per instance where many instances
// wait for all of a job's instances (a full mesh): the edges then stay
// linear in the hosts.
func GroupNeed(key string) string { return key + groupSuffix }

// NeedGroup returns the job group a need names when it is a group need
// ("wireguard-keys[*]" -> "wireguard-keys").
func NeedGroup(need string) (string, bool) { return strings.CutSuffix(need, groupSuffix) }

// Group is the job group of an instance: its id without the "[host]"
// suffix of a per-host instance (join-workers[worker-3] -> join-workers).
func (ji *JobInstance) Group() string {
	if ji.Host != "" {
		if k, ok := strings.CutSuffix(ji.ID, "["+ji.Host+"]"); ok {
			return k
		}
	}
	return ji.ID
}

// Groups maps each job group of p to its instances, in plan order.
func (p *Plan) Groups() map[string][]*JobInstance {
	out := map[string][]*JobInstance{}
	for _, in := range p.Instances {
		k := in.Group()
		out[k] = append(out[k], in)
	}
	return out
}

// NeedInstances calls fn with each instance a need names: the instance
// of that id, or every instance of a group need's job group (groups from
// p.Groups, built once by the caller). It returns false when the need
// names nothing in the plan.
func (p *Plan) NeedInstances(need string, groups map[string][]*JobInstance, fn func(*JobInstance)) bool {
	if k, ok := NeedGroup(need); ok {
		members := groups[k]
		for _, m := range members {
			fn(m)
		}
		return len(members) > 0
	}
	in, ok := p.Instance(need)
	if ok {
		fn(in)
	}
	return ok
}
