package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/intentops/terraform-provider-cp/internal/intent"
)

var (
	_ resource.ResourceWithConfigure      = &KubernetesClusterResource{}
	_ resource.ResourceWithModifyPlan     = &KubernetesClusterResource{}
	_ resource.ResourceWithValidateConfig = &KubernetesClusterResource{}
	_ resource.ResourceWithImportState    = &KubernetesClusterResource{}
	_ resource.ResourceWithIdentity       = &KubernetesClusterResource{}
)

// KubernetesClusterResource is cp_kubernetes_cluster.
type KubernetesClusterResource struct{ intentResource[clusterModel] }

// NewKubernetesClusterResource is the constructor listed by the provider.
func NewKubernetesClusterResource() resource.Resource {
	r := &KubernetesClusterResource{}
	r.init(clusterHooks{r: r})
	return r
}

// Metadata sets the type name.
func (r *KubernetesClusterResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_kubernetes_cluster"
}

// Read refreshes node health over SSH when refresh_health is on. A worker
// that is no longer registered is dropped from state, so the next plan
// shows it as drift and plans add_node for it again.
func (r *KubernetesClusterResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state clusterModel
	stateWithInventory(ctx, &req.State, req.Private, &resp.Diagnostics)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() || r.data == nil {
		return
	}
	if state.RefreshHealth.ValueBool() {
		r.refreshHealth(ctx, &state, &resp.Diagnostics)
	}
	r.refreshEvidence(ctx, &state, &resp.Diagnostics)
	if usesInventory(&state) {
		// A worker no longer registered leaves the kept hosts too.
		keepInventory(ctx, resp.Private, &state, &resp.Diagnostics)
	}
	clusterHooks{r: r}.clearWriteOnly(&state)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
	setIdentity(ctx, clusterHooks{r: r}, &state, resp.Identity, &resp.Diagnostics)
}

// refuseDeletion is deletion protection, at plan and at destroy.
func refuseDeletion(m *clusterModel, diags *diag.Diagnostics) bool {
	if !m.DeletionProtection.ValueBool() {
		return false
	}
	addAttrError(diags, path.Root("deletion_protection"), "Deletion protection is on",
		fmt.Sprintf("cluster %s has deletion_protection = true; set it to false and apply before destroying.", m.Name.ValueString()))
	return true
}

// keepComputed copies the state's computed attributes: nothing will run,
// so nothing may change (no perpetual diffs).
func keepComputed(plan, state *clusterModel) {
	plan.ID = state.ID
	plan.computed().keep(state.computed())
	plan.Nodes, plan.Health = state.Nodes, state.Health
	plan.APIEndpoint = state.APIEndpoint
	if plan.ExposeKubeconfig.ValueBool() == state.ExposeKubeconfig.ValueBool() {
		plan.Kubeconfig = state.Kubeconfig
	} else {
		plan.Kubeconfig = types.StringUnknown()
	}
}

// setPlanned shows the operations' DAG and marks what apply computes.
func setPlanned(plan *clusterModel, ops []intentOp) {
	plan.ID = types.StringValue(plan.Name.ValueString())
	plan.computed().planned(ops)
	plan.Nodes = types.ListUnknown(clusterNodeType)
	plan.Health = types.StringUnknown()
	plan.Kubeconfig = types.StringUnknown()
	if len(plan.Masters) > 0 {
		plan.APIEndpoint = types.StringValue(apiEndpoint(plan))
	}
}

// apiEndpoint is the API server's URL: the control-plane endpoint when
// given, else the first master's address on port 6443.
func apiEndpoint(m *clusterModel) string {
	if ep, err := intent.NormalizeEndpoint(m.Parameters[intent.EndpointParam]); err == nil {
		return "https://" + ep
	}
	return fmt.Sprintf("https://%s:6443", m.Masters[0].Address.ValueString())
}
