package provider

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

var (
	_ resource.ResourceWithConfigure      = &KubernetesClusterResource{}
	_ resource.ResourceWithModifyPlan     = &KubernetesClusterResource{}
	_ resource.ResourceWithValidateConfig = &KubernetesClusterResource{}
	_ resource.ResourceWithImportState    = &KubernetesClusterResource{}
)

// KubernetesClusterResource is cp_kubernetes_cluster.
type KubernetesClusterResource struct {
	data *providerData
	now  func() time.Time
}

// NewKubernetesClusterResource is the constructor listed by the provider.
func NewKubernetesClusterResource() resource.Resource {
	return &KubernetesClusterResource{now: time.Now}
}

// Metadata sets the type name.
func (r *KubernetesClusterResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_kubernetes_cluster"
}

// Configure receives the provider data.
func (r *KubernetesClusterResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = configureData(req.ProviderData, &resp.Diagnostics)
}

// ValidateConfig checks what needs neither SSH nor the provider: HA rules,
// node names and parameters.
func (r *KubernetesClusterResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	if !req.Config.Raw.IsFullyKnown() {
		return // checked again at plan time, when the values are known
	}
	var m clusterModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	validateCluster(ctx, &m, nil, &resp.Diagnostics)
}

// ModifyPlan resolves the operation apply will run and shows its DAG.
func (r *KubernetesClusterResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		var state clusterModel
		resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
		if state.DeletionProtection.ValueBool() {
			addAttrError(&resp.Diagnostics, path.Root("deletion_protection"), "Deletion protection is on",
				fmt.Sprintf("cluster %s has deletion_protection = true; set it to false and apply before destroying.", state.Name.ValueString()))
		}
		return
	}
	if r.data == nil || !req.Config.Raw.IsFullyKnown() {
		return
	}
	var plan clusterModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	var state *clusterModel
	if !req.State.Raw.IsNull() {
		state = &clusterModel{}
		resp.Diagnostics.Append(req.State.Get(ctx, state)...)
	}
	if resp.Diagnostics.HasError() {
		return
	}
	if plan.Environment.IsUnknown() || plan.Environment.IsNull() {
		plan.Environment = types.StringValue(r.data.Environment)
	}
	// Everything that needs no SSH is checked before anything is planned.
	validateCluster(ctx, &plan, r.data, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	ops := r.clusterOps(&plan, state, r.now(), &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	if len(ops) > 0 {
		_, access := clusterHosts(&plan, r.data, &resp.Diagnostics)
		checkAccessFiles(access, &resp.Diagnostics)
		checkDecisions(ops, plan.Approvals, plan.Interventions, &resp.Diagnostics)
		if resp.Diagnostics.HasError() {
			return
		}
	}
	if len(ops) == 0 && state != nil {
		keepComputed(&plan, state)
	} else {
		setPlanned(&plan, ops)
	}
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
}

// keepComputed copies the state's computed attributes: nothing will run,
// so nothing may change (no perpetual diffs).
func keepComputed(plan, state *clusterModel) {
	plan.ID = state.ID
	plan.PlanSummary, plan.PlanAdvanced, plan.PlannedJobs = state.PlanSummary, state.PlanAdvanced, state.PlannedJobs
	plan.Operation, plan.Artifacts, plan.Evidence = state.Operation, state.Artifacts, state.Evidence
	plan.Capabilities, plan.Nodes, plan.Health = state.Capabilities, state.Nodes, state.Health
	plan.APIEndpoint, plan.Handle = state.APIEndpoint, state.Handle
	if plan.ExposeKubeconfig.ValueBool() == state.ExposeKubeconfig.ValueBool() {
		plan.Kubeconfig = state.Kubeconfig
	} else {
		plan.Kubeconfig = types.StringUnknown()
	}
}

// setPlanned shows the operations' DAG and marks what apply computes.
func setPlanned(plan *clusterModel, ops []intentOp) {
	summary, advanced := planTexts(ops)
	plan.ID = types.StringValue(plan.Name.ValueString())
	plan.PlanSummary, plan.PlanAdvanced = types.StringValue(summary), types.StringValue(advanced)
	plan.PlannedJobs = plannedJobsList(ops)
	plan.Operation = types.ObjectUnknown(operationType.AttrTypes)
	plan.Artifacts = types.ListUnknown(artifactType)
	plan.Evidence = types.ListUnknown(evidenceType)
	plan.Capabilities = types.ListUnknown(capabilityType)
	plan.Nodes = types.ListUnknown(clusterNodeType)
	plan.Health = types.StringUnknown()
	plan.Handle = types.StringUnknown()
	plan.Kubeconfig = types.StringUnknown()
	if len(plan.Masters) > 0 {
		plan.APIEndpoint = types.StringValue(apiEndpoint(plan))
	}
}

func apiEndpoint(m *clusterModel) string {
	if ep := m.Parameters["control_plane_endpoint"]; ep != "" {
		return "https://" + ep
	}
	return fmt.Sprintf("https://%s:6443", m.Masters[0].Address.ValueString())
}
