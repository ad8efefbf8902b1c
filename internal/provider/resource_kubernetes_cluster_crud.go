package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/intentops/terraform-provider-cp/internal/intent"
	"github.com/intentops/terraform-provider-cp/internal/operation"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// clusterHooks are cp_kubernetes_cluster's part of the intent-resource
// skeleton: the change is computed by intent.ClusterChanges.
type clusterHooks struct {
	commonHooks[clusterModel, *clusterModel]
	r *KubernetesClusterResource
}

func (clusterHooks) validate(ctx context.Context, m *clusterModel, data *providerData, diags *diag.Diagnostics) {
	validateCluster(ctx, m, data, diags)
	addProblems(diags, intent.CheckComputedParams(m.Parameters))
	checkExposeKubeconfig(data, m.ExposeKubeconfig.ValueBool(), diags)
}

func (clusterHooks) prepare(m *clusterModel, data *providerData) {
	if m.Environment.IsUnknown() || m.Environment.IsNull() {
		m.Environment = types.StringValue(data.Environment)
	}
}

// intentAttrs: none; ClusterChanges compares the intents.
func (clusterHooks) intentAttrs() []string { return nil }

func (h clusterHooks) cluster(m *clusterModel) intent.Cluster {
	_, access := clusterHosts(m, h.r.data, nil)
	return intent.Cluster{Hosts: access, Version: strOr(m.KubernetesVersion, "")}
}

func (h clusterHooks) changes(plan, prior *clusterModel, _ bool) []intent.Change {
	if prior == nil {
		return intent.ClusterChanges(nil, h.cluster(plan))
	}
	p := h.cluster(prior)
	return intent.ClusterChanges(&p, h.cluster(plan))
}

// spec is the cluster intent; prior (the state) gives the artifacts
// earlier operations left.
func (h clusterHooks) spec(m, prior *clusterModel, data *providerData, _ *diag.Diagnostics) intentPlan {
	env := strOr(m.Environment, data.Environment)
	pack, _ := data.Catalog.Get("kubernetes", "")
	_, access := clusterHosts(m, data, nil)
	ip := intentPlan{
		spec: intent.Spec{Pack: "kubernetes", Name: strOr(m.Name, ""), ResourceType: intent.ClusterKind, Environment: env, Hosts: access,
			Params: clusterParams(m), Constraints: clusterConstraints(m, env),
			Customization: toCustomization(m.Customizations), Patches: toPatches(m.PlanPatches, pack)},
		paths:  planPaths{Params: clusterParamPaths(m)},
		inputs: runInputs{Approvals: m.Approvals, Interventions: m.Interventions},
	}
	if prior != nil {
		ip.spec.State.Artifacts = artifactsFromList(prior.Artifacts)
		ip.inputs.Artifacts = artifactsFromList(prior.Artifacts)
	}
	return ip
}

// planned: the handle is known at plan (clusterHandle).
func (h clusterHooks) planned(m *clusterModel, ops []intentOp) {
	setPlanned(m, ops)
	h.setHandle(m)
}

// kept: the handle is computed again, so a state written with another
// form of it converges (and stays the same after apply).
func (h clusterHooks) kept(ctx context.Context, m, prior *clusterModel, apply bool, diags *diag.Diagnostics) {
	keepComputed(m, prior)
	h.setHandle(m)
	if apply {
		h.r.refreshKubeconfig(ctx, m, diags)
	}
}

func (h clusterHooks) recorded(ctx context.Context, m, prior *clusterModel, results []opResult, diags *diag.Diagnostics) {
	h.r.applyResults(ctx, m, prior, results, diags)
	h.r.writeRecord(ctx, m, diags)
}

func (h clusterHooks) failed(ctx context.Context, prior *clusterModel, results []opResult, diags *diag.Diagnostics) {
	if len(results) > 0 {
		h.r.applyResults(ctx, prior, prior, results, diags)
	}
}

func (h clusterHooks) destroy(m *clusterModel, diags *diag.Diagnostics) *intent.Change {
	if refuseDeletion(m, diags) || h.r.data == nil {
		return nil
	}
	pack, _ := h.r.data.Catalog.Get("kubernetes", "")
	return &intent.Change{Action: intent.DestroyAction(pack)}
}

