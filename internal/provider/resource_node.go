package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/intentops/terraform-provider-cp/internal/intent"
	"github.com/intentops/terraform-provider-cp/internal/operation"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

var (
	_ resource.ResourceWithConfigure      = &NodeResource{}
	_ resource.ResourceWithModifyPlan     = &NodeResource{}
	_ resource.ResourceWithValidateConfig = &NodeResource{}
	_ resource.ResourceWithImportState    = &NodeResource{}
	_ resource.ResourceWithIdentity       = &NodeResource{}
)

// NodeResource is cp_node: add_node on create, remove_node on destroy,
// against a cluster's handle (seed scenario 2).
type NodeResource struct{ intentResource[nodeResModel] }

// NewNodeResource is the constructor listed by the provider.
func NewNodeResource() resource.Resource {
	r := &NodeResource{}
	r.init(nodeHooks{r: r})
	return r
}

type nodeResModel struct {
	ID            types.String        `tfsdk:"id"`
	ClusterHandle types.String        `tfsdk:"cluster_handle"`
	Node          *hostResModel       `tfsdk:"node"`
	Approvals     []approvalModel     `tfsdk:"approvals"`
	Interventions []interventionModel `tfsdk:"interventions"`
	PlanPatches   []planPatchModel    `tfsdk:"plan_patches"`
	SSH           *resourceSSHModel   `tfsdk:"ssh"`
	Timeouts      timeouts.Value      `tfsdk:"timeouts"`

	// Computed.
	IntentComputed
}

// Metadata sets the type name.
func (r *NodeResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_node"
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
		"timeouts":      timeouts.Attributes(ctx, timeouts.Opts{Create: true, Update: true, Delete: true}),
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
	old, err1 := intent.DecodeClusterHandle(req.StateValue.ValueString())
	cur, err2 := intent.DecodeClusterHandle(req.PlanValue.ValueString())
	resp.RequiresReplace = err1 == nil && err2 == nil && old.Name != cur.Name
}

// nodePlanOf converts a cp_node model: the cluster's hosts and artifacts
// from its handle, then the node, the target of add_node and remove_node.
func nodePlanOf(data *providerData, m *nodeResModel, diags *diag.Diagnostics) intentPlan {
	ip := intentPlan{paths: nodePaths(m), inputs: runInputs{Approvals: m.Approvals, Interventions: m.Interventions}}
	ch, err := intent.DecodeClusterHandle(m.ClusterHandle.ValueString())
	if err != nil {
		addHandleError(diags, err)
		return ip
	}
	pack, _ := data.Catalog.Get("kubernetes", "")
	base := resourceAccess(data, m.SSH)
	n := m.Node
	host := protocol.Host{Name: n.Name.ValueString(), Address: n.Address.ValueString(), Port: intOr(n.Port, 0),
		Role: strOr(n.Role, protocol.RoleWorker), Labels: n.Labels, Taints: n.Taints}
	ip.spec = intent.Spec{Pack: "kubernetes", Name: ch.Name, Environment: ch.Environment,
		Params: map[string]string{"cluster_name": ch.Name, "kubernetes_version": ch.Version}, Patches: toPatches(m.PlanPatches, pack)}
	for _, h := range ch.ProtocolHosts() {
		if h.Name == host.Name {
			addAttrError(diags, path.Root("node").AtName("name"), "Node already in the cluster",
				"the cluster already has a node named "+host.Name+"; choose another name, or add it through the cluster's workers.")
			return ip
		}
		ip.spec.Hosts = append(ip.spec.Hosts, operation.HostAccess{Host: h, Access: base})
	}
	ip.spec.Hosts = append(ip.spec.Hosts, operation.HostAccess{Host: host, Access: hostAccessOf(base, n.SSH)})
	ip.spec.State.Artifacts = ch.ProtocolArtifacts()
	ip.inputs.Artifacts = ch.ProtocolArtifacts()
	ip.handle = &ch
	return ip
}

// nodeID is <cluster>/<node>, "" without a valid handle.
func nodeID(m *nodeResModel) string {
	ch, err := decodeNodeCluster(m)
	if err != nil || m.Node == nil {
		return ""
	}
	return ch + "/" + m.Node.Name.ValueString()
}

