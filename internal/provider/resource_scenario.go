package provider

import (
	"context"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/intentops/terraform-provider-cp/internal/intent"
	"github.com/intentops/terraform-provider-cp/internal/operation"
)

var (
	_ resource.ResourceWithConfigure      = &ScenarioResource{}
	_ resource.ResourceWithModifyPlan     = &ScenarioResource{}
	_ resource.ResourceWithValidateConfig = &ScenarioResource{}
	_ resource.ResourceWithImportState    = &ScenarioResource{}
)

// ScenarioResource is cp_scenario: any pack action as a resource.
type ScenarioResource struct{ intentResource[scenarioModel] }

// NewScenarioResource is the constructor listed by the provider.
func NewScenarioResource() resource.Resource {
	r := &ScenarioResource{}
	r.init(scenarioHooks{r: r})
	return r
}

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
	Targets        []string              `tfsdk:"targets"`
	Parameters     map[string]string     `tfsdk:"parameters"`
	Constraints    map[string]string     `tfsdk:"constraints"`
	Candidates     []boundCandidateModel `tfsdk:"candidates"`
	Customizations *customizationModel   `tfsdk:"customizations"`
	PlanPatches    []planPatchModel      `tfsdk:"plan_patches"`
	Approvals      []approvalModel       `tfsdk:"approvals"`
	Interventions  []interventionModel   `tfsdk:"interventions"`
	SSH            *resourceSSHModel     `tfsdk:"ssh"`
	Timeouts       timeouts.Value        `tfsdk:"timeouts"`

	IntentConstraints

	// Computed.
	IntentComputed
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

// Metadata sets the type name.
func (r *ScenarioResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_scenario"
}

// ImportState takes the address of a host the action ran on (the first
// master's, for a scenario on a cluster), optionally with the scenario's
// id and SSH port: 10.0.0.11, postgresql/orders@10.0.0.11:2222. The state
// is the record cp keeps on those hosts after every apply.
func (r *ScenarioResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	importIntent(ctx, &r.intentBase, scenarioHooks{r: r}, "scenario", "<pack>/<name>", nil, req, resp)
}

// scenarioHooks are cp_scenario's part of the intent-resource skeleton.
type scenarioHooks struct {
	commonHooks[scenarioModel, *scenarioModel]
	r *ScenarioResource
}

func (scenarioHooks) validate(ctx context.Context, m *scenarioModel, data *providerData, diags *diag.Diagnostics) {
	validateScenario(ctx, m, data, diags)
}

func (scenarioHooks) prepare(m *scenarioModel, data *providerData) {
	if m.Environment.IsUnknown() || m.Environment.IsNull() {
		m.Environment = types.StringValue(data.Environment)
	}
	if m.Action.IsUnknown() || m.Action.IsNull() {
		m.Action = types.StringValue("install")
	}
	m.ID = types.StringValue(m.Pack.ValueString() + "/" + m.Name.ValueString())
}

// scenarioOwnAttrs are scenarioIntentAttrs without cluster_handle: a
// change of the handle alone runs the action again only when it has
// something new to run (sameOnHandle).
var scenarioOwnAttrs = slices.DeleteFunc(slices.Clone(scenarioIntentAttrs), func(a string) bool { return a == "cluster_handle" })

func (scenarioHooks) intentAttrs() []string { return scenarioOwnAttrs }

func (scenarioHooks) readConfig(ctx context.Context, m *scenarioModel, cfg tfsdk.Config, diags *diag.Diagnostics) {
	m.readWriteOnly(ctx, cfg, diags)
}

func (scenarioHooks) clearWriteOnly(m *scenarioModel) { m.clearWriteOnly() }

func (scenarioHooks) checkPlanned(m *scenarioModel, ops []intentOp, diags *diag.Diagnostics) {
	for i := range ops {
		checkCredentialsBound(&ops[i], m.Candidates, scenarioBindingPath, diags)
	}
}