// applyResults records what the operations produced in m. prev is the
// state before (nil on create).
func (r *KubernetesClusterResource) applyResults(ctx context.Context, m *clusterModel, prev *clusterModel, results []opResult, diags *diag.Diagnostics) {
	var prevArts []protocol.Artifact
	if prev != nil {
		prevArts = artifactsFromList(prev.Artifacts)
	}
	m.ID = types.StringValue(m.Name.ValueString())
	if m.Environment.IsNull() || m.Environment.IsUnknown() {
		m.Environment = types.StringValue(r.data.Environment)
	}
	m.APIEndpoint = types.StringValue(apiEndpoint(m))
	caps := func(last opResult, _ []protocol.Artifact) []protocol.Capability {
		return intent.Provided(last.Op.Composed.Pack, last.Result.Capabilities, nil, clusterExportValues(last.Op.Composed.Pack, m))
	}
	pack, _ := r.data.Catalog.Get("kubernetes", "")
	handle := func([]protocol.Artifact, []protocol.Capability) intent.Handle { return clusterHandle(m, pack) }
	m.computed().record(results, prevArts, caps, handle)
	r.observeNodes(ctx, m, false, diags)
	r.refreshKubeconfig(ctx, m, diags)
}

// clusterExportValues are the values of the kubernetes pack's export
// placeholders for the cluster.
func clusterExportValues(pack *protocol.ScenarioPack, m *clusterModel) map[string]string {
	return intent.ExportValues(pack, clusterParams(m), map[string]string{"name": m.Name.ValueString(), "environment": m.Environment.ValueString(),
		"region": m.Region.ValueString(), "api_endpoint": apiEndpoint(m)})
}

// clusterHandle is what other resources use to act on the cluster: hosts
// (by reference to the inventory file when they come from one), endpoint, exports and the ids of its artifacts, never secret values. It
// is computed from the configuration and the pack alone, so it is known at
// plan and the same after apply (intent.NewClusterHandle); apply reads the
// artifacts' references from the cluster's record on its masters.
func clusterHandle(m *clusterModel, pack *protocol.ScenarioPack) intent.Handle {
	var hosts []protocol.Host
	for _, n := range m.Masters {
		hosts = append(hosts, protocol.Host{Name: n.Name.ValueString(), Address: n.Address.ValueString(), Port: intOr(n.Port, 0), Role: protocol.RoleMaster})
	}
	for _, n := range m.Workers {
		hosts = append(hosts, protocol.Host{Name: n.Name.ValueString(), Address: n.Address.ValueString(), Port: intOr(n.Port, 0), Role: protocol.RoleWorker})
	}
	spec := intent.ClusterHandleSpec{Name: m.Name.ValueString(), Environment: m.Environment.ValueString(), Region: m.Region.ValueString(),
		Version: m.KubernetesVersion.ValueString(), Pack: pack, Hosts: hosts, Inventory: handleInventory(m, hosts)}
	if len(m.Masters) > 0 {
		spec.APIEndpoint = apiEndpoint(m)
		spec.Capabilities = intent.Provided(pack, nil, nil, clusterExportValues(pack, m))
	}
	return intent.NewClusterHandle(spec)
}

// setHandle sets the cluster's handle from its configuration.
func (h clusterHooks) setHandle(m *clusterModel) {
	pack, _ := h.r.data.Catalog.Get("kubernetes", "")
	m.Handle = types.StringValue(clusterHandle(m, pack).Encode())
}

// refreshKubeconfig fills the sensitive kubeconfig when asked for.
func (r *KubernetesClusterResource) refreshKubeconfig(ctx context.Context, m *clusterModel, diags *diag.Diagnostics) {
	if !m.ExposeKubeconfig.ValueBool() {
		m.Kubeconfig = types.StringNull()
		return
	}
	var ref string
	for _, a := range artifactsFromList(m.Artifacts) {
		if a.ID == "kubeconfig.admin" {
			ref = a.Ref
		}
	}
	if ref == "" {
		m.Kubeconfig = types.StringNull()
		return
	}
	_, access := clusterHosts(m, r.data, diags)
	b, err := operation.Fetch(ctx, access, ref, nil)
	if err != nil {
		diags.AddAttributeWarning(path.Root("kubeconfig"), "Cannot read the admin kubeconfig", err.Error())
		m.Kubeconfig = types.StringNull()
		return
	}
	m.Kubeconfig = types.StringValue(string(b))
}

func healthOf(nodes types.List) string {
	for _, v := range nodes.Elements() {
		if o, ok := v.(types.Object); ok {
			if r, ok := o.Attributes()["ready"].(types.Bool); ok && !r.ValueBool() {
				return "degraded"
			}
		}
	}
	return "healthy"
}

func (m *clusterModel) timeoutsValue() timeouts.Value { return m.Timeouts }

func (m *clusterModel) decisionsOf() ([]approvalModel, []interventionModel) {
	return m.Approvals, m.Interventions
}
