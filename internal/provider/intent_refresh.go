package provider

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/intentops/terraform-provider-cp/internal/engine"
	"github.com/intentops/terraform-provider-cp/internal/intent"
	"github.com/intentops/terraform-provider-cp/internal/operation"
	"github.com/intentops/terraform-provider-cp/internal/planner"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
	"github.com/intentops/terraform-provider-cp/internal/transport"
)

// Refresh reads evidence; drift is planned as a repair.
//
// On Read, every intent resource whose last operation completed checks
// the recorded evidence of its jobs again on their hosts (engine.Recheck:
// one command per host) and records what it observed: the evidence of
// every job instance its operations ran that its own plan holds, so a
// create's checks on the nodes a later add_node did not touch are checked
// too. The next plan of a
// resource whose evidence no longer holds, and whose configuration asks
// for nothing else, is a repair: the resource's own plan again, in which
// the drifted instances and the instances that follow them (their
// dependents on the same host, transitively) run again, and every other
// instance whose evidence held is shown satisfied and skipped by apply. With the
// provider's refresh_evidence = false nothing is checked, no SSH command
// runs at refresh, and no plan is a repair.

// refreshCheckTimeout bounds each evidence check at refresh.
const refreshCheckTimeout = 30 * time.Second

// recordedEvidence is the evidence the state keeps for c: the results
// of the checks of the instances its operations ran, the newest
// operation's for an instance several ran (keepPriorEvidence), as last
// observed (by that operation or by a refresh). It is the one place that
// reads them.
func recordedEvidence(c computed) []engine.InstanceEvidence { return evidenceRecords(*c.Evidence) }

// setRecordedEvidence stores evs as c's recorded evidence.
func setRecordedEvidence(c computed, evs []engine.InstanceEvidence) { *c.Evidence = evidenceValue(evs) }

// readIntent is Read for the intent resources whose state is their last
// apply: the evidence is checked again (refreshEvidence).
func readIntent[M any](ctx context.Context, b *intentBase, h intentHooks[M], req resource.ReadRequest, resp *resource.ReadResponse) {
	m := getModel[M](ctx, req.State.Get, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	refreshIntent(ctx, b, h, m, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, m)...)
	setIdentity(ctx, h, m, resp.Identity, &resp.Diagnostics)
}

// refreshIntent is what Read refreshes of an intent resource: what
// belonged to hosts that left (dropGoneHosts), its evidence
// (refreshEvidence), then the summary of a completed operation.
func refreshIntent[M any](ctx context.Context, b *intentBase, h intentHooks[M], m *M, diags *diag.Diagnostics) {
	dropGoneHosts(b, h, m)
	ops := refreshEvidence(ctx, b, h, m, diags)
	summarizeCompleted(b, h, m, ops)
}

// refreshEvidence checks the recorded evidence of m's job instances (of
// every operation that ran them, once its last one completed) again and
// records what changed. Hosts it cannot reach, and checks it
// cannot run, are a warning and keep their recorded result. It returns
// the resource's own operations when it composed them.
func refreshEvidence[M any](ctx context.Context, b *intentBase, h intentHooks[M], m *M, diags *diag.Diagnostics) []intentOp {
	if b.data == nil || !b.data.RefreshEvidence {
		return nil
	}
	c := h.computed(m)
	if !operationCompleted(*c.Operation) {
		return nil
	}
	rec := recordedEvidence(c)
	if len(rec) == 0 {
		return nil
	}
	ops, arts, err := refreshOps(ctx, b, h, m)
	if err != nil {
		diags.AddWarning("Evidence not checked", fmt.Sprintf("The resource's plan could not be made again to check its evidence: %v\nThe state keeps the recorded evidence; set refresh_evidence = false in the provider to skip this check.", err))
		return nil
	}
	observed, skipped := recheckOps(ctx, b.data, ops, rec, arts)
	merged, drifted := mergeEvidence(rec, observed)
	setRecordedEvidence(c, merged)
	if len(skipped) > 0 {
		var lines []string
		for _, s := range firstSkips(skipped, 5) {
			lines = append(lines, fmt.Sprintf("  %s on %s: %s", s.Instance, s.Host, s.Reason))
		}
		if len(skipped) > 5 {
			lines = append(lines, fmt.Sprintf("  and %d more", len(skipped)-5))
		}
		diags.AddWarning("Evidence not checked on some hosts",
			fmt.Sprintf("The evidence of %d job instance(s) was not checked again; the state keeps their recorded result:\n%s\nSet refresh_evidence = false in the provider to skip these checks.", len(skipped), strings.Join(lines, "\n")))
	}
	if len(drifted) > 0 {
		var lines []string
		for i, e := range drifted {
			if i == 5 {
				lines = append(lines, fmt.Sprintf("  and %d more", len(drifted)-5))
				break
			}
			lines = append(lines, "  "+e.Instance+" on "+e.Host+": "+driftText(e))
		}
		diags.AddWarning("Evidence no longer holds",
			fmt.Sprintf("%d evidence check(s) failed when checked again:\n%s\nThe next plan repairs the jobs whose evidence failed, and the jobs that follow them.", len(drifted), strings.Join(lines, "\n")))
	}
	return ops
}

