package engine

import (
	"fmt"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// needStates returns the states a need of the plan names: the instance of
// that id, or every instance of a group need's job group
// (protocol.GroupNeed, "wireguard-keys[*]"). groups caches each job
// group's states; it is built at the first group need.
func (r *run) needStates(need string, groups *map[string][]*instState) ([]*instState, error) {
	key, isGroup := protocol.NeedGroup(need)
	if !isGroup {
		dep, ok := r.byID[need]
		if !ok {
			return nil, fmt.Errorf("needs %q, which is not in the plan", need)
		}
		return []*instState{dep}, nil
	}
	if *groups == nil {
		*groups = map[string][]*instState{}
		for _, st := range r.states {
			k := st.in.Group()
			(*groups)[k] = append((*groups)[k], st)
		}
	}
	members := (*groups)[key]
	if len(members) == 0 {
		return nil, fmt.Errorf("needs every instance of job group %s (%q), which has no instance in the plan", key, need)
	}
	return members, nil
}
