package protocol

import (
	"fmt"
	"slices"
)

// Role of a host in an intent.
const (
	RoleMaster = "master"
	RoleWorker = "worker"
)

// Host is a machine the intent acts on.
type Host struct {
	Name    string            `json:"name"`
	Address string            `json:"address"`
	Port    int               `json:"port,omitempty"`
	Role    string            `json:"role"` // master, worker, or a pack-specific role
	Labels  map[string]string `json:"labels,omitempty"`
	Taints  []string          `json:"taints,omitempty"`
}

// Intent is action + target + desired result + parameters + constraints.
type Intent struct {
	ID                 string            `json:"id,omitempty"`
	Action             string            `json:"action"`
	Pack               string            `json:"pack"` // pack id, e.g. kubernetes
	TargetResourceType string            `json:"target_resource_type,omitempty"`
	TargetResource     string            `json:"target_resource,omitempty"`
	Parameters         map[string]string `json:"parameters,omitempty"`
	Constraints        map[string]string `json:"constraints,omitempty"` // environment, region, ha...
	Hosts              []Host            `json:"hosts,omitempty"`
	// Targets names the hosts the action targets (add_node, remove_node);
	// empty means every host.
	Targets []string `json:"targets,omitempty"`
}

// HostsWithRole returns the hosts with the given role, in intent order.
func (in *Intent) HostsWithRole(role string) []Host {
	var out []Host
	for _, h := range in.Hosts {
		if h.Role == role {
			out = append(out, h)
		}
	}
	return out
}

// Host returns the host with the given name.
func (in *Intent) Host(name string) (Host, bool) {
	for _, h := range in.Hosts {
		if h.Name == name {
			return h, true
		}
	}
	return Host{}, false
}

// Validate checks hosts for empty and duplicate names and unknown targets.
func (in *Intent) Validate() error {
	if in.Action == "" {
		return fmt.Errorf("intent: action is empty")
	}
	seen := map[string]bool{}
	for i, h := range in.Hosts {
		if h.Name == "" {
			return fmt.Errorf("intent: host %d has no name", i)
		}
		if seen[h.Name] {
			return fmt.Errorf("intent: host name %q is used twice; host names must be unique", h.Name)
		}
		seen[h.Name] = true
	}
	for _, t := range in.Targets {
		if !seen[t] {
			return fmt.Errorf("intent: target %q is not one of the hosts", t)
		}
	}
	return nil
}

// IsTarget reports whether host name is targeted by the action.
func (in *Intent) IsTarget(name string) bool {
	return len(in.Targets) == 0 || slices.Contains(in.Targets, name)
}
