package intent

import (
	"slices"
	"sort"
	"strings"

	"github.com/intentops/terraform-provider-cp/internal/operation"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// RelabelParam is the kubernetes pack's relabel parameter that holds the
// label and taint changes (NodeChanges); the change computation sets it.
const RelabelParam = "node_changes"

// Cluster is a Kubernetes cluster intent as the change computation sees
// it: its hosts (masters first, each with its role) and version.
type Cluster struct {
	Hosts   []operation.HostAccess
	Version string
}

// ClusterChanges computes what apply runs for a cluster intent. Without a
// prior intent, create over every host. Otherwise, in this order:
// remove_node for workers and masters no longer listed (planned over the
// old and the new hosts, since the removed ones are only in the old;
// workers first), add_master for new masters (a kubeadm control-plane
// join), add_node for new workers, relabel for label and taint changes of nodes that stay
// (masters and workers; its node_changes parameter holds the change), and
// upgrade for a version change. An unchanged intent needs nothing.
//
// Each change's IDParts make its operation id (OpID): the sorted host
// names for create, the removed or added workers, the label changes, the
// new version. The same change planned again gets the same id, so a
// failed apply resumes it.
func ClusterChanges(prior *Cluster, next Cluster) []Change {
	if prior == nil {
		return []Change{{Action: "create", IDParts: names(next.Hosts, "")}}
	}
	var out []Change
	oldW, newW := names(prior.Hosts, protocol.RoleWorker), names(next.Hosts, protocol.RoleWorker)
	// A master no longer listed leaves like a worker: remove_node drains
	// it, snapshots etcd and removes its member (the first master never
	// leaves: changing it replaces the cluster).
	removedM := missing(names(prior.Hosts, protocol.RoleMaster), names(next.Hosts, protocol.RoleMaster))
	if removed := append(missing(oldW, newW), removedM...); len(removed) > 0 {
		out = append(out, Change{Action: "remove_node", Targets: removed, Hosts: union(prior.Hosts, next.Hosts), IDParts: removed})
	}
	// A master newly listed joins the control plane through the endpoint
	// the cluster was built with (ControlPlaneChange refuses the plan
	// where that endpoint would change).
	if added := missing(names(next.Hosts, protocol.RoleMaster), names(prior.Hosts, protocol.RoleMaster)); len(added) > 0 {
		out = append(out, Change{Action: "add_master", Targets: added, IDParts: added})
	}
	if added := missing(newW, oldW); len(added) > 0 {
		out = append(out, Change{Action: "add_node", Targets: added, IDParts: added})
	}
	if targets, changes := NodeChanges(hostsOf(prior.Hosts), hostsOf(next.Hosts)); len(changes) > 0 {
		// Only the first master runs kubectl; no kubeconfig goes to the
		// relabelled nodes.
		out = append(out, Change{Action: "relabel", Targets: targets, Params: map[string]string{RelabelParam: strings.Join(changes, ",")}, IDParts: changes})
	}
	if next.Version != prior.Version {
		out = append(out, Change{Action: "upgrade", IDParts: []string{next.Version}})
	}
	return out
}

// CheckComputedParams refuses parameters the change computation sets.
func CheckComputedParams(params map[string]string) Problems {
	var ps Problems
	if _, set := params[RelabelParam]; set {
		ps.add(Root("parameters").Key(RelabelParam), "Parameter set by the provider",
			"%s is computed from the nodes' labels and taints; remove it from parameters and change labels or taints instead.", RelabelParam)
	}
	return ps
}

// names returns the sorted names of the hosts with role ("" for all).
func names(hs []operation.HostAccess, role string) []string {
	var out []string
	for _, h := range hs {
		if role == "" || h.Host.Role == role {
			out = append(out, h.Host.Name)
		}
	}
	sort.Strings(out)
	return out
}

// missing returns the names of a that are not in b.
func missing(a, b []string) []string {
	var out []string
	for _, n := range a {
		if !slices.Contains(b, n) {
			out = append(out, n)
		}
	}
	return out
}

// union returns the old hosts followed by the new hosts not among them.
func union(oldH, newH []operation.HostAccess) []operation.HostAccess {
	out := slices.Clone(oldH)
	for _, h := range newH {
		if !slices.ContainsFunc(out, func(o operation.HostAccess) bool { return o.Host.Name == h.Host.Name }) {
			out = append(out, h)
		}
	}
	return out
}