// decodeNodeCluster is the name of the node's cluster.
func decodeNodeCluster(m *nodeResModel) (string, error) {
	ch, err := intent.DecodeClusterHandle(m.ClusterHandle.ValueString())
	return ch.Name, err
}

// ImportState takes the node's address, optionally with its id and SSH
// port: 10.0.0.26, prod-k8s/worker-6@10.0.0.26:2222; or the identity
// (cluster, name, address, port). The state is the record cp keeps on the
// node after every apply.
func (r *NodeResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	req.ID = importRequestID(ctx, req, func(ctx context.Context, req resource.ImportStateRequest) (string, bool) {
		var im nodeIdentityModel
		if resp.Diagnostics.Append(req.Identity.Get(ctx, &im)...); resp.Diagnostics.HasError() {
			return "", false
		}
		return importIDOf(im.Cluster.ValueString()+"/"+im.Name.ValueString(), im.Address, im.Port), true
	})
	importIntent(ctx, &r.intentBase, nodeHooks{r: r}, "node", "<cluster>/<node>", nil, req, resp)
}

// nodeHooks are cp_node's part of the intent-resource skeleton.
type nodeHooks struct {
	commonHooks[nodeResModel, *nodeResModel]
	r *NodeResource
}

func (nodeHooks) validate(ctx context.Context, m *nodeResModel, data *providerData, diags *diag.Diagnostics) {
	var cluster []protocol.Host
	if data != nil {
		if ch, err := intent.DecodeClusterHandle(m.ClusterHandle.ValueString()); err == nil {
			cluster = ch.ProtocolHosts()
		}
	}
	validateNode(ctx, m, data, cluster, diags)
}

func (nodeHooks) prepare(m *nodeResModel, _ *providerData) {
	if id := nodeID(m); id != "" {
		m.ID = types.StringValue(id)
	}
}

// intentAttrs: none. Whether add_node runs again depends only on the last
// one; a change of the node replaces it, a new handle of the same cluster
// (a fresh token...) changes nothing.
func (nodeHooks) intentAttrs() []string { return nil }

func (nodeHooks) changes(plan, prior *nodeResModel, same bool) []intent.Change {
	done := prior != nil && prior.Node != nil && operationCompleted(prior.Operation)
	cs := singleAction("add_node", prior != nil, done, same, "kubernetes", plan.Node.Name.ValueString())
	for i := range cs {
		cs[i].Targets = []string{plan.Node.Name.ValueString()}
	}
	return cs
}

func (nodeHooks) spec(m, _ *nodeResModel, data *providerData, diags *diag.Diagnostics) intentPlan {
	return nodePlanOf(data, m, diags)
}

func (nodeHooks) recorded(_ context.Context, m, _ *nodeResModel, results []opResult, _ *diag.Diagnostics) {
	id := nodeID(m)
	m.ID = types.StringValue(id)
	ch, _ := intent.DecodeClusterHandle(m.ClusterHandle.ValueString())
	params := map[string]string{"cluster_name": ch.Name, "kubernetes_version": ch.Version}
	caps := func(last opResult, arts []protocol.Artifact) []protocol.Capability {
		pack := last.Op.Composed.Pack
		return intent.Provided(pack, last.Result.Capabilities, arts, intent.ExportValues(pack, params, map[string]string{
			"name": ch.Name, "environment": ch.Environment, "region": ch.Region, "api_endpoint": ch.APIEndpoint}))
	}
	m.computed().record(results, nil, caps, scenarioHandle("kubernetes.node", id))
}

// record: the node keeps its record itself, where its address finds it.
func (nodeHooks) record(m *nodeResModel, hosts []operation.HostAccess) (string, string, []operation.HostAccess) {
	return "node", nodeID(m), hosts[len(hosts)-1:]
}

func (nodeHooks) destroy(m *nodeResModel, _ *diag.Diagnostics) *intent.Change {
	if m.Node == nil {
		return nil
	}
	n := m.Node.Name.ValueString()
	return &intent.Change{Action: "remove_node", Targets: []string{n}, IDParts: []string{"kubernetes", n}}
}

func (m *nodeResModel) timeoutsValue() timeouts.Value { return m.Timeouts }

func (m *nodeResModel) decisionsOf() ([]approvalModel, []interventionModel) {
	return m.Approvals, m.Interventions
}
