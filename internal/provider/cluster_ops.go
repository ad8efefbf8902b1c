package provider

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"

	"github.com/intentops/terraform-provider-cp/internal/intent"
	"github.com/intentops/terraform-provider-cp/internal/operation"
	"github.com/intentops/terraform-provider-cp/internal/planner"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// intentOp is one pack action an apply will run, with its plan.
type intentOp struct {
	Action   string
	Targets  []string
	ID       string // stable: the same change resumes the same operation
	Composed *planner.Composed
	Hosts    []operation.HostAccess
	// Req is the request the plan was composed from; a diagnosis rebuilds
	// it with a proposed patch to review the patch.
	Req planner.Request
}

// opID names an operation after what it changes, so an apply that failed
// and is run again continues the same operation (idempotency keys that
// include the operation id stay valid).
func opID(name, action string, parts ...string) string {
	h := sha256.Sum256([]byte(strings.Join(append([]string{name, action}, parts...), "\x00")))
	return fmt.Sprintf("%s.%s.%s", name, action, hex.EncodeToString(h[:])[:8])
}

// clusterOps decides what apply will do: create when there is no state;
// otherwise remove_node for removed workers, add_node for added ones,
// relabel for label and taint changes of nodes that stay (masters and
// workers) and upgrade for a version change, in that order. Nothing to do
// gives no ops.
func (r *KubernetesClusterResource) clusterOps(plan *clusterModel, state *clusterModel, now time.Time, diags *diag.Diagnostics) []intentOp {
	hosts, access := clusterHosts(plan, r.data, diags)
	if _, set := plan.Parameters[intent.RelabelParam]; set {
		addAttrError(diags, path.Root("parameters").AtMapKey(intent.RelabelParam), "Parameter set by the provider",
			intent.RelabelParam+" is computed from the nodes' labels and taints; remove it from parameters and change labels or taints instead.")
	}
	if diags.HasError() {
		return nil
	}
	c := r.composer(plan, now, diags)
	if state == nil {
		c.compose("create", nil, hosts, access, planner.State{}, nil, hostNames(hosts, "")...)
		return c.ops
	}
	st := stateFromModel(state)
	oldHosts, oldAccess := clusterHosts(state, r.data, diags)
	removed := missing(hostNames(oldHosts, protocol.RoleWorker), hostNames(hosts, protocol.RoleWorker))
	added := missing(hostNames(hosts, protocol.RoleWorker), hostNames(oldHosts, protocol.RoleWorker))
	if len(removed) > 0 {
		// The removed hosts are only in the old state: plan over the union.
		union, unionAccess := unionHosts(oldHosts, oldAccess, hosts, access)
		c.compose("remove_node", removed, union, unionAccess, st, nil, removed...)
	}
	if len(added) > 0 {
		c.compose("add_node", added, hosts, access, st, nil, added...)
	}
	if targets, changes := intent.NodeChanges(oldHosts, hosts); len(changes) > 0 {
		// Only the first master runs kubectl; no kubeconfig goes to the
		// relabelled nodes.
		c.compose("relabel", targets, hosts, access, st, map[string]string{intent.RelabelParam: strings.Join(changes, ",")}, changes...)
	}
	if v := strOr(plan.KubernetesVersion, ""); v != strOr(state.KubernetesVersion, "") {
		c.compose("upgrade", nil, hosts, access, st, nil, v)
	}
	return c.ops
}

// composeAction plans one action over the model's own hosts and state.
func (r *KubernetesClusterResource) composeAction(m *clusterModel, action string, targets []string, diags *diag.Diagnostics) []intentOp {
	hosts, access := clusterHosts(m, r.data, diags)
	if diags.HasError() {
		return nil
	}
	c := r.composer(m, r.now(), diags)
	c.compose(action, targets, hosts, access, stateFromModel(m), nil, targets...)
	return c.ops
}

// composer builds the operations of one cluster intent.
type composer struct {
	base   planner.Request
	intent protocol.Intent
	pack   *protocol.ScenarioPack
	name   string
	diags  *diag.Diagnostics
	ops    []intentOp
}

