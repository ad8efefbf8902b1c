package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/intentops/terraform-provider-cp/internal/intent"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// intentOp is one planned operation (intent.Op).
type intentOp = intent.Op

// computed points at the computed attributes every intent resource has.
type computed struct {
	PlanSummary, Plan, PlanDigest *types.String
	PlannedInstances              *types.Map
	Operation                     *types.Object
	Artifacts, Evidence, Caps     *types.List
	Handle                        *types.String
	// Pause is the pause_after_stage argument (intent_private.go).
	Pause *types.String
}

// planned shows the operations' summary and marks what apply computes;
// the other plan views are set by showPlanViews, which knows the
// approvals.
func (c computed) planned(ops []intentOp) {
	*c.PlanSummary = types.StringValue(planSummary(ops))
	*c.Operation = types.ObjectUnknown(operationType.AttrTypes)
	*c.Artifacts = types.ListUnknown(artifactType)
	*c.Evidence = types.ListUnknown(evidenceType)
	*c.Caps = types.ListUnknown(capabilityType)
	*c.Handle = types.StringUnknown()
}

// predict keeps known, at plan, what apply leaves the computed attributes
// with when the operations complete, so the diff shows only what they
// change; prior is the state's. An apply that does not complete returns
// an error (nothing is compared with the plan then). It is called after
// planned.
//   - artifacts: prior's (when keepPrior: the cluster's apply merges the
//     operations' artifacts over them; other resources keep only what the
//     last run produced), with each artifact a planned job instance
//     declares (by id and the instance's host) in its place or after
//     them, its value, reference and fingerprint unknown
//     (plannedArtifacts);
//   - operation: the last operation's id, action, template, status
//     (Completed: any other status fails the apply) and phases_total are
//     known; what the run counts and when it ran are not;
//   - a cluster's capabilities (plannedClusterCaps).
//
// With pause_after_stage, apply may stop after that stage with the
// operation Paused (a warning, and the state saved), before some of the
// artifacts and operations: then nothing is predicted.
func (c computed) predict(prior computed, ops []intentOp, keepPrior bool) {
	if len(ops) == 0 || c.Pause == nil || c.Pause.IsUnknown() || c.Pause.ValueString() != "" {
		return
	}
	var kept []protocol.Artifact
	if keepPrior {
		kept = artifactsFromList(*prior.Artifacts)
	}
	*c.Artifacts = plannedArtifacts(kept, ops)
	*c.Operation = plannedOperation(ops[len(ops)-1])
	if keepPrior {
		*c.Caps = plannedClusterCaps(*c.Handle, ops)
	}
}

// plannedClusterCaps are a cluster's capabilities after apply: its pack's
// exports with the values of its configuration, as its handle (known at
// plan) lists them, unless a planned job reports attributes of one of
// them (then known after apply).
func plannedClusterCaps(handle types.String, ops []intentOp) types.List {
	if handle.IsUnknown() || handle.IsNull() {
		return types.ListUnknown(capabilityType)
	}
	h, err := intent.DecodeHandle(handle.ValueString(), intent.ClusterKind)
	if err != nil || len(h.Capabilities) == 0 {
		// A handle without masters lists no exports.
		return types.ListUnknown(capabilityType)
	}
	exported := map[string]bool{}
	for _, c := range h.Capabilities {
		exported[c.Key] = true
	}
	for _, op := range ops {
		for _, in := range op.Composed.Plan.Instances {
			if in.Job == nil {
				continue
			}
			for _, pc := range in.Job.Outputs.Provides.Capabilities {
				if exported[pc.Key] && len(pc.Attributes) > 0 {
					return types.ListUnknown(capabilityType)
				}
			}
		}
	}
	return capabilitiesList(h.Capabilities)
}

// predictComputed is predict for model m planned into c from prior. The
// cluster's apply merges the artifacts it produces over the state's
// (applyResults) and leaves no kubeconfig unless expose_kubeconfig
// (refreshKubeconfig); the other resources record only what their last
// run produced.
func predictComputed(m any, c, prior computed, ops []intentOp) {
	cm, cluster := m.(*clusterModel)
	c.predict(prior, ops, cluster)
	if cluster && len(ops) > 0 && !cm.ExposeKubeconfig.IsUnknown() && !cm.ExposeKubeconfig.ValueBool() {
		cm.Kubeconfig = types.StringNull()
	}
}

// mergeInPlace is prev with the artifacts next produced again (same id
// and host) replaced where they are, and the new ones after them, in
// next's order (protocol.MergeArtifacts sorts next by id then host). An
// operation's artifacts thus diff by position as what it produced, not
// as every artifact after the first new one moving down.
func mergeInPlace(prev, next []protocol.Artifact) []protocol.Artifact {
	key := func(a protocol.Artifact) [2]string { return [2]string{a.ID, a.Host} }
	at := map[[2]string]int{}
	var out []protocol.Artifact
	for _, a := range prev {
		if i, ok := at[key(a)]; ok {
			out[i] = a
			continue
		}
		at[key(a)] = len(out)
		out = append(out, a)
	}
	for _, a := range protocol.MergeArtifacts(nil, next) {
		if i, ok := at[key(a)]; ok {
			out[i] = a
			continue
		}
		at[key(a)] = len(out)
		out = append(out, a)
	}
	return out
}

