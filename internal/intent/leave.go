package intent

import (
	"slices"

	"github.com/intentops/terraform-provider-cp/internal/operation"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// LeaveAction is the action of a scenario pack that removes what the pack
// put on a node when the node leaves the cluster the scenario runs on:
// the node-scoped part of its uninstall (jobs with scope.expand
// target_nodes, so they run on the leaving nodes only).
const LeaveAction = "uninstall_node"

// LeaveChange is the change a scenario on a cluster needs when hosts
// leave the cluster: prior are the cluster's hosts the scenario last
// planned over, next its hosts now. When some left and the pack has a
// template for LeaveAction, the change runs it on them (Targets), planned
// over the prior and the next hosts (the leaving ones are only in the
// prior); its id names the pack and the hosts that left, so a failed
// apply resumes it. Otherwise nil: nothing left, or the pack declares
// nothing to remove from a node.
func LeaveChange(pack *protocol.ScenarioPack, prior, next []operation.HostAccess) *Change {
	if pack == nil || pack.KindOf(LeaveAction) == "" {
		return nil
	}
	var left []string
	for _, h := range prior {
		if !slices.ContainsFunc(next, func(n operation.HostAccess) bool { return n.Host.Name == h.Host.Name }) {
			left = append(left, h.Host.Name)
		}
	}
	if len(left) == 0 {
		return nil
	}
	return &Change{Action: LeaveAction, Targets: left, Hosts: union(prior, next), IDParts: append([]string{pack.ID, "leave"}, left...)}
}
