package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/intentops/terraform-provider-cp/internal/operation"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// refreshHealth asks the API server for the nodes through the first
// reachable master. Workers no longer registered are dropped from state so
// the next plan shows them as drift (add_node); an unreachable cluster is a
// warning, not an error, and leaves the state as it was.
func (r *KubernetesClusterResource) refreshHealth(ctx context.Context, m *clusterModel, diags *diag.Diagnostics) {
	r.observeNodes(ctx, m, true, diags)
}

// observeNodes records each node's Ready condition as the API server
// reports it. With dropMissing, workers the API server does not know are
// removed from m (drift); after an apply they are kept and shown not Ready.
func (r *KubernetesClusterResource) observeNodes(ctx context.Context, m *clusterModel, dropMissing bool, diags *diag.Diagnostics) {
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
	for _, n := range m.Masters {
		got, ok := byName[n.Name.ValueString()]
		elems = append(elems, nodeObject(n.Name.ValueString(), protocol.RoleMaster, ok && got.Ready))
	}
	var kept []nodeModel
	for _, n := range m.Workers {
		got, ok := byName[n.Name.ValueString()]
		if !ok && dropMissing {
			diags.AddAttributeWarning(path.Root("workers"), "Worker not registered",
				fmt.Sprintf("worker %s is not registered with the API server; the next plan adds it again (add_node).", n.Name.ValueString()))
			continue
		}
		kept = append(kept, n)
		elems = append(elems, nodeObject(n.Name.ValueString(), protocol.RoleWorker, got.Ready))
	}
	if dropMissing {
		m.Workers = kept
	}
	m.Nodes = types.ListValueMust(clusterNodeType, elems)
	m.Health = types.StringValue(healthOf(m.Nodes))
}

func nodeObject(name, role string, ready bool) attr.Value {
	return types.ObjectValueMust(clusterNodeType.AttrTypes, map[string]attr.Value{
		"name": types.StringValue(name), "role": types.StringValue(role), "ready": types.BoolValue(ready),
	})
}
