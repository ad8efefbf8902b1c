package provider

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/intentops/terraform-provider-cp/internal/intent"
	"github.com/intentops/terraform-provider-cp/internal/operation"
)

// The intent-resource skeleton: ModifyPlan, Create, Update, Delete and
// their timeouts, written once for cp_kubernetes_cluster, cp_node,
// cp_tempo and cp_scenario. Each resource keeps its own short methods that
// call these functions with its hooks (intentHooks), the way
// terraform-provider-tls shares its certificate resources' behaviour.
//
// What the skeleton decides for every resource:
//   - nothing to do is no change (hooks.changes returns none): the plan
//     keeps the state's computed attributes and apply runs nothing;
//   - a failed create saves no state (nothing is tainted) and a failed
//     update keeps the prior state with what ran recorded, so the next
//     plan shows the same change and apply resumes it;
//   - every apply honours its timeout (create, update or delete);
//   - a failed destroy is reported and the resource stays in state.

// intentBase is what every intent resource holds.
type intentBase struct {
	data *providerData
	now  func() time.Time
}

func newIntentBase() intentBase { return intentBase{now: time.Now} }

func (b *intentBase) configure(req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	b.data = configureData(req.ProviderData, &resp.Diagnostics)
}

func (b *intentBase) planning() intent.Planning {
	return intent.Planning{Catalog: b.data.Catalog, Policy: b.data.Policy, Rules: b.data.Rules, Now: b.now()}
}

// intentPlan is one resource's intent ready to plan: the spec, where its
// values were written (for planning errors), and the decisions and
// artifacts a run is given.
type intentPlan struct {
	spec   intent.Spec
	paths  planPaths
	inputs runInputs
	// handle is the cluster handle the intent is on, if any: apply reads
	// the artifacts it lists by id from the cluster's record
	// (resolveHandle).
	handle *intent.Handle
}

// intentHooks is what one intent resource adds to the skeleton, for its
// model M.
type intentHooks[M any] interface {
	// validate checks what needs no SSH; data is nil in ValidateConfig.
	validate(ctx context.Context, m *M, data *providerData, diags *diag.Diagnostics)
	// prepare fills what the provider decides before planning: the id,
	// the environment's default.
	prepare(m *M, data *providerData)
	// intentAttrs are the attributes whose change means a new intent
	// (sameIntent); nil for a resource that compares its intents itself.
	intentAttrs() []string
	// changes are the operations apply runs: prior is nil on create;
	// same says whether intentAttrs are unchanged.
	changes(plan, prior *M, same bool) []intent.Change
	// spec converts the model (plan, or state on delete); prior is the
	// state on update.
	spec(m, prior *M, data *providerData, diags *diag.Diagnostics) intentPlan
	// computed points at the model's computed attributes.
	computed(m *M) computed
	timeouts(m *M) timeouts.Value
	decisions(m *M) ([]approvalModel, []interventionModel)
	// planned marks what apply computes; kept copies the prior's
	// computed attributes when nothing runs (apply: in Update, where a
	// resource may refresh what it shows).
	planned(m *M, ops []intentOp)
	kept(ctx context.Context, m, prior *M, apply bool, diags *diag.Diagnostics)
	// recorded stores what the operations produced; prior is nil on
	// create. failed records, on the prior state, a failed update.
	recorded(ctx context.Context, m, prior *M, results []opResult, diags *diag.Diagnostics)
	failed(ctx context.Context, prior *M, results []opResult, diags *diag.Diagnostics)
	// destroy is the operation delete runs, nil to only forget the
	// resource; it may refuse (deletion protection) through diags.
	destroy(m *M, diags *diag.Diagnostics) *intent.Change
}

// getModel reads a model from a plan, state or configuration.
func getModel[M any](ctx context.Context, get func(context.Context, any) diag.Diagnostics, diags *diag.Diagnostics) *M {
	var m M
	diags.Append(get(ctx, &m)...)
	return &m
}

