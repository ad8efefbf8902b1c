package planner

import (
	"slices"
	"strings"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// gatesAhead returns, per instance id, the sorted ids of the gate nodes it
// waits for directly or transitively. Instances are in plan order; needs
// always point to instances whose sets are computed first in a
// topological pass.
func gatesAhead(p *protocol.Plan) map[string][]string {
	out := make(map[string][]string, len(p.Instances))
	hasGate := false
	for _, in := range p.Instances {
		if in.IsGate() {
			hasGate = true
			break
		}
	}
	if !hasGate {
		return out
	}
	done := make(map[string]bool, len(p.Instances))
	var visit func(in *protocol.JobInstance) []string
	var groups map[string][]*protocol.JobInstance
	groupGates := map[string][]string{}
	visitGroup := func(k string) []string {
		if set, ok := groupGates[k]; ok {
			return set
		}
		if groups == nil {
			groups = p.Groups()
		}
		var set []string
		for _, m := range groups[k] {
			if m.IsGate() && !slices.Contains(set, m.ID) {
				set = append(set, m.ID)
			}
			for _, g := range visit(m) {
				if !slices.Contains(set, g) {
					set = append(set, g)
				}
			}
		}
		groupGates[k] = set
		return set
	}
	visit = func(in *protocol.JobInstance) []string {
		if done[in.ID] {
			return out[in.ID]
		}
		done[in.ID] = true
		// A plan has few gates, so the sets are short: adding each gate
		// once as it is met keeps a full-mesh fan-in linear in its needs.
		var set []string
		add := func(g string) {
			if !slices.Contains(set, g) {
				set = append(set, g)
			}
		}
		for _, id := range in.Needs {
			if k, ok := protocol.NeedGroup(id); ok {
				// A group need: the gates ahead of its members, found
				// once per group.
				for _, g := range visitGroup(k) {
					add(g)
				}
				continue
			}
			dep, ok := p.Instance(id)
			if !ok {
				continue
			}
			if dep.IsGate() {
				add(dep.ID)
			}
			for _, g := range visit(dep) {
				add(g)
			}
		}
		slices.Sort(set)
		out[in.ID] = set
		return set
	}
	for _, in := range p.Instances {
		visit(in)
	}
	return out
}

// hostPattern replaces the instance's own host in an id with "host", so
// per-host instances of a job can be compared: install-runtime[worker-3]
// needed by join-workers[worker-3] becomes install-runtime[host].
func hostPattern(id, host string) string {
	if host != "" && strings.HasSuffix(id, "["+host+"]") {
		return strings.TrimSuffix(id, "["+host+"]") + "[host]"
	}
	return id
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// requiresText lists a job's requirements: capabilities with their scope,
// then artifacts.
func requiresText(j *protocol.Job) string {
	var parts []string
	for _, r := range j.Inputs.Requires.Capabilities {
		s := r.Key
		if r.Scope.Normal() == protocol.ScopeNode {
			s += " (node)"
		}
		if r.Optional {
			s += " (optional)"
		}
		parts = append(parts, s)
	}
	for _, a := range j.Inputs.Requires.Artifacts {
		s := "artifact " + a.ID
		if a.Scope.Normal() == protocol.ScopeNode {
			s += " (node)"
		}
		if a.Optional {
			s += " (optional)"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}

func providesText(j *protocol.Job) string {
	var parts []string
	for _, c := range j.Outputs.Provides.Capabilities {
		s := c.Key
		if c.Scope.Normal() == protocol.ScopeNode {
			s += " (node)"
		}
		parts = append(parts, s)
	}
	for _, a := range j.Outputs.Artifacts {
		s := "artifact " + a.ID
		if a.Sensitivity == protocol.SensitivitySecret {
			s += " (secret)"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}