// changes: the action (again when the intent changed), on the targets;
// before it, when hosts left the cluster the scenario runs on, the pack's
// uninstall_node on them (leaveChange).
// A change of the cluster handle alone runs the action again only when
// it has something new to run, or hosts left (sameOnHandle).
func (h scenarioHooks) changes(plan, prior *scenarioModel, same bool) []intent.Change {
	completed := prior != nil && operationCompleted(prior.Operation)
	leave := h.leaveChange(plan, prior)
	if prior != nil && same {
		same = sameOnHandle(h.base(), h, plan, prior, plan.ClusterHandle, prior.ClusterHandle, completed && leave == nil)
	}
	cs := singleAction(strOr(plan.Action, "install"), prior != nil, completed, same,
		append([]string{plan.Pack.ValueString()}, plan.Targets...)...)
	for i := range cs {
		cs[i].Targets = plan.Targets
	}
	if leave != nil {
		cs = append([]intent.Change{*leave}, cs...)
	}
	return cs
}

func (h scenarioHooks) base() *intentBase {
	if h.r == nil {
		return nil
	}
	return &h.r.intentBase
}

// leaveChange is the pack's uninstall_node on the hosts of the prior
// cluster handle that the planned one no longer lists (a worker removed
// from the cluster), reached with the resource's SSH settings; nil
// without a prior handle, when none left or the pack has no
// uninstall_node (intent.LeaveChange).
func (h scenarioHooks) leaveChange(plan, prior *scenarioModel) *intent.Change {
	if prior == nil || h.r == nil || h.r.data == nil || h.r.data.Catalog == nil || len(plan.Hosts) > 0 {
		return nil
	}
	before, err1 := intent.DecodeClusterHandle(strOr(prior.ClusterHandle, ""))
	after, err2 := intent.DecodeClusterHandle(strOr(plan.ClusterHandle, ""))
	if err1 != nil || err2 != nil || strOr(prior.ClusterHandle, "") == "" || plan.ClusterHandle.IsUnknown() || before.Name != after.Name {
		return nil
	}
	pack, _ := h.r.data.Catalog.Get(plan.Pack.ValueString(), strOr(plan.Version, ""))
	access := resourceAccess(h.r.data, plan.SSH)
	hosts := func(ch intent.Handle) []operation.HostAccess {
		var out []operation.HostAccess
		for _, x := range ch.ProtocolHosts() {
			out = append(out, operation.HostAccess{Host: x, Access: access})
		}
		return out
	}
	return intent.LeaveChange(pack, hosts(before), hosts(after))
}

func (h scenarioHooks) spec(m, _ *scenarioModel, data *providerData, diags *diag.Diagnostics) intentPlan {
	return scenarioPlanOf(data, m, diags)
}

func (h scenarioHooks) recorded(_ context.Context, m, _ *scenarioModel, results []opResult, _ *diag.Diagnostics) {
	if m.Environment.IsNull() || m.Environment.IsUnknown() {
		m.Environment = types.StringValue(h.r.data.Environment)
	}
	kind := results[len(results)-1].Op.Composed.Pack.ID
	m.computed().record(results, nil, scenarioCaps(m, m.Environment.ValueString()), scenarioHandle(kind, m.Name.ValueString()))
}

// record: kept on the masters the action ran on, or on every host when
// none is a master.
func (scenarioHooks) record(m *scenarioModel, hosts []operation.HostAccess) (string, string, []operation.HostAccess) {
	return "scenario", m.Pack.ValueString() + "/" + m.Name.ValueString(), masters(hosts)
}

func (scenarioHooks) destroy(m *scenarioModel, _ *diag.Diagnostics) *intent.Change {
	action := strOr(m.DestroyAction, "")
	if action == "" {
		return nil
	}
	return &intent.Change{Action: action, Targets: m.Targets, IDParts: append([]string{m.Pack.ValueString()}, m.Targets...)}
}

func (m *scenarioModel) timeoutsValue() timeouts.Value { return m.Timeouts }

func (m *scenarioModel) decisionsOf() ([]approvalModel, []interventionModel) {
	return m.Approvals, m.Interventions
}
