package provider

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/intentops/terraform-provider-cp/internal/operation"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

var (
	_ resource.ResourceWithConfigure      = &NodeResource{}
	_ resource.ResourceWithModifyPlan     = &NodeResource{}
	_ resource.ResourceWithValidateConfig = &NodeResource{}
)

// NodeResource is cp_node: add_node on create, remove_node on destroy,
// against a cluster's handle (seed scenario 2).
type NodeResource struct {
	data *providerData
	now  func() time.Time
}

// NewNodeResource is the constructor listed by the provider.
func NewNodeResource() resource.Resource { return &NodeResource{now: time.Now} }

type nodeResModel struct {
	ID            types.String        `tfsdk:"id"`
	ClusterHandle types.String        `tfsdk:"cluster_handle"`
	Node          *hostResModel       `tfsdk:"node"`
	Approvals     []approvalModel     `tfsdk:"approvals"`
	Interventions []interventionModel `tfsdk:"interventions"`
	PlanPatches   []planPatchModel    `tfsdk:"plan_patches"`
	SSH           *resourceSSHModel   `tfsdk:"ssh"`
	Timeouts      timeouts.Value      `tfsdk:"timeouts"`

	PlanSummary  types.String `tfsdk:"plan_summary"`
	PlanAdvanced types.String `tfsdk:"plan"`
	PlannedJobs  types.List   `tfsdk:"planned_jobs"`
	Operation    types.Object `tfsdk:"operation"`
	Artifacts    types.List   `tfsdk:"artifacts"`
	Evidence     types.List   `tfsdk:"evidence"`
	Capabilities types.List   `tfsdk:"capabilities"`
	Handle       types.String `tfsdk:"handle"`
}

func (m *nodeResModel) computed() computed {
	return computed{PlanSummary: &m.PlanSummary, PlanAdvanced: &m.PlanAdvanced, PlannedJobs: &m.PlannedJobs, Operation: &m.Operation,
		Artifacts: &m.Artifacts, Evidence: &m.Evidence, Caps: &m.Capabilities, Handle: &m.Handle}
}

// Metadata sets the type name.
func (r *NodeResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_node"
}

// Configure receives the provider data.
func (r *NodeResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = configureData(req.ProviderData, &resp.Diagnostics)
}

// Schema of cp_node.
func (r *NodeResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	node := resHostsAttr().NestedObject
	attrs := map[string]schema.Attribute{
		"id": schema.StringAttribute{MarkdownDescription: "`<cluster>/<node>`.", Computed: true,
			PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
		"cluster_handle": schema.StringAttribute{MarkdownDescription: "Handle of the `cp_kubernetes_cluster` the node joins.", Required: true,
			PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplaceIf(clusterNameChanged, "a different cluster replaces the node", "a different cluster replaces the node")}},
		"node": schema.SingleNestedAttribute{
			MarkdownDescription: "The node: name, address, port, role (`worker` by default), labels, taints, ssh. Changing it replaces the node (remove_node, then add_node).",
			Required:            true, Attributes: node.Attributes,
			PlanModifiers: []planmodifier.Object{objectplanmodifier.RequiresReplace()},
		},
		"approvals":     resApprovalsAttr(),
		"interventions": resInterventionsAttr(),
		"plan_patches":  resPlanPatchesAttr(),
		"ssh":           resourceSSHAttr(),
		"timeouts":      timeouts.Attributes(ctx, timeouts.Opts{Create: true, Delete: true}),
	}
	intentComputedAttrs(attrs)
	resp.Schema = schema.Schema{
		MarkdownDescription: "Adds one node to a cluster (`add_node`) and removes it on destroy (`remove_node`: drain, delete, reset — behind a destructive gate " +
			"when the pack's template says so). When the cluster's join token is absent or expired the plan shows the inserted `generate-join-token` job and why.",
		Attributes: attrs,
	}
}

// clusterNameChanged replaces the node only when it moves to another
// cluster, not when the cluster's handle changes otherwise (new token...).
func clusterNameChanged(ctx context.Context, req planmodifier.StringRequest, resp *stringplanmodifier.RequiresReplaceIfFuncResponse) {
	old, err1 := parseClusterHandle(req.StateValue.ValueString())
	cur, err2 := parseClusterHandle(req.PlanValue.ValueString())
	resp.RequiresReplace = err1 == nil && err2 == nil && old.Name != cur.Name
}

