package e2e

import (
	"strings"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/engine"
	"github.com/intentops/terraform-provider-cp/internal/planner"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// TestRemoveNodeLeavesTheMesh creates master-1, worker-1 and worker-2,
// then removes worker-2: no staying node keeps worker-2's WireGuard key as
// a peer, neither in wg0.conf nor in the running wg0 (wg show wg0 peers),
// prune-wireguard-mesh runs on the staying nodes only, and worker-2's wg0
// is down and its key gone. A later add_node of worker-3 then verifies the
// mesh of the three nodes (verify-wireguard-mesh holds on each).
func TestRemoveNodeLeavesTheMesh(t *testing.T) {
	e := startHosts(t, "rm-mesh", "master-1", "worker-1", "worker-2", "worker-3")
	all := e.intentHosts([]string{"master-1"}, []string{"worker-1", "worker-2"})
	arts := e.runCompleted(e.compose(e.clusterRequest("create", "1.31.2", all, nil, planner.State{})).Plan, engine.RunInput{}).Artifacts
	key := strings.TrimSpace(e.sudo(t, "worker-2", "wg pubkey </etc/wireguard/wg0.key"))
	for _, h := range []string{"master-1", "worker-1"} {
		if !strings.Contains(e.sudo(t, h, "cat /etc/wireguard/wg0.conf"), key) {
			t.Fatalf("%s's wg0.conf lacks worker-2 after create", h)
		}
	}

	c := e.compose(e.clusterRequest("remove_node", "1.31.2", all, []string{"worker-2"}, clusterState(arts)))
	if got := jobInstances(c.Plan, "prune-wireguard-mesh"); strings.Join(got, " ") != "prune-wireguard-mesh[master-1] prune-wireguard-mesh[worker-1]" {
		t.Fatalf("prune-wireguard-mesh instances %v, want on master-1 and worker-1 only", got)
	}
	res := e.runCompleted(c.Plan, engine.RunInput{Artifacts: inputArtifacts(arts), Decisions: []protocol.Decision{
		{Gate: "confirm-node-removal", Option: "remove node", Actor: "alice", Roles: []string{"sre"}}}})
	arts = protocol.MergeArtifacts(arts, res.Artifacts)
	for _, h := range []string{"master-1", "worker-1"} {
		if conf := e.sudo(t, h, "cat /etc/wireguard/wg0.conf"); strings.Contains(conf, key) {
			t.Errorf("%s's wg0.conf still holds worker-2's key after remove_node", h)
		}
		if peers := e.sudo(t, h, "wg show wg0 peers"); strings.Contains(peers, key) {
			t.Errorf("%s's wg0 still has worker-2 as a peer after remove_node", h)
		}
		if n := strings.TrimSpace(e.sudo(t, h, "grep -c '^\\[Peer\\]' /etc/wireguard/wg0.conf")); n != "1" {
			t.Errorf("%s's wg0.conf has %s peers after remove_node, want 1", h, n)
		}
	}
	if out := strings.TrimSpace(e.sudo(t, "worker-2", "test -e /etc/wireguard/wg0.conf || test -e /etc/wireguard/wg0.key && echo configured || echo gone")); out != "gone" {
		t.Errorf("worker-2 keeps its wg0 configuration after remove_node (%s)", out)
	}

	rest := e.intentHosts([]string{"master-1"}, []string{"worker-1", "worker-3"})
	add := e.compose(e.clusterRequest("add_node", "1.31.2", rest, []string{"worker-3"}, clusterState(arts)))
	res = e.run(add.Plan, engine.RunInput{Artifacts: inputArtifacts(arts)})
	for _, h := range rest {
		if in := instance(t, res, "verify-wireguard-mesh["+h.Name+"]"); in.Status != engine.StatusDone && in.Status != engine.StatusSatisfied {
			t.Errorf("add_node after remove_node: verify-wireguard-mesh[%s] %s (%s %v)", h.Name, in.Status, in.Reason, in.LogTail)
		}
	}
	if res.Operation.Status != protocol.StatusCompleted {
		t.Errorf("add_node of worker-3 after removing worker-2: %s", res.Operation.Status)
	}
}