func (r *KubernetesClusterResource) composer(m *clusterModel, now time.Time, diags *diag.Diagnostics) *composer {
	env := strOr(m.Environment, r.data.Environment)
	pack, _ := r.data.Catalog.Get("kubernetes", "")
	base := planner.Request{
		Catalog: r.data.Catalog, PackID: "kubernetes", Environment: env, Policy: r.data.Policy, Now: now,
		Customization: toCustomization(m.Customizations), Patches: toPatches(m.PlanPatches, pack),
	}
	in := protocol.Intent{
		ID: strOr(m.Name, ""), TargetResource: strOr(m.Name, ""), TargetResourceType: "kubernetes.cluster",
		Parameters: clusterParams(m), Constraints: clusterConstraints(m, env),
	}
	return &composer{base: base, intent: in, pack: pack, name: strOr(m.Name, ""), diags: diags}
}

// compose plans one action; params are set over the cluster's parameters
// for this action only.
func (c *composer) compose(action string, targets []string, hosts []protocol.Host, access []operation.HostAccess, st planner.State, params map[string]string, parts ...string) {
	req := c.base
	req.Intent = c.intent
	if len(params) > 0 {
		req.Intent.Parameters = make(map[string]string, len(c.intent.Parameters)+len(params))
		maps.Copy(req.Intent.Parameters, c.intent.Parameters)
		maps.Copy(req.Intent.Parameters, params)
	}
	req.Intent.Action = action
	req.Intent.Targets = targets
	req.Intent.Hosts = hosts
	req.State = st
	req.PlanID = opID(c.name, action, parts...)
	if action != "create" {
		// Customizations are made against the create template; patches
		// apply to the operation whose jobs they name.
		req.Customization, req.Patches = nil, patchesFor(c.pack, action, c.base.Patches)
	}
	composed, err := planner.Compose(req)
	if err != nil {
		addPlanError(c.diags, req, err)
		return
	}
	c.ops = append(c.ops, intentOp{Action: action, Targets: targets, ID: req.PlanID, Composed: composed, Hosts: slices.Clone(access), Req: req})
}

// missing returns the names of a that are not in b.
func missing(a, b []string) []string {
	var out []string
	for _, n := range a {
		if !slices.Contains(b, n) {
			out = append(out, n)
		}
	}
	return out
}

// unionHosts returns the old hosts followed by the new hosts not among them.
func unionHosts(oldH []protocol.Host, oldA []operation.HostAccess, newH []protocol.Host, newA []operation.HostAccess) ([]protocol.Host, []operation.HostAccess) {
	hosts, access := slices.Clone(oldH), slices.Clone(oldA)
	for i, h := range newH {
		if !slices.ContainsFunc(hosts, func(o protocol.Host) bool { return o.Name == h.Name }) {
			hosts, access = append(hosts, h), append(access, newA[i])
		}
	}
	return hosts, access
}

// patchesFor keeps the patches whose jobs all belong to the action's
// template or the pack's library and that name a job of that template.
func patchesFor(pack *protocol.ScenarioPack, action string, patches []protocol.PlanPatch) []protocol.PlanPatch {
	if pack == nil {
		return nil
	}
	t, ok := pack.Templates[action]
	if !ok {
		return nil
	}
	jobs := t.JobIDs()
	var out []protocol.PlanPatch
	for _, p := range patches {
		for _, c := range p.Changes {
			target := c.InsertAfter + c.Remove
			if c.Retry != nil {
				target = c.Retry.Job
			}
			if slices.Contains(jobs, target) {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

// stateFromModel is what the previous operations left: the capabilities
// of a running cluster and its artifacts with their expiry.
func stateFromModel(m *clusterModel) planner.State {
	st := planner.State{Capabilities: []protocol.Capability{{Key: "kubernetes.api"}, {Key: "kubernetes.cluster"}}}
	for _, a := range artifactsFromList(m.Artifacts) {
		st.Artifacts = append(st.Artifacts, a)
	}
	return st
}

// mastersReplaced is the masters' replacement rule: a change of the
// masters replaces the cluster, except a change of their labels and
// taints only, which plans relabel.
func mastersReplaced(ctx context.Context, req planmodifier.ListRequest, resp *listplanmodifier.RequiresReplaceIfFuncResponse) {
	if req.PlanValue.IsUnknown() || req.StateValue.IsUnknown() {
		resp.RequiresReplace = true
		return
	}
	var oldM, newM []nodeModel
	resp.Diagnostics.Append(req.StateValue.ElementsAs(ctx, &oldM, false)...)
	resp.Diagnostics.Append(req.PlanValue.ElementsAs(ctx, &newM, false)...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.RequiresReplace = !slices.EqualFunc(oldM, newM, func(a, b nodeModel) bool {
		a.Labels, a.Taints, b.Labels, b.Taints = nil, nil, nil, nil
		return reflect.DeepEqual(a, b)
	})
}
