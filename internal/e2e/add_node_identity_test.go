package e2e

import (
	"strings"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/engine"
	"github.com/intentops/terraform-provider-cp/internal/planner"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// TestAddNodeDuplicateMachineIDStopsFirst adds worker-2, a clone of
// worker-1 (the same /etc/machine-id), to a cluster of master-1 and
// worker-1: add_node's check-host-identities compares worker-2's identity
// with the existing nodes' (their host.identity artifacts from create)
// and fails naming both hosts, before any node's WireGuard configuration
// changes or worker-2 is prepared or joined.
func TestAddNodeDuplicateMachineIDStopsFirst(t *testing.T) {
	e := startHosts(t, "add-ident", "master-1", "worker-1", "worker-2")
	hosts := e.intentHosts([]string{"master-1"}, []string{"worker-1"})
	arts := e.runCompleted(e.compose(e.clusterRequest("create", "1.31.2", hosts, nil, planner.State{})).Plan, engine.RunInput{}).Artifacts

	conf := func(host string) string {
		return e.sudo(t, host, "sha256sum /etc/wireguard/wg0.conf")
	}
	before := map[string]string{"master-1": conf("master-1"), "worker-1": conf("worker-1")}
	id := strings.TrimSpace(e.sudo(t, "worker-1", "cat /etc/machine-id"))
	if len(id) != 32 {
		t.Fatalf("worker-1's machine id %q", id)
	}
	e.sudo(t, "worker-2", "echo "+id+" >/etc/machine-id")

	all := e.intentHosts([]string{"master-1"}, []string{"worker-1", "worker-2"})
	c := e.compose(e.clusterRequest("add_node", "1.31.2", all, []string{"worker-2"}, clusterState(arts)))
	res := e.run(c.Plan, engine.RunInput{Artifacts: inputArtifacts(arts)})
	if res.Operation.Status == protocol.StatusCompleted {
		t.Fatalf("add_node of a host with another node's machine id completed")
	}
	got := instance(t, res, "check-host-identities")
	if why := got.Reason + strings.Join(got.LogTail, "\n"); got.Status != engine.StatusFailed ||
		!strings.Contains(why, "worker-2 and worker-1 share the machine id "+id) {
		t.Errorf("check-host-identities: %s (%s %v), want failed naming worker-2 and worker-1", got.Status, got.Reason, got.LogTail)
	}
	for _, id := range append(jobInstances(c.Plan, "generate-wireguard-key"), append(jobInstances(c.Plan, "update-wireguard-mesh"),
		"prepare-kubernetes-prerequisites[worker-2]", "join-worker[worker-2]")...) {
		if got := instance(t, res, id); got.Status == engine.StatusDone || got.Status == engine.StatusFailed {
			t.Errorf("%s ran (%s) although worker-2 shares worker-1's machine id", id, got.Status)
		}
	}
	for h, sum := range before {
		if got := conf(h); got != sum {
			t.Errorf("%s's wg0.conf changed although worker-2 shares worker-1's machine id", h)
		}
	}
	if st := e.simState(); st.Nodes["worker-2"] != nil {
		t.Errorf("worker-2 registered although it shares worker-1's machine id")
	}
}