func (r *NodeResource) spec(m *nodeResModel, diags *diag.Diagnostics) (scenarioSpec, string) {
	ch, err := parseClusterHandle(m.ClusterHandle.ValueString())
	if err != nil {
		addAttrError(diags, path.Root("cluster_handle"), "Invalid cluster handle", err.Error())
		return scenarioSpec{}, ""
	}
	base := resourceAccess(r.data, m.SSH)
	n := m.Node
	host := protocol.Host{Name: n.Name.ValueString(), Address: n.Address.ValueString(), Port: intOr(n.Port, 0),
		Role: strOr(n.Role, protocol.RoleWorker), Labels: n.Labels, Taints: n.Taints}
	s := scenarioSpec{Pack: "kubernetes", Name: ch.Name, Environment: ch.Environment, Targets: []string{host.Name},
		Params: map[string]string{"cluster_name": ch.Name, "kubernetes_version": ch.Version}, PatchesModel: m.PlanPatches,
		Inputs: runInputs{Approvals: m.Approvals, Interventions: m.Interventions}}
	for _, h := range ch.hosts() {
		if h.Name == host.Name {
			addAttrError(diags, path.Root("node").AtName("name"), "Node already in the cluster",
				"the cluster already has a node named "+host.Name+"; choose another name, or add it through the cluster's workers.")
			return s, ""
		}
		s.Hosts = append(s.Hosts, h)
		s.Access = append(s.Access, operation.HostAccess{Host: h, Access: base})
	}
	acc := base
	if n.SSH != nil {
		acc = acc.Merge(operation.Access{User: strOr(n.SSH.User, ""), PrivateKeyFile: strOr(n.SSH.PrivateKeyFile, "")})
	}
	s.Hosts = append(s.Hosts, host)
	s.Access = append(s.Access, operation.HostAccess{Host: host, Access: acc})
	s.State.Capabilities = []protocol.Capability{{Key: "kubernetes.api"}, {Key: "kubernetes.cluster"}}
	s.State.Artifacts = ch.artifacts()
	s.Inputs.Artifacts = ch.artifacts()
	return s, ch.Name + "/" + host.Name
}

// ValidateConfig checks what needs neither SSH nor the provider: the
// node, ssh and timeouts.
func (r *NodeResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	if !req.Config.Raw.IsFullyKnown() {
		return // checked again at plan time, when the values are known
	}
	var m nodeResModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	validateNode(ctx, &m, nil, nil, &resp.Diagnostics)
}

// ModifyPlan shows the add_node DAG.
func (r *NodeResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.data == nil || !req.Config.Raw.IsFullyKnown() {
		return
	}
	var plan nodeResModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if !req.State.Raw.IsNull() {
		var state nodeResModel
		resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
		if operationCompleted(state.Operation) && !state.Node.Name.IsNull() {
			plan.ID = state.ID
			plan.computed().keep(state.computed())
			resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
			return
		}
	}
	var cluster []protocol.Host
	if ch, err := parseClusterHandle(plan.ClusterHandle.ValueString()); err == nil {
		cluster = ch.hosts()
	}
	validateNode(ctx, &plan, r.data, cluster, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	spec, id := r.spec(&plan, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	spec.Paths = nodePaths(&plan)
	op := spec.compose(r.data, "add_node", r.now(), &resp.Diagnostics)
	if op == nil {
		return
	}
	checkAccessFiles(spec.Access, &resp.Diagnostics)
	checkDecisions([]intentOp{*op}, plan.Approvals, plan.Interventions, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	plan.ID = types.StringValue(id)
	plan.computed().planned([]intentOp{*op})
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
}

// Create runs add_node.
func (r *NodeResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan nodeResModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, d := plan.Timeouts.Create(ctx, defaultCreateTimeout)
	resp.Diagnostics.Append(d...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	r.run(ctx, &plan, "add_node", &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *NodeResource) run(ctx context.Context, m *nodeResModel, action string, diags *diag.Diagnostics) {
	spec, id := r.spec(m, diags)
	if diags.HasError() {
		return
	}
	op := spec.compose(r.data, action, r.now(), diags)
	if op == nil {
		return
	}
	results := runOps(ctx, r.data, []intentOp{*op}, spec.Inputs, diags)
	if diags.HasError() {
		return
	}
	m.ID = types.StringValue(id)
	m.computed().record(results, nil, func(arts []protocol.Artifact, caps []protocol.Capability) string {
		return scenarioHandle("kubernetes.node", id, arts, caps)
	})
}

// Read keeps the state.
func (r *NodeResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state nodeResModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

// Update only records new approvals, interventions or handles; the node
// itself is replaced when it changes.
func (r *NodeResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan nodeResModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if plan.Operation.IsUnknown() {
		r.run(ctx, &plan, "add_node", &resp.Diagnostics)
		if resp.Diagnostics.HasError() {
			return
		}
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// Delete runs remove_node: drain, delete and reset.
func (r *NodeResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state nodeResModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, d := state.Timeouts.Delete(ctx, defaultDeleteTimeout)
	resp.Diagnostics.Append(d...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	r.run(ctx, &state, "remove_node", &resp.Diagnostics)
}
