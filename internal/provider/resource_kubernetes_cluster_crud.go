package provider

import (
	"context"
	"encoding/json"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/intentops/terraform-provider-cp/internal/operation"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// Create runs the create operation. When it does not complete, no state is
// saved (so nothing is tainted) and the error says what to do; applying
// again resumes: jobs whose evidence still holds on the hosts are skipped.
func (r *KubernetesClusterResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan clusterModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, d := plan.Timeouts.Create(ctx, defaultCreateTimeout)
	resp.Diagnostics.Append(d...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	ops := r.clusterOps(&plan, nil, r.now(), &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	results := runOps(ctx, r.data, ops, runInputs{Approvals: plan.Approvals, Interventions: plan.Interventions}, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	r.applyResults(ctx, &plan, nil, results, &resp.Diagnostics)
	r.writeRecord(ctx, &plan, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// Update runs remove_node, add_node and upgrade as the change requires.
// When one does not complete, the state keeps the previous hosts and
// version, so the next plan shows the same change and apply resumes it.
func (r *KubernetesClusterResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state clusterModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, d := plan.Timeouts.Update(ctx, defaultCreateTimeout)
	resp.Diagnostics.Append(d...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	ops := r.clusterOps(&plan, &state, r.now(), &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	if len(ops) == 0 {
		keepComputed(&plan, &state)
		r.refreshKubeconfig(ctx, &plan, &resp.Diagnostics)
		resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
		return
	}
	in := runInputs{Approvals: plan.Approvals, Interventions: plan.Interventions, Artifacts: artifactsFromList(state.Artifacts)}
	var runDiags diag.Diagnostics
	results := runOps(ctx, r.data, ops, in, &runDiags)
	resp.Diagnostics.Append(runDiags...)
	if runDiags.HasError() {
		// Keep the previous intent so the change is planned again; record
		// what ran.
		if len(results) > 0 {
			r.applyResults(ctx, &state, &state, results, &resp.Diagnostics)
		}
		resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
		return
	}
	r.applyResults(ctx, &plan, &state, results, &resp.Diagnostics)
	r.writeRecord(ctx, &plan, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// Delete runs the pack's delete action (kubeadm reset on every node).
func (r *KubernetesClusterResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state clusterModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if state.DeletionProtection.ValueBool() {
		addAttrError(&resp.Diagnostics, path.Root("deletion_protection"), "Deletion protection is on",
			"set deletion_protection = false and apply before destroying the cluster.")
		return
	}
	timeout, d := state.Timeouts.Delete(ctx, defaultDeleteTimeout)
	resp.Diagnostics.Append(d...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	op := r.deleteOp(&state, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	runOps(ctx, r.data, []intentOp{op}, runInputs{Approvals: state.Approvals, Interventions: state.Interventions, Artifacts: artifactsFromList(state.Artifacts)}, &resp.Diagnostics)
}

func (r *KubernetesClusterResource) deleteOp(state *clusterModel, diags *diag.Diagnostics) intentOp {
	ops := r.composeAction(state, "delete", nil, diags)
	if len(ops) == 0 {
		return intentOp{}
	}
	return ops[0]
}

// Read refreshes node health over SSH when refresh_health is on. A worker
// that is no longer registered is dropped from state, so the next plan
// shows it as drift and plans add_node for it again.
func (r *KubernetesClusterResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state clusterModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() || r.data == nil {
		return
	}
	if state.RefreshHealth.ValueBool() {
		r.refreshHealth(ctx, &state, &resp.Diagnostics)
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

// applyResults records what the operations produced in m. prev is the
// state before (nil on create).
func (r *KubernetesClusterResource) applyResults(ctx context.Context, m *clusterModel, prev *clusterModel, results []opResult, diags *diag.Diagnostics) {
	var prevArts []protocol.Artifact
	if prev != nil {
		prevArts = artifactsFromList(prev.Artifacts)
	}
	arts := prevArts
	var caps []protocol.Capability
	last := results[len(results)-1]
	for _, res := range results {
		arts = protocol.MergeArtifacts(arts, res.Result.Artifacts)
	}
	m.ID = types.StringValue(m.Name.ValueString())
	if m.Environment.IsNull() || m.Environment.IsUnknown() {
		m.Environment = types.StringValue(r.data.Environment)
	}
	m.Operation = operationObject(last.Op.Action, &last.Result.Operation, last.Op.Composed.Plan, last.Result)
	m.Artifacts = artifactsList(arts)
	m.Evidence = evidenceList(last.Result)
	m.APIEndpoint = types.StringValue(apiEndpoint(m))
	caps = append(caps, protocol.Capability{Key: "kubernetes.cluster", Scope: protocol.ScopeCluster, Attributes: map[string]string{
		"api_endpoint": m.APIEndpoint.ValueString(), "name": m.Name.ValueString(), "region": m.Region.ValueString(),
		"environment": m.Environment.ValueString(), "version": m.KubernetesVersion.ValueString(), "cni": m.CNI.ValueString(),
	}})
	caps = append(caps, protocol.Capability{Key: "workload.runtime", Scope: protocol.ScopeCluster, Attributes: map[string]string{"api_endpoint": m.APIEndpoint.ValueString()}})
	m.Capabilities = capabilitiesList(caps)
	if m.PlanSummary.IsUnknown() || m.PlanSummary.IsNull() {
		summary, advanced := planTexts(opsOf(results))
		m.PlanSummary, m.PlanAdvanced = types.StringValue(summary), types.StringValue(advanced)
		m.PlannedJobs = plannedJobsList(opsOf(results))
	}
	r.observeNodes(ctx, m, false, diags)
	m.Handle = types.StringValue(clusterHandle(m, arts))
	r.refreshKubeconfig(ctx, m, diags)
}

func opsOf(results []opResult) []intentOp {
	var out []intentOp
	for _, r := range results {
		out = append(out, r.Op)
	}
	return out
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

// clusterHandle is the JSON other resources use to act on the cluster:
// hosts, endpoint and artifact references, never secret values.
func clusterHandle(m *clusterModel, arts []protocol.Artifact) string {
	type hostRef struct {
		Name    string `json:"name"`
		Address string `json:"address"`
		Port    int    `json:"port,omitempty"`
		Role    string `json:"role"`
	}
	type artRef struct {
		ID        string `json:"id"`
		Ref       string `json:"ref,omitempty"`
		Value     string `json:"value,omitempty"`
		ExpiresAt string `json:"expires_at,omitempty"`
	}
	h := struct {
		Kind        string    `json:"kind"`
		Name        string    `json:"name"`
		Environment string    `json:"environment"`
		Region      string    `json:"region,omitempty"`
		Version     string    `json:"kubernetes_version"`
		APIEndpoint string    `json:"api_endpoint"`
		Hosts       []hostRef `json:"hosts"`
		Artifacts   []artRef  `json:"artifacts"`
	}{Kind: "kubernetes.cluster", Name: m.Name.ValueString(), Environment: m.Environment.ValueString(), Region: m.Region.ValueString(),
		Version: m.KubernetesVersion.ValueString(), APIEndpoint: apiEndpoint(m)}
	for _, n := range m.Masters {
		h.Hosts = append(h.Hosts, hostRef{Name: n.Name.ValueString(), Address: n.Address.ValueString(), Port: intOr(n.Port, 0), Role: protocol.RoleMaster})
	}
	for _, n := range m.Workers {
		h.Hosts = append(h.Hosts, hostRef{Name: n.Name.ValueString(), Address: n.Address.ValueString(), Port: intOr(n.Port, 0), Role: protocol.RoleWorker})
	}
	for _, a := range arts {
		ar := artRef{ID: a.ID, Ref: a.Ref, ExpiresAt: ts(a.ExpiresAt)}
		if a.Sensitivity == protocol.SensitivityPublic {
			ar.Value = a.Value
		}
		h.Artifacts = append(h.Artifacts, ar)
	}
	b, _ := json.Marshal(h)
	return string(b)
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
