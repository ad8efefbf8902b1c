package engine

import (
	"errors"
	"fmt"
	"slices"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// needGroup is a job group some instance needs whole, through a group
// need (protocol.GroupNeed, "wireguard-keys[*]"). The scheduler keeps one
// join counter per group instead of an edge from every member to every
// dependent: a dependent holds one reference to the group, released when
// the group's last member finishes; the first member that does not finish
// skips the group's dependents. A full mesh of n hosts then costs n
// members and n references, not n*n edges.
type needGroup struct {
	key        string
	members    []int // plan indexes, in plan order
	dependents []int // plan indexes of the instances needing the group, once per group need
	done       int   // members finished
	broken     bool  // a member did not finish: the dependents were skipped
}

// complete counts a finished member and reports whether it was the
// group's last.
func (g *needGroup) complete() bool {
	g.done++
	return g.done == len(g.members)
}

// addNeed records one need of st: an edge to the instance of that id, or
// a reference to a group need's job group.
func (r *run) addNeed(st *instState, need string) error {
	key, isGroup := protocol.NeedGroup(need)
	if !isGroup {
		dep, ok := r.byID[need]
		if !ok {
			return fmt.Errorf("needs %q, which is not in the plan", need)
		}
		if dep == st {
			return errors.New("needs itself")
		}
		st.needs = append(st.needs, dep.idx)
		dep.dependents = append(dep.dependents, st.idx)
		return nil
	}
	g := r.needGroup(key)
	if g == nil {
		return fmt.Errorf("needs every instance of job group %s (%q), which has no instance in the plan", key, need)
	}
	if st.group == g {
		return errors.New("needs itself")
	}
	st.groups = append(st.groups, g)
	g.dependents = append(g.dependents, st.idx)
	return nil
}

// needGroup returns the group of job group key, nil when no instance of
// the plan is in it. The instances are sorted into their job groups at the
// first group need; a group's members learn their group when a need first
// names it.
func (r *run) needGroup(key string) *needGroup {
	if g, ok := r.groups[key]; ok {
		return g
	}
	if r.groupMembers == nil {
		r.groupMembers = map[string][]int{}
		for _, st := range r.states {
			k := st.in.Group()
			r.groupMembers[k] = append(r.groupMembers[k], st.idx)
		}
	}
	members := r.groupMembers[key]
	if len(members) == 0 {
		return nil
	}
	g := &needGroup{key: key, members: members}
	if r.groups == nil {
		r.groups = map[string]*needGroup{}
	}
	r.groups[key] = g
	for _, i := range members {
		r.states[i].group = g
	}
	return g
}

// directNeed reports whether dep is an instance st names in its needs: by
// id, or as a member of a group it needs.
func directNeed(st, dep *instState) bool {
	return slices.Contains(st.needs, dep.idx) || (dep.group != nil && slices.Contains(st.groups, dep.group))
}
