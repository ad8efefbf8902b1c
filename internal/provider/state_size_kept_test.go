package provider

import (
	"fmt"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/intentops/terraform-provider-cp/internal/intent"
	"github.com/intentops/terraform-provider-cp/internal/packs"
	"github.com/intentops/terraform-provider-cp/internal/planner"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// addedNodes returns the cluster model of completedCreate(n) after a
// completed add_node of added workers: the state keeps the create's
// evidence under the add_node's (keepPriorEvidence), and the cluster's
// artifacts of both.
func addedNodes(tb testing.TB, n, added int) *clusterModel {
	tb.Helper()
	m := completedCreate(tb, n)
	cat, err := packs.LoadBuiltin()
	if err != nil {
		tb.Fatalf("load the builtin packs: %v", err)
	}
	pack, err := cat.Get("kubernetes", "")
	if err != nil {
		tb.Fatalf("kubernetes pack: %v", err)
	}
	in := protocol.Intent{ID: "bench", Action: "add_node", Pack: "kubernetes", TargetResource: "bench", TargetResourceType: "kubernetes.cluster",
		Parameters:  map[string]string{"cluster_name": "bench", "cni": "calico", "container_runtime": "containerd", "storage": "longhorn"},
		Constraints: map[string]string{"environment": "prod", "region": "eu-central", "require_ha_control_plane": "true"}}
	for _, nm := range m.Masters {
		in.Hosts = append(in.Hosts, protocol.Host{Name: nm.Name.ValueString(), Address: nm.Address.ValueString(), Role: protocol.RoleMaster})
	}
	for _, nm := range m.Workers {
		in.Hosts = append(in.Hosts, protocol.Host{Name: nm.Name.ValueString(), Address: nm.Address.ValueString(), Role: protocol.RoleWorker})
	}
	for i := range added {
		name, addr := fmt.Sprintf("added-%d", i+1), fmt.Sprintf("10.2.%d.%d", i/250, i%250+1)
		in.Hosts = append(in.Hosts, protocol.Host{Name: name, Address: addr, Role: protocol.RoleWorker})
		in.Targets = append(in.Targets, name)
		m.Workers = append(m.Workers, nodeModel{Name: types.StringValue(name), Address: types.StringValue(addr), Port: types.Int64Null()})
	}
	now := time.Date(2026, 12, 1, 13, 0, 0, 0, time.UTC)
	p, err := planner.Build(planner.Input{PlanID: "op-add", Intent: in, Pack: pack, Now: now})
	if err != nil {
		tb.Fatalf("plan an add_node of %d workers: %v", added, err)
	}
	op := intentOp{Action: "add_node", Targets: in.Targets, ID: "op-add", Composed: &planner.Composed{Pack: pack, Plan: p}}
	c := m.computed()
	before := recordedEvidence(c)
	ops := []intentOp{op}
	*c.PlanSummary = types.StringValue(planSummary(ops))
	renderOpViews(ops, nil, intent.Actor{}).set(c)
	results := []opResult{{Op: op, Result: completedResult(tb, p, now)}}
	caps := func(last opResult, _ []protocol.Artifact) []protocol.Capability {
		return intent.Provided(pack, last.Result.Capabilities, nil, clusterExportValues(pack, m))
	}
	handle := func([]protocol.Artifact, []protocol.Capability) intent.Handle { return clusterHandle(m, pack) }
	c.record(results, artifactsFromList(*c.Artifacts), caps, handle)
	keepPriorEvidence(c, before, nil)
	return m
}

// The state keeps the create's evidence after an add_node, and still
// grows by less than 2 KB per node beyond its fixed part: measured
// between 100 and 1,000 nodes, each with a tenth more workers added. The
// create's checks of the nodes add_node did not touch stay in state.
func TestClusterStateAfterAddNodeUnder2KBPerNode(t *testing.T) {
	smallModel, largeModel := addedNodes(t, 100, 10), addedNodes(t, 1000, 100)
	for _, m := range []*clusterModel{smallModel, largeModel} {
		kept := false
		for _, e := range recordedEvidence(m.computed()) {
			if e.Instance == "prepare-network[worker-1]" {
				kept = true
			}
		}
		if !kept {
			t.Fatalf("the create's evidence of prepare-network[worker-1] is not in state after add_node")
		}
	}
	_, small := stateSizes(t, smallModel)
	_, large := stateSizes(t, largeModel)
	perNode := float64(large-small) / 990
	t.Logf("state after a create and an add_node: %d B at 110 nodes, %d B at 1,100: %.0f B per node beyond the fixed part", small, large, perNode)
	if perNode >= 2048 {
		t.Errorf("the state grows by %.0f B per node, want under 2,048", perNode)
	}
}
