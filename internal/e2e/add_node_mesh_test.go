package e2e

import (
	"strings"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/engine"
	"github.com/intentops/terraform-provider-cp/internal/planner"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// TestSecondAddNodeJoinsTheMesh adds worker-6, then worker-7, to a cluster
// of master-1 and worker-1 with plans of the same id (so the nodes' mesh
// updates share their idempotency keys): the second add_node runs
// update-wireguard-mesh again on the nodes already there, whose wg0.conf
// lacks worker-7 (evidence wireguard_peers_complete), instead of counting
// them satisfied by the first; every node then lists every other node's
// key and verify-wireguard-mesh holds everywhere.
func TestSecondAddNodeJoinsTheMesh(t *testing.T) {
	e := startHosts(t, "add-mesh", "master-1", "worker-1", "worker-6", "worker-7")
	hosts := e.intentHosts([]string{"master-1"}, []string{"worker-1"})
	arts := e.runCompleted(e.compose(e.clusterRequest("create", "1.31.2", hosts, nil, planner.State{})).Plan, engine.RunInput{}).Artifacts
	for _, add := range [][]string{{"worker-1", "worker-6"}, {"worker-1", "worker-6", "worker-7"}} {
		all := e.intentHosts([]string{"master-1"}, add)
		c := e.compose(e.clusterRequest("add_node", "1.31.2", all, []string{add[len(add)-1]}, clusterState(arts)))
		res := e.runCompleted(c.Plan, engine.RunInput{Artifacts: inputArtifacts(arts)})
		arts = protocol.MergeArtifacts(arts, res.Artifacts)
		if in := instance(t, res, "update-wireguard-mesh[master-1]"); in.Status != engine.StatusDone {
			t.Errorf("adding %s: update-wireguard-mesh[master-1] %s (%s), want done", add[len(add)-1], in.Status, in.Reason)
		}
		for _, h := range all {
			if in := instance(t, res, "verify-wireguard-mesh["+h.Name+"]"); in.Status != engine.StatusDone && in.Status != engine.StatusSatisfied {
				t.Errorf("adding %s: verify-wireguard-mesh[%s] %s", add[len(add)-1], h.Name, in.Status)
			}
		}
	}
	keys := map[string]string{}
	names := []string{"master-1", "worker-1", "worker-6", "worker-7"}
	for _, n := range names {
		keys[n] = strings.TrimSpace(e.sudo(t, n, "wg pubkey </etc/wireguard/wg0.key"))
	}
	for _, n := range names {
		conf := e.sudo(t, n, "sed -n 's/^PublicKey = //p' /etc/wireguard/wg0.conf")
		for _, p := range names {
			if p != n && !strings.Contains(conf, keys[p]) {
				t.Errorf("%s's wg0.conf lacks %s as a peer", n, p)
			}
		}
	}
}