// plannedArtifacts is the artifacts attribute apply leaves when it merges
// what ops produce over kept (mergeInPlace, as record does). An artifact
// a planned instance produces (engine storeArtifacts) is known in what its
// declaration and the instance decide: id, host, producer, sensitivity, an
// empty ref for a value and an empty value for a secret, and no expiry
// without a ttl; its value or reference and fingerprint are known after
// apply.
func plannedArtifacts(kept []protocol.Artifact, ops []intentOp) types.List {
	produced := map[[2]string]attr.Value{}
	var placeholders []protocol.Artifact
	for _, op := range ops {
		p := op.Composed.Plan
		for _, in := range p.Instances {
			if in.Job == nil {
				continue
			}
			host := instanceHost(p, in)
			for _, a := range in.Job.Outputs.Artifacts {
				k := [2]string{a.ID, host}
				if _, ok := produced[k]; !ok {
					placeholders = append(placeholders, protocol.Artifact{ID: a.ID, Host: host, Producer: in.ID})
				}
				produced[k] = plannedArtifact(a, in.ID, host)
			}
		}
	}
	merged := mergeInPlace(kept, placeholders)
	elems := make([]attr.Value, 0, len(merged))
	for _, a := range merged {
		if v, ok := produced[[2]string{a.ID, a.Host}]; ok {
			elems = append(elems, v)
			continue
		}
		elems = append(elems, artifactObject(a))
	}
	return types.ListValueMust(artifactType, elems)
}

// plannedArtifact is the artifact spec declares as instance produces it
// for host, with what only the run decides unknown.
func plannedArtifact(spec protocol.ArtifactSpec, instance, host string) attr.Value {
	value, ref := types.StringUnknown(), types.StringValue("")
	if spec.Sensitivity == protocol.SensitivitySecret {
		value, ref = types.StringValue(""), types.StringUnknown()
	}
	expires := types.StringValue("")
	if spec.TTL.D() > 0 {
		expires = types.StringUnknown()
	}
	return types.ObjectValueMust(artifactType.AttrTypes, map[string]attr.Value{
		"id": types.StringValue(spec.ID), "host": types.StringValue(host), "sensitivity": types.StringValue(string(spec.Sensitivity)),
		"value": value, "ref": ref, "fingerprint": types.StringUnknown(), "expires_at": expires, "producer": types.StringValue(instance),
	})
}

// instanceHost is the host an instance's artifacts are recorded under:
// its own, or for an instance without one the first master, else the
// first host of the plan's intent (the host the engine runs it for).
func instanceHost(p *protocol.Plan, in *protocol.JobInstance) string {
	if in.Host != "" {
		return in.Host
	}
	if m := p.Intent.HostsWithRole(protocol.RoleMaster); len(m) > 0 {
		return m[0].Name
	}
	if len(p.Intent.Hosts) > 0 {
		return p.Intent.Hosts[0].Name
	}
	return ""
}

// plannedOperation is the operation attribute of op once it completed:
// what the plan decides is known, what the run counts is not.
func plannedOperation(op intentOp) types.Object {
	attrs := map[string]attr.Value{}
	for k, t := range operationType.AttrTypes {
		attrs[k] = unknownOf(t)
	}
	attrs["id"], attrs["action"] = types.StringValue(op.ID), types.StringValue(op.Action)
	attrs["template"] = types.StringValue(op.Composed.Plan.Display())
	attrs["status"] = types.StringValue(string(protocol.StatusCompleted))
	attrs["phases_total"] = types.Int64Value(int64(len(op.Composed.Plan.Stages)))
	return types.ObjectValueMust(operationType.AttrTypes, attrs)
}

func unknownOf(t attr.Type) attr.Value {
	switch t := t.(type) {
	case types.ListType:
		return types.ListUnknown(t.ElemType)
	case basetypes.Int64Type:
		return types.Int64Unknown()
	default:
		return types.StringUnknown()
	}
}

// keep copies from's computed attributes: nothing runs, so nothing may
// change (no perpetual diff).
func (c computed) keep(from computed) {
	*c.PlanSummary, *c.Plan, *c.PlanDigest, *c.PlannedInstances = *from.PlanSummary, *from.Plan, *from.PlanDigest, *from.PlannedInstances
	*c.Operation, *c.Artifacts, *c.Evidence, *c.Caps, *c.Handle = *from.Operation, *from.Artifacts, *from.Evidence, *from.Caps, *from.Handle
}

