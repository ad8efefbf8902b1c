package intent

import (
	"slices"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/operation"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// A master no longer listed leaves through remove_node, after the workers
// that leave with it, planned over the old and the new hosts; the id of a
// workers-only removal does not change.
func TestClusterChangesRemoveMaster(t *testing.T) {
	m := func(n string) operation.HostAccess { return hostAccess(n, protocol.RoleMaster, nil) }
	w := func(n string) operation.HostAccess { return hostAccess(n, protocol.RoleWorker, nil) }
	prior := &Cluster{Version: "1.34.2", Hosts: []operation.HostAccess{m("master-1"), m("master-2"), m("master-3"), w("worker-1"), w("worker-2")}}
	got := ClusterChanges(prior, Cluster{Version: "1.34.2", Hosts: []operation.HostAccess{m("master-1"), m("master-2"), w("worker-1")}})
	if len(got) != 1 {
		t.Fatalf("got %+v, want one remove_node", got)
	}
	var hosts []string
	for _, h := range got[0].Hosts {
		hosts = append(hosts, h.Host.Name)
	}
	if got[0].Action != "remove_node" || !slices.Equal(got[0].Targets, []string{"worker-2", "master-3"}) ||
		!slices.Equal(got[0].IDParts, []string{"worker-2", "master-3"}) || !slices.Equal(hosts, []string{"master-1", "master-2", "master-3", "worker-1", "worker-2"}) {
		t.Errorf("got %s %v parts %v hosts %v", got[0].Action, got[0].Targets, got[0].IDParts, hosts)
	}
	workers := ClusterChanges(prior, Cluster{Version: "1.34.2", Hosts: []operation.HostAccess{m("master-1"), m("master-2"), m("master-3"), w("worker-1")}})
	if len(workers) != 1 || !slices.Equal(workers[0].Targets, []string{"worker-2"}) || !slices.Equal(workers[0].IDParts, []string{"worker-2"}) {
		t.Errorf("a worker's removal: %+v", workers)
	}
}
