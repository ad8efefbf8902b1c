package provider

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

var (
	_ resource.ResourceWithConfigure      = &TempoResource{}
	_ resource.ResourceWithModifyPlan     = &TempoResource{}
	_ resource.ResourceWithValidateConfig = &TempoResource{}
)

// TempoResource is cp_tempo: the tempo pack's install on a cluster, with
// object storage bound or resolved by policy (seed scenario 3).
type TempoResource struct {
	inner ScenarioResource
}

// NewTempoResource is the constructor listed by the provider.
func NewTempoResource() resource.Resource {
	return &TempoResource{inner: ScenarioResource{now: time.Now}}
}

type tempoModel struct {
	ID             types.String          `tfsdk:"id"`
	Name           types.String          `tfsdk:"name"`
	Version        types.String          `tfsdk:"version"`
	Environment    types.String          `tfsdk:"environment"`
	ClusterHandle  types.String          `tfsdk:"cluster_handle"`
	ObjectStorage  *boundCandidateModel  `tfsdk:"object_storage"`
	Candidates     []boundCandidateModel `tfsdk:"candidates"`
	Parameters     map[string]string     `tfsdk:"parameters"`
	Customizations *customizationModel   `tfsdk:"customizations"`
	PlanPatches    []planPatchModel      `tfsdk:"plan_patches"`
	Approvals      []approvalModel       `tfsdk:"approvals"`
	Interventions  []interventionModel   `tfsdk:"interventions"`
	SSH            *resourceSSHModel     `tfsdk:"ssh"`
	Timeouts       timeouts.Value        `tfsdk:"timeouts"`

	PlanSummary  types.String `tfsdk:"plan_summary"`
	PlanAdvanced types.String `tfsdk:"plan"`
	PlannedJobs  types.List   `tfsdk:"planned_jobs"`
	Operation    types.Object `tfsdk:"operation"`
	Artifacts    types.List   `tfsdk:"artifacts"`
	Evidence     types.List   `tfsdk:"evidence"`
	Capabilities types.List   `tfsdk:"capabilities"`
	Handle       types.String `tfsdk:"handle"`
}

func (t *tempoModel) scenario() *scenarioModel {
	s := &scenarioModel{
		ID: t.ID, Pack: types.StringValue("tempo"), Version: t.Version, Action: types.StringValue("install"),
		DestroyAction: types.StringValue("uninstall"), Name: t.Name, Environment: t.Environment, ClusterHandle: t.ClusterHandle,
		Parameters: t.Parameters, Candidates: t.Candidates, Customizations: t.Customizations, PlanPatches: t.PlanPatches,
		Approvals: t.Approvals, Interventions: t.Interventions, SSH: t.SSH, Timeouts: t.Timeouts,
		PlanSummary: t.PlanSummary, PlanAdvanced: t.PlanAdvanced, PlannedJobs: t.PlannedJobs, Operation: t.Operation,
		Artifacts: t.Artifacts, Evidence: t.Evidence, Capabilities: t.Capabilities, Handle: t.Handle,
	}
	if t.ObjectStorage != nil {
		os := *t.ObjectStorage
		if os.Capability.IsNull() || os.Capability.IsUnknown() || os.Capability.ValueString() == "" {
			os.Capability = types.StringValue("object_storage.s3")
		}
		s.Candidates = append([]boundCandidateModel{os}, s.Candidates...)
	}
	return s
}

func (t *tempoModel) from(s *scenarioModel) {
	t.ID, t.Environment = s.ID, s.Environment
	t.PlanSummary, t.PlanAdvanced, t.PlannedJobs, t.Operation = s.PlanSummary, s.PlanAdvanced, s.PlannedJobs, s.Operation
	t.Artifacts, t.Evidence, t.Capabilities, t.Handle = s.Artifacts, s.Evidence, s.Capabilities, s.Handle
}

// Metadata sets the type name.
func (r *TempoResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_tempo"
}

// Configure receives the provider data.
func (r *TempoResource) Configure(ctx context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.inner.Configure(ctx, req, resp)
}

