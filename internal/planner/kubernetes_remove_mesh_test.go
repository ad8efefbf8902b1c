package planner

import (
	"slices"
	"testing"
)

// remove_node takes the leaving node out of the WireGuard mesh once it is
// reset: leave-wireguard-mesh runs on the leaving node only,
// prune-wireguard-mesh on every node that stays (scope other_nodes) and
// never on the leaving one, each after leave-wireguard-mesh, which
// publishes the key they drop.
func TestKubernetesRemoveNodePrunesMesh(t *testing.T) {
	p := kubernetesPlan(t, "remove_node", 2, 3, "worker-2")
	if got := planHosts(p, "leave-wireguard-mesh"); !slices.Equal(got, []string{"worker-2"}) {
		t.Fatalf("leave-wireguard-mesh on %v, want on worker-2 only", got)
	}
	if !reaches(p, "leave-wireguard-mesh[worker-2]", "reset-node[worker-2]") {
		t.Errorf("leave-wireguard-mesh[worker-2] does not wait for reset-node[worker-2]")
	}
	got := planHosts(p, "prune-wireguard-mesh")
	if want := []string{"master-1", "master-2", "worker-1", "worker-3"}; !slices.Equal(got, want) {
		t.Fatalf("prune-wireguard-mesh on %v, want on the staying nodes %v", got, want)
	}
	for _, h := range got {
		if !reaches(p, "prune-wireguard-mesh["+h+"]", "leave-wireguard-mesh[worker-2]") {
			t.Errorf("prune-wireguard-mesh[%s] does not wait for leave-wireguard-mesh[worker-2]", h)
		}
	}
}
