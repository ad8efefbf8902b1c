package e2e

import (
	"strings"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/engine"
	"github.com/intentops/terraform-provider-cp/internal/hostsim"
	"github.com/intentops/terraform-provider-cp/internal/planner"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// TestAddNodePreflightStopsFirst adds worker-2, whose clock is not
// NTP-synchronized, to a cluster of master-1 and worker-1: add_node's
// preflight-node fails on worker-2 and nothing changes on the cluster (no
// node's WireGuard configuration, no key on worker-2, no node
// registered); with the clock synchronized the same plan resumes and adds
// it.
func TestAddNodePreflightStopsFirst(t *testing.T) {
	e := startHosts(t, "add-pre", "master-1", "worker-1", "worker-2")
	hosts := e.intentHosts([]string{"master-1"}, []string{"worker-1"})
	create := e.compose(e.clusterRequest("create", "1.31.2", hosts, nil, planner.State{}))
	arts := e.runCompleted(create.Plan, engine.RunInput{}).Artifacts

	conf := func(host string) string {
		return e.sudo(t, host, "sha256sum /etc/wireguard/wg0.conf")
	}
	before := map[string]string{"master-1": conf("master-1"), "worker-1": conf("worker-1")}
	e.sudo(t, "worker-2", "mkdir -p /etc/cp-hostsim && echo no >"+hostsim.NTPSynchronizedFile)

	all := e.intentHosts([]string{"master-1"}, []string{"worker-1", "worker-2"})
	c := e.compose(e.clusterRequest("add_node", "1.31.2", all, []string{"worker-2"}, clusterState(arts)))
	if got := jobInstances(c.Plan, "preflight-node"); len(got) != 1 || got[0] != "preflight-node[worker-2]" {
		t.Fatalf("preflight-node instances %v, want worker-2's only", got)
	}
	in := engine.RunInput{Artifacts: inputArtifacts(arts)}
	res := e.run(c.Plan, in)
	if res.Operation.Status == protocol.StatusCompleted {
		t.Fatalf("add_node of a host whose clock is not synchronized completed")
	}
	if got := instance(t, res, "preflight-node[worker-2]"); got.Status != engine.StatusFailed || !strings.Contains(got.Reason+strings.Join(got.LogTail, "\n"), "the clock is not NTP-synchronized") {
		t.Errorf("preflight-node[worker-2]: %s (%s %v), want failed naming the clock", got.Status, got.Reason, got.LogTail)
	}
	for _, id := range append(jobInstances(c.Plan, "generate-wireguard-key"), append(jobInstances(c.Plan, "update-wireguard-mesh"),
		"prepare-kubernetes-prerequisites[worker-2]", "join-worker[worker-2]")...) {
		if got := instance(t, res, id); got.Status == engine.StatusDone || got.Status == engine.StatusFailed {
			t.Errorf("%s ran (%s) although worker-2 failed its preflight", id, got.Status)
		}
	}
	for h, sum := range before {
		if got := conf(h); got != sum {
			t.Errorf("%s's wg0.conf changed although worker-2 failed its preflight", h)
		}
	}
	if out := e.sudo(t, "worker-2", "test -e /etc/wireguard/wg0.key && echo key || echo none"); strings.TrimSpace(out) != "none" {
		t.Errorf("worker-2 has a WireGuard key although it failed its preflight")
	}
	if st := e.simState(); st.Nodes["worker-2"] != nil {
		t.Errorf("worker-2 registered although it failed its preflight")
	}

	e.sudo(t, "worker-2", "echo yes >"+hostsim.NTPSynchronizedFile)
	res = e.runCompleted(c.Plan, in)
	if st := e.simState(); !st.NodeReady("worker-2") {
		t.Errorf("worker-2 is not a Ready node after the preflight passed: %v", e.nodes())
	}
	if got := conf("master-1"); got == before["master-1"] {
		t.Errorf("master-1's wg0.conf did not get worker-2 as a peer")
	}
}