// summarizeCompleted shortens the plan views of a completed operation in
// state to what ran (completedPlan, completedSummary): the next plan's
// diff then shows the new plan against one line per operation, not the
// whole previous plan. The executed DAG stays in planned_instances,
// plan_digest and the operation. A plan shows the full views of what it
// will run, which apply stores as planned (OpenTofu compares them); the
// refresh after shortens them, and a plan with nothing to run keeps the
// state's (no diff).
func summarizeCompleted[M any](b *intentBase, h intentHooks[M], m *M, _ []intentOp) {
	c := h.computed(m)
	if b.data == nil || !operationCompleted(*c.Operation) {
		return
	}
	if !c.Plan.IsNull() && !c.Plan.IsUnknown() {
		if short := completedPlan(c.Plan.ValueString()); short != "" {
			*c.Plan = types.StringValue(short)
		}
	}
	if !c.PlanSummary.IsNull() && !c.PlanSummary.IsUnknown() {
		if short := completedSummary(c.PlanSummary.ValueString()); short != "" {
			*c.PlanSummary = types.StringValue(short)
		}
	}
}

func firstSkips(s []engine.RecheckSkip, n int) []engine.RecheckSkip {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// ownOps are the operations of the resource's own plan, as its state
// describes it: the plan whose instances its recorded evidence belongs to
// and that a repair runs again.
func ownOps[M any](b *intentBase, h intentHooks[M], m *M) ([]intentOp, error) {
	ops, _, err := composeOwn(context.Background(), b, h, m, false)
	return ops, err
}

// refreshOps are ownOps with the artifacts the checks may read: the
// state's and, for a resource on a cluster handle, the cluster's, read
// from the record its masters keep (as apply reads them).
func refreshOps[M any](ctx context.Context, b *intentBase, h intentHooks[M], m *M) ([]intentOp, []protocol.Artifact, error) {
	return composeOwn(ctx, b, h, m, true)
}

func composeOwn[M any](ctx context.Context, b *intentBase, h intentHooks[M], m *M, resolve bool) ([]intentOp, []protocol.Artifact, error) {
	if b.data == nil || b.data.Catalog == nil {
		return nil, nil, fmt.Errorf("the provider has no pack catalog")
	}
	var local diag.Diagnostics
	ip := h.spec(m, m, b.data, &local)
	if resolve && !local.HasError() {
		resolveHandle(ctx, b.data, &ip, &local)
	}
	if local.HasError() {
		return nil, nil, fmt.Errorf("%s", diagErrorsText(local))
	}
	withChoices(&ip, b.data)
	ops, _, err := ip.spec.ComposeAll(b.planning(), h.changes(m, nil, false))
	if err != nil {
		return nil, nil, err
	}
	return ops, protocol.MergeArtifacts(artifactsFromList(*h.computed(m).Artifacts), ip.inputs.Artifacts), nil
}

func diagErrorsText(d diag.Diagnostics) string {
	var parts []string
	for _, e := range d.Errors() {
		parts = append(parts, e.Summary()+": "+e.Detail())
	}
	return strings.Join(parts, "; ")
}

// recheckOps checks the recorded evidence of each operation's instances
// on their hosts.
func recheckOps(ctx context.Context, data *providerData, ops []intentOp, rec []engine.InstanceEvidence, arts []protocol.Artifact) ([]engine.InstanceEvidence, []engine.RecheckSkip) {
	want := map[string][]string{}
	for _, e := range rec {
		want[e.Instance] = append(want[e.Instance], e.ID)
	}
	var observed []engine.InstanceEvidence
	var skipped []engine.RecheckSkip
	for _, op := range ops {
		mine := map[string][]string{}
		for _, in := range op.Composed.Plan.Instances {
			if ids, ok := want[in.ID]; ok && !in.IsGate() {
				mine[in.ID] = ids
			}
		}
		if len(mine) == 0 {
			continue
		}
		redactor := &transport.Redactor{}
		pool, err := operation.Pool(op.Hosts, redactor)
		if err != nil {
			for id := range mine {
				skipped = append(skipped, engine.RecheckSkip{Instance: id, Reason: err.Error()})
			}
			continue
		}
		become := false
		for _, h := range op.Hosts {
			become = become || h.Access.User != "root"
		}
		res, err := engine.Recheck(ctx, pool, engine.RecheckInput{
			Plan: op.Composed.Plan, Instances: mine, Artifacts: arts, Timeout: refreshCheckTimeout,
			Parallelism: data.Parallelism, Redactor: redactor, StateBecome: become,
		})
		pool.Close()
		if err != nil {
			for id := range mine {
				skipped = append(skipped, engine.RecheckSkip{Instance: id, Reason: err.Error()})
			}
			continue
		}
		observed = append(observed, res.Evidence...)
		skipped = append(skipped, res.Skipped...)
		for id := range mine {
			delete(want, id)
		}
	}
	sort.Slice(skipped, func(i, j int) bool { return skipped[i].Instance < skipped[j].Instance })
	return observed, skipped
}

// mergeEvidence replaces each recorded result that the recheck found
// failing, or passing again, and returns the merged list and the failing
// results, in the recorded order. A check that still passes keeps its
// record as it was (time and output), so a refresh that finds nothing
// changes nothing in state.
func mergeEvidence(rec, observed []engine.InstanceEvidence) ([]engine.InstanceEvidence, []engine.InstanceEvidence) {
	type key struct{ instance, id string }
	now := map[key]engine.InstanceEvidence{}
	for _, e := range observed {
		now[key{e.Instance, e.ID}] = e
	}
	out := make([]engine.InstanceEvidence, len(rec))
	var drifted []engine.InstanceEvidence
	for i, e := range rec {
		if o, ok := now[key{e.Instance, e.ID}]; ok && (o.Passed != e.Passed || (!o.Passed && observedOf(o) != e.Observed)) {
			e.Passed, e.Observed, e.CheckedAt = o.Passed, observedOf(o), o.CheckedAt
			if o.Host != "" {
				e.Host = o.Host
			}
		}
		out[i] = e
		if !e.Passed {
			drifted = append(drifted, e)
		}
	}
	return out, drifted
}

// observedOf is what the state records as observed: the output compared
// or, for a failing check, why it failed (what it observed and what was
// expected, the last line of its stderr), redacted.
func observedOf(e engine.InstanceEvidence) string {
	if !e.Passed && e.Detail != "" {
		return e.Detail
	}
	return e.Observed
}

// driftText is why a failing evidence makes a repair: its id and what it
// observed (redacted when observed; truncated by the views).
func driftText(e engine.InstanceEvidence) string {
	obs := e.Observed
	switch {
	case obs == "":
		obs = "observed nothing"
	case !strings.HasPrefix(obs, "observed "):
		obs = "observed " + obs
	}
	return fmt.Sprintf("evidence %s failed: %s", e.ID, truncate(obs, 200))
}

// evidenceStates is what the state's refreshed evidence says of the
// instances of p: those to repair (a recorded check failed, or they
// follow one that did) with why, and those satisfied (completed with the
// same idempotency key, keys giving the keys of the resource's own plan
// by instance id, and every recorded check holding). Nothing is said
// with refresh_evidence off or before the resource's operation completed.
func evidenceStates(data *providerData, prior *computed, keys map[string]string, p *protocol.Plan) (map[string]string, map[string]bool) {
	if data == nil || !data.RefreshEvidence || prior == nil || !operationCompleted(*prior.Operation) {
		return nil, nil
	}
	failed := map[string][]engine.InstanceEvidence{}
	checked := map[string]bool{}
	for _, e := range recordedEvidence(*prior) {
		checked[e.Instance] = true
		if !e.Passed {
			failed[e.Instance] = append(failed[e.Instance], e)
		}
	}
	repair := map[string]string{}
	satisfied := map[string]bool{}
	for _, in := range p.Instances {
		if in.IsGate() {
			continue
		}
		if fs, ok := failed[in.ID]; ok {
			reasons := make([]string, len(fs))
			for i, f := range fs {
				reasons[i] = driftText(f)
			}
			repair[in.ID] = strings.Join(reasons, "; ")
			continue
		}
		k, ok := keys[in.ID]
		if !ok || k != in.IdempotencyKey {
			continue
		}
		if checked[in.ID] || (in.Job != nil && len(in.Job.Outputs.Evidence) == 0) {
			satisfied[in.ID] = true
		}
	}
	if len(repair) == 0 {
		return nil, satisfied
	}
	for id, why := range followers(p, repair) {
		repair[id] = why
		delete(satisfied, id)
	}
	return repair, satisfied
}

// followers are the job instances that depend, directly or through
// others on the same host, on a repaired instance and run for the same
// host: the job they need changes that host under them, so they run
// again after it. Each says which repaired instance it follows (the
// first by id). A dependent for another host is judged by its own
// evidence, which the refresh checked too; gates are decided again by
// the approvals, never repaired.
func followers(p *protocol.Plan, repair map[string]string) map[string]string {
	byID := map[string]*protocol.JobInstance{}
	dependents := map[string][]string{}
	for _, in := range p.Instances {
		byID[in.ID] = in
		for _, n := range in.Needs {
			dependents[n] = append(dependents[n], in.ID)
		}
	}
	out := map[string]string{}
	for _, root := range protocol.SortedKeys(repair) {
		r := byID[root]
		if r == nil {
			continue
		}
		queue := []string{root}
		for len(queue) > 0 {
			id := queue[0]
			queue = queue[1:]
			for _, d := range dependents[id] {
				di := byID[d]
				if di == nil || di.IsGate() || di.Host != r.Host {
					continue
				}
				if _, ok := repair[d]; ok {
					continue
				}
				if _, ok := out[d]; ok {
					continue
				}
				out[d] = "follows the repair of " + root
				queue = append(queue, d)
			}
		}
	}
	return out
}

// ownKeys are the idempotency keys of the instances of the prior
// state's own plan (ownOps), by instance id: the keys its markers were
// written under. Nil when that plan cannot be made, or when nothing
// would be said of it (refresh_evidence off, no completed operation).
func ownKeys[M any](b *intentBase, h intentHooks[M], prior *M) map[string]string {
	if prior == nil || b.data == nil || !b.data.RefreshEvidence || !operationCompleted(*h.computed(prior).Operation) {
		return nil
	}
	return ownKeysOf(b, h, prior)
}

// withRepair is the changes of a plan: those the configuration asks
// for, or, when it asks for none and the refreshed evidence of the prior
// state failed, the resource's own plan again as a repair.
func withRepair[M any](b *intentBase, h intentHooks[M], plan, prior *M, changes []intent.Change) []intent.Change {
	if len(changes) > 0 || prior == nil || b.data == nil || !b.data.RefreshEvidence {
		return changes
	}
	c := h.computed(prior)
	if !operationCompleted(*c.Operation) {
		return changes
	}
	var failed []string
	for _, e := range recordedEvidence(c) {
		if !e.Passed {
			failed = append(failed, e.Instance)
		}
	}
	if len(failed) == 0 {
		return changes
	}
	// Only a failing check the repair can run again makes one: the state
	// keeps the evidence of earlier operations' instances too, and one
	// that the own plan does not hold (a day-2 job's) is never checked
	// again, so it would plan the same repair forever.
	if keys := ownKeys(b, h, prior); keys != nil && !slices.ContainsFunc(failed, func(id string) bool { _, ok := keys[id]; return ok }) {
		return changes
	}
	return h.changes(plan, nil, false)
}

// repairSet is the instances apply runs again although their markers
// stand, over every operation (engine.RunInput.Repair).
func repairSet[M any](b *intentBase, h intentHooks[M], priorModel *M, ops []intentOp) map[string]string {
	if priorModel == nil {
		return nil
	}
	data, c := b.data, h.computed(priorModel)
	prior := &c
	keys := ownKeys(b, h, priorModel)
	out := map[string]string{}
	for _, op := range ops {
		repair, _ := evidenceStates(data, prior, keys, op.Composed.Plan)
		for id, why := range repair {
			out[id] = why
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// showRefreshedViews is showIntentPlanViews with what the refreshed
// evidence of the prior state says: instances to repair, and instances
// satisfied.
func showRefreshedViews[M any](b *intentBase, h intentHooks[M], m, prior *M, ops []intentOp, diags *diag.Diagnostics) {
	approvals, _ := h.decisions(m)
	var pc *computed
	if prior != nil {
		c := h.computed(prior)
		pc = &c
	}
	keys := ownKeys(b, h, prior)
	ov := opViews{ops: ops}
	sums := make([]string, len(ops))
	for i, op := range ops {
		st := gateStates(op.Composed.Plan, approvals, actorOf(b.data))
		st.Repair, st.Satisfied = evidenceStates(b.data, pc, keys, op.Composed.Plan)
		ov.views = append(ov.views, planner.Views(op.Composed.Plan, st))
		sums[i] = planner.RenderSimpleState(op.Composed.Plan, planner.ViewState{Repair: st.Repair, Satisfied: st.Satisfied})
	}
	c := h.computed(m)
	ov.set(c)
	ov.warnWaiting(diags)
	if pc != nil {
		*c.PlanSummary = types.StringValue(strings.Join(sums, "\n"))
		predictComputed(m, c, *pc, ops)
	}
}