// forgetOperation marks the recorded operation as not completed, so the
// next plan runs the action again.
func (c computed) forgetOperation() { *c.Operation = types.ObjectNull(operationType.AttrTypes) }

// record stores the results of the operations that ran over the prior
// artifacts, and returns the artifacts: the last operation, the evidence
// of every run (the skeleton keeps the prior state's under it:
// keepPriorEvidence), the capabilities caps returns for them, and the
// handle. What belonged to a host that left stays, as the plan shows it,
// until the refresh after (dropGoneHosts, kept_evidence.go), so the plan
// of a removal does not list it.
func (c computed) record(results []opResult, prior []protocol.Artifact, caps func(last opResult, arts []protocol.Artifact) []protocol.Capability,
	handle func(arts []protocol.Artifact, caps []protocol.Capability) intent.Handle) []protocol.Artifact {
	arts := prior
	for _, r := range results {
		arts = mergeInPlace(arts, r.Result.Artifacts)
	}
	last := results[len(results)-1]
	*c.Operation = operationObject(last.Op.Action, &last.Result.Operation, last.Op.Composed.Plan, last.Result)
	*c.Artifacts = artifactsList(arts)
	keepRunEvidence(c, results)
	provided := caps(last, arts)
	*c.Caps = capabilitiesList(provided)
	*c.Handle = types.StringValue(handle(arts, provided).Encode())
	if c.PlanSummary.IsUnknown() || c.PlanSummary.IsNull() || c.Plan.IsUnknown() || c.Plan.IsNull() {
		// Not planned with known values: the views without approvals.
		ops := opsOf(results)
		*c.PlanSummary = types.StringValue(planSummary(ops))
		renderOpViews(ops, nil, intent.Actor{}).set(c)
	}
	return arts
}

func opsOf(results []opResult) []intentOp {
	var out []intentOp
	for _, r := range results {
		out = append(out, r.Op)
	}
	return out
}

// singleAction is the change of a resource that runs one action: on
// create, and again when its intent changed or its last operation did not
// complete.
func singleAction(action string, prior bool, completed, same bool, parts ...string) []intent.Change {
	if prior && completed && same {
		return nil
	}
	return []intent.Change{{Action: action, IDParts: parts}}
}

// sameOnHandle says whether a resource on a cluster handle, its own
// intent unchanged, keeps what it ran: the handle is the prior one, or,
// when rerun allows (the prior operation completed and no host left with
// something to remove), the action has nothing new to run under the
// planned handle (intent.HandleRerun.NothingNew), its plans under both
// handles composed from the configuration. Then the resource plans no
// action and only cluster_handle changes.
func sameOnHandle[M any](b *intentBase, h intentHooks[M], plan, prior *M, next, before types.String, rerun bool) bool {
	if next.Equal(before) {
		return true
	}
	if !rerun || b == nil || b.data == nil || next.IsUnknown() || next.IsNull() || before.IsUnknown() || before.IsNull() {
		return false
	}
	nh, err1 := intent.DecodeClusterHandle(next.ValueString())
	ph, err2 := intent.DecodeClusterHandle(before.ValueString())
	if err1 != nil || err2 != nil {
		return false
	}
	nextOps, err1 := ownOps(b, h, plan)
	priorOps, err2 := ownOps(b, h, prior)
	if err1 != nil || err2 != nil {
		return false
	}
	return intent.HandleRerun{PriorCompleted: true, SameOwnIntent: true, Prior: ph, Next: nh,
		PriorPlans: opPlans(priorOps), NextPlans: opPlans(nextOps)}.NothingNew()
}

func opPlans(ops []intentOp) []*protocol.Plan {
	out := make([]*protocol.Plan, len(ops))
	for i, op := range ops {
		out[i] = op.Composed.Plan
	}
	return out
}

// IntentComputed are the computed attributes every intent resource's
// model embeds.
type IntentComputed struct {
	PlanSummary      types.String `tfsdk:"plan_summary"`
	Plan             types.String `tfsdk:"plan"`
	PlannedInstances types.Map    `tfsdk:"planned_instances"`
	PlanDigest       types.String `tfsdk:"plan_digest"`
	Operation        types.Object `tfsdk:"operation"`
	Artifacts        types.List   `tfsdk:"artifacts"`
	Evidence         types.List   `tfsdk:"evidence"`
	Capabilities     types.List   `tfsdk:"capabilities"`
	Handle           types.String `tfsdk:"handle"`
	PauseAfterStage  types.String `tfsdk:"pause_after_stage"`
}

func (m *IntentComputed) computed() computed {
	return computed{PlanSummary: &m.PlanSummary, Plan: &m.Plan, PlanDigest: &m.PlanDigest, PlannedInstances: &m.PlannedInstances, Operation: &m.Operation,
		Artifacts: &m.Artifacts, Evidence: &m.Evidence, Caps: &m.Capabilities, Handle: &m.Handle, Pause: &m.PauseAfterStage}
}