// Schema of cp_tempo.
func (r *TempoResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	attrs := map[string]schema.Attribute{
		"id": schema.StringAttribute{MarkdownDescription: "`tempo/<name>`.", Computed: true,
			PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
		"name": schema.StringAttribute{MarkdownDescription: "Name of the Tempo instance.", Required: true,
			PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()}},
		"version": rOptStr("Version constraint of the `tempo` pack."),
		"environment": schema.StringAttribute{MarkdownDescription: "Environment whose capability policy applies; defaults to the provider's.",
			Optional: true, Computed: true, PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
		"cluster_handle": schema.StringAttribute{MarkdownDescription: "Handle of the `cp_kubernetes_cluster` Tempo runs on; binds `kubernetes.cluster` and `secret.store`.",
			Required: true},
		"object_storage": schema.SingleNestedAttribute{
			MarkdownDescription: "An existing S3 provider to bind (e.g. from `cp_capability`). Without it, `object_storage.s3` is resolved under the provider policy: " +
				"created as a MinIO sub-operation where allowed, or stopped at an approval gate where the policy requires approval.",
			Optional: true,
			Attributes: tempoStorageAttrs(map[string]schema.Attribute{
				"name":       schema.StringAttribute{MarkdownDescription: "Provider name.", Required: true},
				"provider":   schema.StringAttribute{MarkdownDescription: "Provider kind, e.g. `aws_s3`.", Required: true},
				"capability": rOptStr("Capability key; defaults to `object_storage.s3`."),
				"attributes": rOptMap("Attributes: region, encryption, capacity_gb, endpoint (the S3 API URL, given to the jobs with the credentials)..."),
			}),
		},
		"candidates":     resCandidatesAttr(),
		"parameters":     rOptMap("Parameters of the `tempo` pack, e.g. `retention`."),
		"customizations": resCustomizationsAttr(),
		"plan_patches":   resPlanPatchesAttr(),
		"approvals":      resApprovalsAttr(),
		"interventions":  resInterventionsAttr(),
		"ssh":            resourceSSHAttr(),
		"timeouts":       timeouts.Attributes(ctx, timeouts.Opts{Create: true, Update: true, Delete: true}),
	}
	intentComputedAttrs(attrs)
	resp.Schema = schema.Schema{
		MarkdownDescription: "Installs Grafana Tempo on a cluster (seed scenario 3). Tempo requires `kubernetes.cluster`, `object_storage.s3` and `secret.store`; " +
			"it provides `observability.tracing` with its endpoints. The plan shows how each requirement was resolved — bound, created as a " +
			"sub-operation (MinIO), or waiting at a gate with its options and roles — and apply proceeds once the gate is approved in `approvals`.",
		Attributes: attrs,
	}
}

// ValidateConfig checks what needs neither SSH nor the provider: ssh and
// timeouts.
func (r *TempoResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	if !req.Config.Raw.IsFullyKnown() {
		return // checked again at plan time, when the values are known
	}
	var m tempoModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	validateTempo(ctx, &m, nil, &resp.Diagnostics)
}

// ModifyPlan shows the DAG.
func (r *TempoResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.inner.data == nil || !req.Config.Raw.IsFullyKnown() {
		return
	}
	var plan tempoModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	plan.readWriteOnly(ctx, req.Config, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	s := plan.scenario()
	if s.Environment.IsUnknown() || s.Environment.IsNull() {
		s.Environment = types.StringValue(r.inner.data.Environment)
	}
	s.ID = types.StringValue("tempo/" + plan.Name.ValueString())
	if !req.State.Raw.IsNull() {
		var state tempoModel
		resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
		if sameIntent(ctx, req) && operationCompleted(state.Operation) {
			s.computed().keep(state.scenario().computed())
			plan.from(s)
			plan.clearWriteOnly()
			resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
			return
		}
	}
	validateTempo(ctx, &plan, r.inner.data, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	spec := scenarioSpecOf(r.inner.data, s, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	spec.Paths = tempoPaths(&plan)
	op := spec.compose(r.inner.data, "install", r.inner.now(), &resp.Diagnostics)
	if op == nil {
		return
	}
	checkAccessFiles(spec.Access, &resp.Diagnostics)
	checkCredentialsBound(op, s.Candidates, plan.bindingPath(), &resp.Diagnostics)
	checkDecisions([]intentOp{*op}, plan.Approvals, plan.Interventions, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	s.computed().planned([]intentOp{*op})
	plan.from(s)
	plan.clearWriteOnly()
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
}

// Create installs Tempo.
func (r *TempoResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan tempoModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	plan.readWriteOnly(ctx, req.Config, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, d := plan.Timeouts.Create(ctx, defaultCreateTimeout)
	resp.Diagnostics.Append(d...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	s := plan.scenario()
	r.inner.run(ctx, s, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	plan.from(s)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// Read keeps the state.
func (r *TempoResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state tempoModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

// Update installs again with the new intent; finished jobs are skipped.
func (r *TempoResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state tempoModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	plan.readWriteOnly(ctx, req.Config, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	if !plan.Operation.IsUnknown() {
		resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
		return
	}
	timeout, d := plan.Timeouts.Update(ctx, defaultCreateTimeout)
	resp.Diagnostics.Append(d...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	s := plan.scenario()
	r.inner.run(ctx, s, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		state.Operation = types.ObjectNull(operationType.AttrTypes)
		resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
		return
	}
	plan.from(s)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// Delete uninstalls Tempo.
func (r *TempoResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state tempoModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, d := state.Timeouts.Delete(ctx, defaultDeleteTimeout)
	resp.Diagnostics.Append(d...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	s := state.scenario()
	spec := scenarioSpecOf(r.inner.data, s, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	spec.Customization, spec.PatchesModel = nil, nil
	if op := spec.compose(r.inner.data, "uninstall", r.inner.now(), &resp.Diagnostics); op != nil {
		runOps(ctx, r.inner.data, []intentOp{*op}, spec.Inputs, &resp.Diagnostics)
	}
}
