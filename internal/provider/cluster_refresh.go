package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/intentops/terraform-provider-cp/internal/intent"
	"github.com/intentops/terraform-provider-cp/internal/operation"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// refreshHealth asks the API server for the nodes through the first
// reachable master. Workers no longer registered are dropped from state so
// the next plan shows them as drift (add_node); labels and taints the
// configuration sets that differ on the API server are recorded as the API
// server has them, so the next plan shows the change to apply (relabel).
// An unreachable cluster is a warning, not an error, and leaves the state
// as it was.
func (r *KubernetesClusterResource) refreshHealth(ctx context.Context, m *clusterModel, diags *diag.Diagnostics) {
	r.observeNodes(ctx, m, true, diags)
}

// refreshEvidence checks the recorded evidence of the cluster's
// completed jobs again on its hosts, as for every intent resource
// (intent_refresh.go), so the next plan repairs what drifted, and reads
// the summary of a completed operation as done.
func (r *KubernetesClusterResource) refreshEvidence(ctx context.Context, m *clusterModel, diags *diag.Diagnostics) {
	refreshIntent(ctx, &r.intentBase, clusterHooks{r: r}, m, diags)
}

// observeNodes records each node's Ready condition as the API server
// reports it, from one node list read through one master. With refresh,
// workers the API server does not know are removed from m and the
// managed labels and taints of the others are read back (drift); after an
// apply (refresh false) the state keeps what was applied and missing
// workers are shown not Ready.
func (r *KubernetesClusterResource) observeNodes(ctx context.Context, m *clusterModel, refresh bool, diags *diag.Diagnostics) {
	var local diag.Diagnostics
	_, access := clusterHosts(m, r.data, &local)
	if local.HasError() {
		return
	}
	var nodes []operation.Node
	var lastErr error
	for _, a := range access {
		if a.Host.Role != protocol.RoleMaster {
			continue
		}
		ns, err := operation.ListNodes(ctx, a, nil)
		if err == nil {
			nodes, lastErr = ns, nil
			break
		}
		lastErr = err
	}
	if lastErr != nil {
		diags.AddWarning("Cannot refresh cluster health", fmt.Sprintf("%v\n\nThe state keeps the last known health; set refresh_health = false to skip this check.", lastErr))
		m.Health = types.StringValue("unknown")
		if m.Nodes.IsUnknown() || m.Nodes.IsNull() {
			m.Nodes = types.ListValueMust(clusterNodeType, nil)
		}
		return
	}
	byName := map[string]operation.Node{}
	for _, n := range nodes {
		byName[n.Name] = n
	}
	var elems []attr.Value
	for i, n := range m.Masters {
		got, ok := byName[n.Name.ValueString()]
		if ok && refresh {
			m.Masters[i] = observeLabels(n, got, path.Root("masters").AtListIndex(i), diags)
		}
		elems = append(elems, nodeObject(n.Name.ValueString(), protocol.RoleMaster, ok && got.Ready))
	}
	var kept []nodeModel
	for i, n := range m.Workers {
		got, ok := byName[n.Name.ValueString()]
		if !ok && refresh {
			diags.AddAttributeWarning(path.Root("workers"), "Worker not registered",
				fmt.Sprintf("worker %s is not registered with the API server; the next plan adds it again (add_node).", n.Name.ValueString()))
			continue
		}
		if refresh {
			n = observeLabels(n, got, path.Root("workers").AtListIndex(i), diags)
		}
		kept = append(kept, n)
		elems = append(elems, nodeObject(n.Name.ValueString(), protocol.RoleWorker, got.Ready))
	}
	if refresh {
		m.Workers = kept
	}
	m.Nodes = types.ListValueMust(clusterNodeType, elems)
	m.Health = types.StringValue(healthOf(m.Nodes))
}

// observeLabels returns n with the labels and taints it sets as the API
// server has them, and warns when they differ.
func observeLabels(n nodeModel, got operation.Node, at path.Path, diags *diag.Diagnostics) nodeModel {
	labels, ld := intent.ObservedLabels(n.Labels, got.Labels)
	taints, td := intent.ObservedTaints(n.Taints, got.Taints)
	if !ld && !td {
		return n
	}
	n.Labels, n.Taints = labels, taints
	diags.AddAttributeWarning(at, "Node labels or taints changed outside Terraform",
		fmt.Sprintf("node %s has labels or taints on the API server that differ from the configuration; the state records what the API server has, and the next plan applies the configuration (relabel).", n.Name.ValueString()))
	return n
}

func nodeObject(name, role string, ready bool) attr.Value {
	return types.ObjectValueMust(clusterNodeType.AttrTypes, map[string]attr.Value{
		"name": types.StringValue(name), "role": types.StringValue(role), "ready": types.BoolValue(ready),
	})
}
