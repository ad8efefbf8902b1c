package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/types"

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
// artifacts, and returns the artifacts: the last operation, its evidence,
// the capabilities caps returns for them, and the handle.
func (c computed) record(results []opResult, prior []protocol.Artifact, caps func(last opResult, arts []protocol.Artifact) []protocol.Capability,
	handle func(arts []protocol.Artifact, caps []protocol.Capability) intent.Handle) []protocol.Artifact {
	arts := prior
	for _, r := range results {
		arts = protocol.MergeArtifacts(arts, r.Result.Artifacts)
	}
	last := results[len(results)-1]
	*c.Operation = operationObject(last.Op.Action, &last.Result.Operation, last.Op.Composed.Plan, last.Result)
	*c.Artifacts = artifactsList(arts)
	*c.Evidence = evidenceList(last.Result)
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
