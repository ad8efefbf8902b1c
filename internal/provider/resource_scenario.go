package provider

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/intentops/terraform-provider-cp/internal/operation"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

var (
	_ resource.ResourceWithConfigure      = &ScenarioResource{}
	_ resource.ResourceWithModifyPlan     = &ScenarioResource{}
	_ resource.ResourceWithValidateConfig = &ScenarioResource{}
)

// ScenarioResource is cp_scenario: any pack action as a resource.
type ScenarioResource struct {
	data *providerData
	now  func() time.Time
}

// NewScenarioResource is the constructor listed by the provider.
func NewScenarioResource() resource.Resource { return &ScenarioResource{now: time.Now} }

type scenarioModel struct {
	ID             types.String          `tfsdk:"id"`
	Pack           types.String          `tfsdk:"pack"`
	Version        types.String          `tfsdk:"version"`
	Action         types.String          `tfsdk:"action"`
	DestroyAction  types.String          `tfsdk:"destroy_action"`
	Name           types.String          `tfsdk:"name"`
	Environment    types.String          `tfsdk:"environment"`
	Hosts          []hostResModel        `tfsdk:"hosts"`
	ClusterHandle  types.String          `tfsdk:"cluster_handle"`
	Parameters     map[string]string     `tfsdk:"parameters"`
	Constraints    map[string]string     `tfsdk:"constraints"`
	Candidates     []boundCandidateModel `tfsdk:"candidates"`
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

type hostResModel struct {
	Name    types.String      `tfsdk:"name"`
	Address types.String      `tfsdk:"address"`
	Port    types.Int64       `tfsdk:"port"`
	Role    types.String      `tfsdk:"role"`
	Labels  map[string]string `tfsdk:"labels"`
	Taints  []string          `tfsdk:"taints"`
	SSH     *hostSSHModel     `tfsdk:"ssh"`
}

func (m *scenarioModel) computed() computed {
	return computed{PlanSummary: &m.PlanSummary, PlanAdvanced: &m.PlanAdvanced, PlannedJobs: &m.PlannedJobs, Operation: &m.Operation,
		Artifacts: &m.Artifacts, Evidence: &m.Evidence, Caps: &m.Capabilities, Handle: &m.Handle}
}

// Metadata sets the type name.
func (r *ScenarioResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_scenario"
}

// Configure receives the provider data.
func (r *ScenarioResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = configureData(req.ProviderData, &resp.Diagnostics)
}

// spec converts the model; hosts come from the model, then from the
// cluster handle.
func scenarioSpecOf(data *providerData, m *scenarioModel, diags *diag.Diagnostics) scenarioSpec {
	s := scenarioSpec{
		Pack: m.Pack.ValueString(), Version: strOr(m.Version, ""), Name: m.Name.ValueString(),
		Environment: strOr(m.Environment, data.Environment), Params: m.Parameters, Constraints: m.Constraints,
		Candidates: toCandidates(candidateModels(m.Candidates)), Customization: toCustomization(m.Customizations), PatchesModel: m.PlanPatches,
		Inputs: runInputs{Approvals: m.Approvals, Interventions: m.Interventions},
	}
	s.addStorageCredentials(m.Candidates)
	base := resourceAccess(data, m.SSH)
	for _, h := range m.Hosts {
		host := protocol.Host{Name: h.Name.ValueString(), Address: h.Address.ValueString(), Port: intOr(h.Port, 0),
			Role: strOr(h.Role, "node"), Labels: h.Labels, Taints: h.Taints}
		acc := base
		if h.SSH != nil {
			acc = acc.Merge(operation.Access{User: strOr(h.SSH.User, ""), PrivateKeyFile: strOr(h.SSH.PrivateKeyFile, "")})
		}
		s.Hosts = append(s.Hosts, host)
		s.Access = append(s.Access, operation.HostAccess{Host: host, Access: acc})
	}
	if hs := strOr(m.ClusterHandle, ""); hs != "" {
		ch, err := parseClusterHandle(hs)
		if err != nil {
			addAttrError(diags, path.Root("cluster_handle"), "Invalid cluster handle", err.Error())
			return s
		}
		s.applyCluster(ch, base)
	}
	return s
}

// applyCluster adds the cluster's hosts (when none are given), artifacts
// and capabilities to the spec.
func (s *scenarioSpec) applyCluster(ch *clusterHandleData, access operation.Access) {
	if len(s.Hosts) == 0 {
		for _, h := range ch.hosts() {
			s.Hosts = append(s.Hosts, h)
			s.Access = append(s.Access, operation.HostAccess{Host: h, Access: access})
		}
	}
	s.State.Artifacts = append(s.State.Artifacts, ch.artifacts()...)
	s.Inputs.Artifacts = append(s.Inputs.Artifacts, ch.artifacts()...)
	s.Candidates = append(s.Candidates, ch.candidates()...)
	if s.Constraints == nil {
		s.Constraints = map[string]string{}
	}
	if _, ok := s.Constraints["region"]; !ok && ch.Region != "" {
		s.Constraints["region"] = ch.Region
	}
}

// ValidateConfig checks what needs neither SSH nor the provider: hosts,
// ssh and timeouts.
func (r *ScenarioResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	if !req.Config.Raw.IsFullyKnown() {
		return // checked again at plan time, when the values are known
	}
	var m scenarioModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	validateScenario(ctx, &m, nil, &resp.Diagnostics)
}

// ModifyPlan shows the DAG of the action apply will run. Nothing changed
// in the intent means nothing to run and no diff.
func (r *ScenarioResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.data == nil || !req.Config.Raw.IsFullyKnown() {
		return
	}
	var plan scenarioModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	plan.readWriteOnly(ctx, req.Config, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	if plan.Environment.IsUnknown() || plan.Environment.IsNull() {
		plan.Environment = types.StringValue(r.data.Environment)
	}
	if plan.Action.IsUnknown() || plan.Action.IsNull() {
		plan.Action = types.StringValue("install")
	}
	plan.ID = types.StringValue(plan.Pack.ValueString() + "/" + plan.Name.ValueString())
	if !req.State.Raw.IsNull() {
		var state scenarioModel
		resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
		if sameIntent(ctx, req) && operationCompleted(state.Operation) {
			plan.computed().keep(state.computed())
			plan.clearWriteOnly()
			resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
			return
		}
	}
	// Everything that needs no SSH is checked before anything is planned.
	validateScenario(ctx, &plan, r.data, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	spec := scenarioSpecOf(r.data, &plan, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	spec.Paths = scenarioPaths(&plan)
	op := spec.compose(r.data, plan.Action.ValueString(), r.now(), &resp.Diagnostics)
	if op == nil {
		return
	}
	checkAccessFiles(spec.Access, &resp.Diagnostics)
	checkCredentialsBound(op, plan.Candidates, scenarioBindingPath, &resp.Diagnostics)
	checkDecisions([]intentOp{*op}, plan.Approvals, plan.Interventions, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	plan.computed().planned([]intentOp{*op})
	plan.clearWriteOnly()
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
}

// Create runs the action; when it does not complete nothing is saved and
// applying again resumes.
func (r *ScenarioResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan scenarioModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	plan.readWriteOnly(ctx, req.Config, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, d := plan.Timeouts.Create(ctx, defaultCreateTimeout)
	resp.Diagnostics.Append(d...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	r.run(ctx, &plan, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *ScenarioResource) run(ctx context.Context, m *scenarioModel, diags *diag.Diagnostics) {
	spec := scenarioSpecOf(r.data, m, diags)
	if diags.HasError() {
		return
	}
	op := spec.compose(r.data, strOr(m.Action, "install"), r.now(), diags)
	if op == nil {
		return
	}
	results := runOps(ctx, r.data, []intentOp{*op}, spec.Inputs, diags)
	if diags.HasError() {
		return
	}
	kind := op.Composed.Pack.ID
	m.computed().record(results, nil, func(arts []protocol.Artifact, caps []protocol.Capability) string {
		return scenarioHandle(kind, m.Name.ValueString(), arts, caps)
	})
	if m.Environment.IsNull() || m.Environment.IsUnknown() {
		m.Environment = types.StringValue(r.data.Environment)
	}
}

// Read keeps the state: the scenario's evidence is checked by the next
// apply, which skips what still holds.
func (r *ScenarioResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state scenarioModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

// Update runs the action again with the new intent; finished jobs whose
// evidence holds are skipped. On failure the previous state is kept so the
// next plan runs it again.
func (r *ScenarioResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state scenarioModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	plan.readWriteOnly(ctx, req.Config, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, d := plan.Timeouts.Update(ctx, defaultCreateTimeout)
	resp.Diagnostics.Append(d...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if !plan.Operation.IsUnknown() {
		resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
		return
	}
	var runDiags diag.Diagnostics
	r.run(ctx, &plan, &runDiags)
	resp.Diagnostics.Append(runDiags...)
	if runDiags.HasError() {
		state.Operation = types.ObjectNull(operationType.AttrTypes)
		resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// Delete runs destroy_action when set (e.g. uninstall); otherwise it only
// forgets the resource.
func (r *ScenarioResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state scenarioModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	action := strOr(state.DestroyAction, "")
	if resp.Diagnostics.HasError() || action == "" {
		return
	}
	timeout, d := state.Timeouts.Delete(ctx, defaultDeleteTimeout)
	resp.Diagnostics.Append(d...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	spec := scenarioSpecOf(r.data, &state, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	spec.Customization, spec.PatchesModel = nil, nil
	op := spec.compose(r.data, action, r.now(), &resp.Diagnostics)
	if op == nil {
		return
	}
	runOps(ctx, r.data, []intentOp{*op}, spec.Inputs, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		resp.Diagnostics.AddError("Destroy did not complete", fmt.Sprintf("%s %s did not complete; the resource stays in state. Fix the cause and destroy again.", spec.Pack, action))
	}
}