// validateIntentConfig is ValidateConfig: checks without the provider,
// when every value is known (otherwise again at plan).
func validateIntentConfig[M any](ctx context.Context, h intentHooks[M], req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	if !req.Config.Raw.IsFullyKnown() {
		return
	}
	m := getModel[M](ctx, req.Config.Get, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	h.validate(ctx, m, nil, &resp.Diagnostics)
}

// planIntent composes the operations of the changes; a planning error is
// attached to the attribute that caused it.
func planIntent[M any](b *intentBase, h intentHooks[M], m, prior *M, changes []intent.Change, diags *diag.Diagnostics) (intentPlan, []intentOp) {
	return composeIntent(b, h, m, prior, changes, nil, diags)
}

// applyPlanIntent is planIntent at apply: the artifacts of the cluster
// handle are read from the cluster's record first, so the plan apply
// runs sees their references and expiries.
func applyPlanIntent[M any](ctx context.Context, b *intentBase, h intentHooks[M], m, prior *M, changes []intent.Change, diags *diag.Diagnostics) (intentPlan, []intentOp) {
	return composeIntent(b, h, m, prior, changes, func(ip *intentPlan) { resolveHandle(ctx, b.data, ip, diags) }, diags)
}

func composeIntent[M any](b *intentBase, h intentHooks[M], m, prior *M, changes []intent.Change, resolve func(*intentPlan), diags *diag.Diagnostics) (intentPlan, []intentOp) {
	ip := h.spec(m, prior, b.data, diags)
	if diags.HasError() || len(changes) == 0 {
		return ip, nil
	}
	if resolve != nil {
		if resolve(&ip); diags.HasError() {
			return ip, nil
		}
	}
	if checkEditable(b.data, ip.spec, diags); diags.HasError() {
		return ip, nil
	}
	withChoices(&ip, b.data)
	ops, failed, err := ip.spec.ComposeAll(b.planning(), changes)
	if err != nil {
		if !addChoiceError(diags, ip.inputs.Approvals, err) {
			addPlanErrorAt(diags, failed.Req, err, ip.paths)
		}
		return ip, nil
	}
	checkDecisions(ops, ip, actorOf(b.data), diags)
	if diags.HasError() {
		return ip, nil
	}
	return ip, ops
}

func sameIntentOf[M any](h intentHooks[M], plan, state tftypes.Value) bool {
	return sameIntent(plan, state, h.intentAttrs())
}

// modifyIntentPlan is ModifyPlan: on destroy the resource's refusal
// (deletion protection); otherwise the checks that need no SSH, the
// operations apply will run and their DAG, or, when nothing is to be
// done, the state's computed attributes unchanged.
func modifyIntentPlan[M any](ctx context.Context, b *intentBase, h intentHooks[M], req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		if !req.State.Raw.IsNull() {
			modifyDestroyPlan(ctx, b, h, req, resp)
		}
		return
	}
	if b.data == nil || !req.Config.Raw.IsFullyKnown() {
		return
	}
	plan := getModel[M](ctx, req.Plan.Get, &resp.Diagnostics)
	readConfig(ctx, h, plan, req.Config, &resp.Diagnostics)
	var prior *M
	if !req.State.Raw.IsNull() {
		prior = getModel[M](ctx, req.State.Get, &resp.Diagnostics)
	}
	if resp.Diagnostics.HasError() {
		return
	}
	h.prepare(plan, b.data)
	h.validate(ctx, plan, b.data, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	changes := h.changes(plan, prior, prior != nil && sameIntentOf(h, req.Plan.Raw, req.State.Raw))
	changes = withRepair(b, h, plan, prior, changes)
	kept := readPrivate(ctx, req.Private, &resp.Diagnostics)
	changes = resumeChanges(kept, changes)
	if len(changes) == 0 && prior != nil {
		h.kept(ctx, plan, prior, false, &resp.Diagnostics)
		clearHookWriteOnly(h, plan)
		resp.Diagnostics.Append(resp.Plan.Set(ctx, plan)...)
		return
	}
	ip, ops := planIntent(b, h, plan, prior, changes, &resp.Diagnostics)
	prepareRun(&ip, h.computed(plan), changes, ops, kept, b.now(), &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	showResume(kept, ops, ip.inputs.PauseAfterStage, &resp.Diagnostics)
	if prior == nil {
		showFailedCreates(ctx, b.data, ops, len(ip.inputs.Interventions), &resp.Diagnostics)
	}
	for _, op := range ops {
		checkAccessFiles(op.Hosts, &resp.Diagnostics)
	}
	if w, ok := h.(writeOnlyHolder[M]); ok {
		w.checkPlanned(plan, ops, &resp.Diagnostics)
	}
	if resp.Diagnostics.HasError() {
		return
	}
	h.planned(plan, ops)
	showRefreshedViews(b, h, plan, prior, ops, &resp.Diagnostics)
	clearHookWriteOnly(h, plan)
	resp.Diagnostics.Append(resp.Plan.Set(ctx, plan)...)
}

// modifyDestroyPlan is ModifyPlan of a destroy: the resource's refusal
// (deletion protection), then the destroy's DAG and gates in a warning
// (warnDestroy), with the provider's destroy_approvals checked.
func modifyDestroyPlan[M any](ctx context.Context, b *intentBase, h intentHooks[M], req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	state := getModel[M](ctx, req.State.Get, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	change := h.destroy(state, &resp.Diagnostics)
	if change == nil || resp.Diagnostics.HasError() || b.data == nil {
		return
	}
	ip, ops := planDestroy(b, h, state, *change, nil, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	warnDestroy(state, ops, ip.inputs.Approvals, actorOf(b.data), &resp.Diagnostics)
}

// createIntent is Create: runs the create operations. When one does not
// complete, no state is saved (so nothing is tainted) and the error says
// what to do; applying again resumes, skipping jobs whose evidence holds.
// The record of an operation that did not complete is kept on its host
// (failed_record.go) and continued by the next create of the same
// operation, which removes it once it completes.
func createIntent[M any](ctx context.Context, b *intentBase, h intentHooks[M], req resource.CreateRequest, resp *resource.CreateResponse) {
	plan := getModel[M](ctx, req.Plan.Get, &resp.Diagnostics)
	readConfig(ctx, h, plan, req.Config, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := withTimeout(ctx, "create", h.timeouts(plan).Create, defaultCreateTimeout, &resp.Diagnostics)
	defer cancel()
	ip, ops := applyPlanIntent(ctx, b, h, plan, nil, h.changes(plan, nil, false), &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	failedBefore := readFailedCreates(ctx, ops, &resp.Diagnostics)
	if prepareRun(&ip, h.computed(plan), h.changes(plan, nil, false), ops, keptPrivate{Op: failedBefore.prev}, b.now(), &resp.Diagnostics); resp.Diagnostics.HasError() {
		return
	}
	var runDiags diag.Diagnostics
	results := runOps(ctx, b.data, ops, ip.inputs, &runDiags)
	resp.Diagnostics.Append(runDiags...)
	keepFailedCreates(ctx, ip, results, failedBefore, runDiags.HasError(), &resp.Diagnostics)
	if runDiags.HasError() {
		return
	}
	h.recorded(ctx, plan, nil, results, &resp.Diagnostics)
	clearHookWriteOnly(h, plan)
	resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
	keepPrivate(ctx, resp.Private, keptPrivate{}, ip, results, b.now(), &resp.Diagnostics)
	keepHandleHosts(ctx, resp.Private, ip.handle, &resp.Diagnostics)
	afterApply(ctx, h, plan, ip, resp.State, resp.Identity, &resp.Diagnostics)
}

// updateIntent is Update: runs what the change needs, the same decision
// ModifyPlan made. When an operation does not complete, the prior state
// is kept with what ran recorded, so the next plan shows the change again
// and apply resumes it. Either way the evidence the prior state kept
// stays under what the runs recorded (keepPriorEvidence).
func updateIntent[M any](ctx context.Context, b *intentBase, h intentHooks[M], req resource.UpdateRequest, resp *resource.UpdateResponse) {
	plan := getModel[M](ctx, req.Plan.Get, &resp.Diagnostics)
	prior := getModel[M](ctx, req.State.Get, &resp.Diagnostics)
	readConfig(ctx, h, plan, req.Config, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := withTimeout(ctx, "update", h.timeouts(plan).Update, defaultCreateTimeout, &resp.Diagnostics)
	defer cancel()
	changes := h.changes(plan, prior, sameIntentOf(h, req.Plan.Raw, req.State.Raw))
	changes = withRepair(b, h, plan, prior, changes)
	kept := readPrivate(ctx, req.Private, &resp.Diagnostics)
	changes = resumeChanges(kept, changes)
	if len(changes) == 0 {
		h.kept(ctx, plan, prior, true, &resp.Diagnostics)
		if _, cluster := any(h).(clusterHooks); !cluster {
			// The handle may have changed with nothing to run.
			var specDiags diag.Diagnostics // checked at plan
			keepHandleHosts(ctx, resp.Private, h.spec(plan, prior, b.data, &specDiags).handle, &resp.Diagnostics)
		}
		clearHookWriteOnly(h, plan)
		resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
		setIdentity(ctx, h, plan, resp.Identity, &resp.Diagnostics)
		return
	}
	ip, ops := applyPlanIntent(ctx, b, h, plan, prior, changes, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	ip.inputs.Repair = repairSet(b, h, prior, ops)
	if prepareRun(&ip, h.computed(plan), changes, ops, kept, b.now(), &resp.Diagnostics); resp.Diagnostics.HasError() {
		return
	}
	var runDiags diag.Diagnostics
	results := runOps(ctx, b.data, ops, ip.inputs, &runDiags)
	resp.Diagnostics.Append(runDiags...)
	keepPrivate(ctx, resp.Private, kept, ip, results, b.now(), &resp.Diagnostics)
	before := priorEvidence(h, prior)
	if runDiags.HasError() {
		h.failed(ctx, prior, results, &resp.Diagnostics)
		keepPriorEvidence(h.computed(prior), before, nil)
		resp.Diagnostics.Append(resp.State.Set(ctx, prior)...)
		setIdentity(ctx, h, prior, resp.Identity, &resp.Diagnostics)
		return
	}
	h.recorded(ctx, plan, prior, results, &resp.Diagnostics)
	keepHandleHosts(ctx, resp.Private, ip.handle, &resp.Diagnostics)
	keepPriorEvidence(h.computed(plan), before, staleAfter(b, h, prior, plan))
	clearHookWriteOnly(h, plan)
	resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
	afterApply(ctx, h, plan, ip, resp.State, resp.Identity, &resp.Diagnostics)
}

// deleteIntent is Delete: runs the resource's destroy operation, if it
// has one, with its approvals and the provider's destroy_approvals, once
// every gate of it is decided (refuseUndecidedDestroy): nothing runs
// otherwise. A destroy that does not complete is an error and the
// resource stays in state, to be destroyed again once the cause is fixed.
func deleteIntent[M any](ctx context.Context, b *intentBase, h intentHooks[M], req resource.DeleteRequest, resp *resource.DeleteResponse) {
	state := getModel[M](ctx, req.State.Get, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	change := h.destroy(state, &resp.Diagnostics)
	if change == nil || resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := withTimeout(ctx, "delete", h.timeouts(state).Delete, defaultDeleteTimeout, &resp.Diagnostics)
	defer cancel()
	ip, ops := planDestroy(b, h, state, *change, func(ip *intentPlan) { resolveHandle(ctx, b.data, ip, &resp.Diagnostics) }, &resp.Diagnostics)
	if resp.Diagnostics.HasError() || refuseUndecidedDestroy(state, ops, ip.inputs.Approvals, actorOf(b.data), &resp.Diagnostics) {
		return
	}
	runOps(ctx, b.data, ops, ip.inputs, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		resp.Diagnostics.AddError("Destroy did not complete",
			fmt.Sprintf("%s %s did not complete; the resource stays in state. Fix the cause (see the error above) and destroy again: finished jobs are not run twice.", ip.spec.Pack, change.Action))
	}
}

// importIntent is ImportState of a resource that keeps a state record:
// the id is [id@]address[:port] (idForm names the id's form for errors,
// norm turns the id as written into the resource's id); the record on the
// host is the imported state.
func importIntent[M any](ctx context.Context, b *intentBase, h intentHooks[M], kind, idForm string, norm func(string) string, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if b.data == nil {
		resp.Diagnostics.AddError("Provider not configured", "the cp provider must be configured to import.")
		return
	}
	t, err := parseImportID(req.ID, idForm)
	if err != nil {
		resp.Diagnostics.AddError("Invalid import ID", err.Error())
		return
	}
	id := t.ID
	if id != "" && norm != nil {
		id = norm(id)
	}
	v, err := readStateRecord(ctx, importHost(b.data, t), kind, id, resp.State.Schema.Type().TerraformType(ctx))
	if err != nil {
		resp.Diagnostics.AddError("Cannot import "+kind, err.Error())
		return
	}
	resp.State.Raw = v
	m := getModel[M](ctx, resp.State.Get, &resp.Diagnostics)
	setIdentity(ctx, h, m, resp.Identity, &resp.Diagnostics)
}

// writeOnlyHolder is a resource with write-only arguments: readConfig
// copies them from the configuration (plan and state never hold them),
// clearWriteOnly nulls them again before a plan or state is returned, and
// checkPlanned checks them against the planned operations.
type writeOnlyHolder[M any] interface {
	readConfig(ctx context.Context, m *M, cfg tfsdk.Config, diags *diag.Diagnostics)
	clearWriteOnly(m *M)
	checkPlanned(m *M, ops []intentOp, diags *diag.Diagnostics)
}

func readConfig[M any](ctx context.Context, h intentHooks[M], m *M, cfg tfsdk.Config, diags *diag.Diagnostics) {
	if w, ok := h.(writeOnlyHolder[M]); ok {
		w.readConfig(ctx, m, cfg, diags)
	}
}

func clearHookWriteOnly[M any](h intentHooks[M], m *M) {
	if w, ok := h.(writeOnlyHolder[M]); ok {
		w.clearWriteOnly(m)
	}
}

// recordKeeper is a resource that keeps its state in an intent record on
// hosts (see intent_record.go) after every apply, to be imported from.
type recordKeeper[M any] interface {
	// record is the record's kind, the resource's id and, of the hosts
	// the resource ran on, those that keep the record.
	record(m *M, hosts []operation.HostAccess) (kind, id string, keep []operation.HostAccess)
}

// identified is a resource with a resource identity (Terraform and
// OpenTofu 1.12 on; older CLIs send no identity and get none).
type identified[M any] interface {
	identity(m *M) any
}

// afterApply keeps the record and sets the identity of an applied
// resource whose state is st.
func afterApply[M any](ctx context.Context, h intentHooks[M], m *M, ip intentPlan, st tfsdk.State, id *tfsdk.ResourceIdentity, diags *diag.Diagnostics) {
	if k, ok := h.(recordKeeper[M]); ok {
		kind, rid, hosts := k.record(m, ip.spec.Hosts)
		writeStateRecord(ctx, hosts, kind, rid, st, diags)
	}
	setIdentity(ctx, h, m, id, diags)
}

func setIdentity[M any](ctx context.Context, h intentHooks[M], m *M, id *tfsdk.ResourceIdentity, diags *diag.Diagnostics) {
	if i, ok := h.(identified[M]); ok && id != nil {
		diags.Append(id.Set(ctx, i.identity(m))...)
	}
}

// intentResource implements the framework's resource methods once for an
// intent resource of model M; each resource embeds it, sets its hooks and
// adds Metadata, Schema and ImportState (cp_kubernetes_cluster its own
// Read).
type intentResource[M any] struct {
	intentBase
	hooks intentHooks[M]
}

// Configure receives the provider data.
func (r *intentResource[M]) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.configure(req, resp)
}

// ValidateConfig checks what needs neither SSH nor the provider.
func (r *intentResource[M]) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	validateIntentConfig(ctx, r.hooks, req, resp)
}

// ModifyPlan shows the DAG of what apply will run (modifyIntentPlan).
func (r *intentResource[M]) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	rememberHandleHosts(ctx, req.Private, &resp.Diagnostics)
	modifyIntentPlan(ctx, &r.intentBase, r.hooks, req, resp)
}

// Create runs the create operations (createIntent).
func (r *intentResource[M]) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	createIntent(ctx, &r.intentBase, r.hooks, req, resp)
}

// Read checks the recorded evidence again (readIntent).
func (r *intentResource[M]) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	rememberHandleHosts(ctx, req.Private, &resp.Diagnostics)
	readIntent(ctx, &r.intentBase, r.hooks, req, resp)
}

// Update runs what the change needs (updateIntent).
func (r *intentResource[M]) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	rememberHandleHosts(ctx, req.Private, &resp.Diagnostics)
	updateIntent(ctx, &r.intentBase, r.hooks, req, resp)
}

// Delete runs the destroy operation (deleteIntent).
func (r *intentResource[M]) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	rememberHandleHosts(ctx, req.Private, &resp.Diagnostics)
	deleteIntent(ctx, &r.intentBase, r.hooks, req, resp)
}

// intentModel is what the common hooks need of a model.
type intentModel interface {
	computed() computed
	timeoutsValue() timeouts.Value
	decisionsOf() ([]approvalModel, []interventionModel)
}

// commonHooks are the hooks most resources share: the computed
// attributes planned, kept or forgotten as they are. A resource's own
// method of the same name wins.
type commonHooks[M any, P interface {
	*M
	intentModel
}] struct{}

func (commonHooks[M, P]) computed(m *M) computed       { return P(m).computed() }
func (commonHooks[M, P]) timeouts(m *M) timeouts.Value { return P(m).timeoutsValue() }
func (commonHooks[M, P]) planned(m *M, ops []intentOp) { P(m).computed().planned(ops) }

func (commonHooks[M, P]) decisions(m *M) ([]approvalModel, []interventionModel) {
	return P(m).decisionsOf()
}

func (commonHooks[M, P]) kept(_ context.Context, m, prior *M, _ bool, _ *diag.Diagnostics) {
	P(m).computed().keep(P(prior).computed())
}

func (commonHooks[M, P]) failed(_ context.Context, prior *M, _ []opResult, _ *diag.Diagnostics) {
	P(prior).computed().forgetOperation()
}

// init sets the resource's hooks and clock.
func (r *intentResource[M]) init(h intentHooks[M]) {
	r.intentBase = newIntentBase()
	r.hooks = h
}
