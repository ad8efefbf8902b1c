package e2e

import (
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/engine"
	"github.com/intentops/terraform-provider-cp/internal/planner"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// TestRestoreEtcdAtNodeAddress creates a cluster whose master's node
// address (node_addresses) is not its SSH address, takes an etcd snapshot
// and restores it: the restored etcd member's peer address is the node
// address kubeadm advertised, as before the restore, not the SSH address.
func TestRestoreEtcdAtNodeAddress(t *testing.T) {
	const nodeAddr = "10.201.0.1"
	e := startHosts(t, "restore-na", "master-1", "worker-1")
	hosts := e.intentHosts([]string{"master-1"}, []string{"worker-1"})
	request := func(action string, st planner.State) planner.Request {
		req := e.clusterRequest(action, "1.31.2", hosts, nil, st)
		req.Intent.Parameters["node_addresses"] = "master-1=" + nodeAddr
		return req
	}
	member := func() string {
		st := e.simState()
		if st.Etcd == nil || len(st.Etcd.Members) != 1 {
			t.Fatalf("simulated etcd: %+v, want one member", st.Etcd)
		}
		return st.Etcd.Members[0].Name + " " + st.Etcd.Members[0].Address
	}
	arts := e.runCompleted(e.compose(request("create", planner.State{})).Plan, engine.RunInput{}).Artifacts
	if got, want := member(), "master-1 "+nodeAddr; got != want {
		t.Fatalf("after create the etcd member is %q, want %q", got, want)
	}
	if e.addr("master-1") == nodeAddr {
		t.Fatalf("master-1's SSH address is its node address; the test would not tell them apart")
	}
	res := e.runCompleted(e.compose(request("snapshot", clusterState(arts))).Plan, engine.RunInput{Artifacts: inputArtifacts(arts)})
	arts = protocol.MergeArtifacts(arts, res.Artifacts)
	e.runCompleted(e.compose(request("restore", clusterState(arts))).Plan, engine.RunInput{Artifacts: inputArtifacts(arts), Decisions: []protocol.Decision{
		{Gate: "confirm-etcd-restore", Option: "restore", Actor: "alice", Roles: []string{"platform_admin"}}}})
	if got, want := member(), "master-1 "+nodeAddr; got != want {
		t.Errorf("after the restore the etcd member is %q, want %q (the node address, not the SSH address %s)", got, want, e.addr("master-1"))
	}
}
