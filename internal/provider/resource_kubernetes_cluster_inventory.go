package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/intentops/terraform-provider-cp/internal/intent"
)

// The cluster's resource methods around the intent skeleton's, for
// inventory_file (cluster_inventory.go): the plan's hosts are read from
// the file and the state's from private state before the skeleton runs,
// and taken out of what is returned.

// ValidateConfig refuses hosts given twice; with an inventory file the
// rest is checked at plan, once the file is read (a destroy, whose file
// may be gone, does not read it).
func (r *KubernetesClusterResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var inv types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("inventory_file"), &inv)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if !inv.IsNull() {
		var masters, workers types.List
		resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("masters"), &masters)...)
		resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("workers"), &workers)...)
		if !masters.IsNull() || !workers.IsNull() {
			refuseTwoSources(&clusterModel{InventoryFile: inv, Masters: []nodeModel{}}, &resp.Diagnostics)
		}
		return
	}
	r.intentResource.ValidateConfig(ctx, req, resp)
}

// ModifyPlan plans with the inventory's hosts (intent skeleton), shows
// the file's SHA-256, and applies the masters' replacement rule the
// masters attribute applies to inline hosts.
func (r *KubernetesClusterResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	prior := stateWithInventory(ctx, &req.State, req.Private, &resp.Diagnostics)
	if prior == nil && !req.State.Raw.IsNull() {
		prior = getModel[clusterModel](ctx, req.State.Get, &resp.Diagnostics)
	}
	var plan *clusterModel
	var file types.String
	if !req.Plan.Raw.IsNull() {
		resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("inventory_file"), &file)...)
		plan = planInventory(ctx, &req.Plan, false, false, prior, &resp.Diagnostics)
	}
	if resp.Diagnostics.HasError() {
		return
	}
	before := len(resp.Diagnostics)
	r.intentResource.ModifyPlan(withInventoryHosts(ctx, plan), req, resp)
	own := resp.Diagnostics[before:]
	if plan != nil {
		own = inventoryDiags(plan, own)
	} else if prior != nil && usesInventory(prior) && req.Plan.Raw.IsNull() {
		own = inventoryDiags(prior, own)
	}
	resp.Diagnostics = append(resp.Diagnostics[:before:before], own...)
	if file.IsUnknown() {
		// The file is known at apply only: so is its SHA-256.
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("inventory_sha256"), types.StringUnknown())...)
	}
	if plan == nil && !resp.Diagnostics.HasError() {
		inlineAfterInventory(ctx, prior, req, resp)
	}
	if plan == nil || resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("inventory_sha256"), plan.InventorySHA256)...)
	if prior != nil && req.Config.Raw.IsFullyKnown() {
		inventoryReplacement(prior, plan, resp)
	}
}

// inlineAfterInventory applies the masters' replacement rule to a plan
// whose hosts are blocks again after an inventory file (mastersReplaced
// sees no masters in the state).
func inlineAfterInventory(ctx context.Context, prior *clusterModel, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if prior == nil || !usesInventory(prior) || resp.Plan.Raw.IsNull() || !req.Config.Raw.IsFullyKnown() {
		return
	}
	plan := getModel[clusterModel](ctx, resp.Plan.Get, &resp.Diagnostics)
	if resp.Diagnostics.HasError() || usesInventory(plan) {
		return
	}
	inventoryReplacement(prior, plan, resp)
}

// inventoryReplacement is mastersReplaced and parametersReplaced for a
// change whose hosts come from an inventory file, before or after: a
// change of the masters the cluster cannot make in place replaces it
// (with the warning saying why) or is refused, on inventory_file.
func inventoryReplacement(prior, plan *clusterModel, resp *resource.ModifyPlanResponse) {
	c, known := controlPlaneChange(prior.Masters, plan.Masters, prior.Parameters, plan.Parameters)
	if !known {
		return
	}
	switch {
	case c.Refused != nil:
		resp.Diagnostics.Append(inventoryDiags(plan, problemDiags(intent.Problems{*c.Refused}))...)
	case c.Replace:
		at := path.Root("inventory_sha256")
		switch {
		case len(c.ReasonPath) > 0 && c.ReasonPath[0].Name == "parameters":
			at = path.Root("parameters")
		case !usesInventory(plan):
			at = path.Root("masters") // blocks again after the file
		}
		resp.RequiresReplace = append(resp.RequiresReplace, at)
		var w diag.Diagnostics
		warnReplaced(&w, c)
		resp.Diagnostics.Append(inventoryDiags(plan, w)...)
	}
}

func problemDiags(ps intent.Problems) diag.Diagnostics {
	var d diag.Diagnostics
	addProblems(&d, ps)
	return d
}

// Create applies with the inventory's hosts and keeps them in private
// state.
func (r *KubernetesClusterResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	plan := planInventory(ctx, &req.Plan, req.Plan.Raw.IsNull(), true, nil, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	r.intentResource.Create(withInventoryHosts(ctx, plan), req, resp)
	if resp.State.Raw.IsNull() {
		return
	}
	keepInventory(ctx, resp.Private, plan, &resp.Diagnostics)
}

// Update applies with the hosts of the file (plan) and of private state
// (state). A failed update keeps the prior state and its hosts.
func (r *KubernetesClusterResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	stateWithInventory(ctx, &req.State, req.Private, &resp.Diagnostics)
	plan := planInventory(ctx, &req.Plan, req.Plan.Raw.IsNull(), true, nil, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	r.intentResource.Update(withInventoryHosts(ctx, plan), req, resp)
	if resp.Diagnostics.HasError() {
		var d diag.Diagnostics
		withoutInventoryHosts(ctx, &resp.State, &d)
		resp.Diagnostics.Append(d...)
		return
	}
	keepInventory(ctx, resp.Private, plan, &resp.Diagnostics)
}

// Delete destroys with the hosts kept in private state: the file may be
// gone.
func (r *KubernetesClusterResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	stateWithInventory(ctx, &req.State, req.Private, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	r.intentResource.Delete(ctx, req, resp)
}

// readConfig: the cluster has no write-only argument; it puts its
// inventory's hosts, read by the resource's method (planInventory), into
// the skeleton's plan.
func (clusterHooks) readConfig(ctx context.Context, m *clusterModel, _ tfsdk.Config, _ *diag.Diagnostics) {
	fillInventoryHosts(ctx, m)
}

// clearWriteOnly takes an inventory's hosts out of a plan or state
// before it is returned, so neither lists them; with blocks,
// inventory_sha256 is null (not the unknown the framework plans for a
// computed attribute, nor an earlier file's).
func (clusterHooks) clearWriteOnly(m *clusterModel) {
	if m.InventoryFile.IsNull() {
		m.InventorySHA256 = types.StringNull()
	}
	if usesInventory(m) {
		if len(m.Masters) > 0 {
			first := m.Masters[0]
			m.firstMaster = &first
		}
		m.Masters, m.Workers = nil, nil
	}
}

func (clusterHooks) checkPlanned(*clusterModel, []intentOp, *diag.Diagnostics) {}
