package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/intentops/terraform-provider-cp/internal/engine"
	"github.com/intentops/terraform-provider-cp/internal/intent"
	"github.com/intentops/terraform-provider-cp/internal/operation"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// Private state: what the next operation of an intent resource needs and
// users need not see. Terraform keeps it in the state file, not in the
// plan, under three keys:
//   - "operation": the last operation's record (operation.Kept), which the
//     next apply continues (a Paused one resumes, a Failed one is
//     verified when interventions are given);
//   - "secrets": the artifact values a later operation consumes, with
//     their expiry (operation.KeptValue): the join token and the CA
//     certificate hash; an expired value is dropped, so the job that
//     makes it runs again;
//   - "build": the pack version, customization and plan patches the
//     resource was last built from.
//
// A create that does not complete has no private state: its operation
// record is kept on a host instead (failed_record.go).
const (
	privOperation = "operation"
	privSecrets   = "secrets"
	privBuild     = "build"
)

// privateReader and privateWriter are the framework's private state
// (ProviderData) as the skeleton passes it.
type privateReader interface {
	GetKey(ctx context.Context, key string) ([]byte, diag.Diagnostics)
}

type privateWriter interface {
	SetKey(ctx context.Context, key string, value []byte) diag.Diagnostics
}

// buildRecord is what a resource was built from.
type buildRecord struct {
	Pack          string                  `json:"pack"`
	Version       string                  `json:"version"`
	Customization *protocol.Customization `json:"customization,omitempty"`
	Patches       []string                `json:"patches,omitempty"`
}

// keptPrivate is what the last apply kept.
type keptPrivate struct {
	Op     *operation.Kept
	Values []operation.KeptValue
	Build  *buildRecord
}

// readPrivate reads the private state; a value that cannot be read is a
// warning and is ignored (the next apply starts a new operation).
func readPrivate(ctx context.Context, p privateReader, diags *diag.Diagnostics) keptPrivate {
	var k keptPrivate
	if p == nil {
		return k
	}
	get := func(key string) []byte {
		b, d := p.GetKey(ctx, key)
		diags.Append(d...)
		return b
	}
	var err error
	if k.Op, err = operation.DecodeKept(get(privOperation)); err != nil {
		diags.AddWarning("Cannot read the last operation", err.Error()+"\n\nThe next apply records a new operation.")
	}
	if k.Values, err = operation.DecodeValues(get(privSecrets)); err != nil {
		diags.AddWarning("Cannot read the kept artifact values", err.Error()+"\n\nArtifacts are read by reference from the hosts instead.")
	}
	if b := get(privBuild); len(b) > 0 {
		var br buildRecord
		if err := json.Unmarshal(b, &br); err == nil {
			k.Build = &br
		}
	}
	return k
}

// keepPrivate writes what the last operation that ran leaves for the
// next: its record and change, the consumed artifact values and the
// build. Nothing is written when no operation ran.
func keepPrivate(ctx context.Context, p privateWriter, prev keptPrivate, ip intentPlan, results []opResult, now time.Time, diags *diag.Diagnostics) {
	if p == nil || len(results) == 0 {
		return
	}
	last := results[len(results)-1]
	k := operation.Kept{Operation: last.Result.Operation, Action: last.Op.Action, Targets: last.Op.Targets,
		Create: intent.IsCreate(last.Op.Composed.Pack, last.Op.Action)}
	for _, c := range ip.inputs.Changes {
		if c.Action == last.Op.Action {
			k.IDParts, k.Resumable = c.IDParts, resumable(c)
		}
	}
	if k.Operation.Status == protocol.StatusPaused {
		k.PausedAfter = ip.inputs.PauseAfterStage
	}
	b, err := k.Encode()
	if err != nil {
		diags.AddWarning("Cannot keep the operation record", err.Error())
		return
	}
	diags.Append(p.SetKey(ctx, privOperation, b)...)
	values := prev.Values
	for _, r := range results {
		res := r.Result
		values = operation.KeepValues(values, res.Artifacts, func(a protocol.Artifact) (string, bool) {
			if a.Sensitivity == protocol.SensitivitySecret {
				return res.SecretValue(a.ID, a.Producer)
			}
			return a.Value, a.Value != ""
		}, operation.Consumed(r.Op.Composed.Pack), now)
	}
	if b, err := operation.EncodeValues(values); err == nil {
		diags.Append(p.SetKey(ctx, privSecrets, b)...)
	}
	pack := last.Op.Composed.Pack
	br := buildRecord{Pack: pack.ID, Version: pack.Version, Customization: ip.spec.Customization}
	for _, pp := range ip.spec.Patches {
		br.Patches = append(br.Patches, pp.ID)
	}
	if b, err := json.Marshal(br); err == nil {
		diags.Append(p.SetKey(ctx, privBuild, b)...)
	}
}

// withKept gives the run inputs what the last apply kept: the operation
// to continue and the artifact values still valid at now.
func (in *runInputs) withKept(k keptPrivate, now time.Time) {
	in.Prev = k.Op
	in.Values = operation.Usable(k.Values, now)
}

// resumable says whether a change can be run again from its kept record:
// one computed from the prior hosts (remove_node) or carrying parameters
// of its own (relabel) cannot, since a paused apply saves the new state.
func resumable(c intent.Change) bool { return c.Hosts == nil && c.Params == nil }

// resumeChanges adds the change of an operation the last apply left
// unfinished (Paused, or Failed after a pause) when the resource's own
// changes do not run its action again: a cluster's create paused, then
// failed on resume, is not a change of its hosts. Only a resumable change
// is added; a Completed or Cancelled operation is over. An unfinished
// create is resumed alone: it plans the whole intent as configured, so
// what a diff against the state it left would add (a worker the refresh
// dropped because the paused create had not joined it yet) is its own.
func resumeChanges(k keptPrivate, changes []intent.Change) []intent.Change {
	if k.Op == nil || k.Op.Operation.Status.Terminal() || !k.Op.Resumable {
		return changes
	}
	resume := intent.Change{Action: k.Op.Action, Targets: k.Op.Targets, IDParts: k.Op.IDParts}
	if k.Op.Create {
		return []intent.Change{resume}
	}
	for _, c := range changes {
		if c.Action == k.Op.Action {
			return changes
		}
	}
	return append([]intent.Change{resume}, changes...)
}

// pauseAfterStageAttr is the pause_after_stage argument every intent
// resource has.
func pauseAfterStageAttr() schema.StringAttribute {
	return schema.StringAttribute{
		MarkdownDescription: "Id of a stage of the operation's plan (see `plan`) after which apply stops: the stages up to it run, " +
			"no job of a later stage starts, and the resource is saved with its operation `Paused` (a warning, not an error). " +
			"Removing the argument, or naming a later stage, makes the next apply resume from the next stage; finished jobs are " +
			"not run again. A stage the plan does not have is refused at plan.",
		Optional: true,
	}
}

// pauseOf is the pause_after_stage value, "" when unset.
func pauseOf(v *types.String) string {
	if v == nil {
		return ""
	}
	return strOr(*v, "")
}

// checkPauseStage refuses at plan a pause_after_stage no planned
// operation has, or one whose operation could not be resumed.
func checkPauseStage(ops []intentOp, changes []intent.Change, stage string, diags *diag.Diagnostics) {
	if stage == "" || len(ops) == 0 {
		return
	}
	var all []string
	for _, op := range ops {
		for _, s := range op.Composed.Plan.Stages {
			if s.ID == stage {
				for _, c := range changes {
					if c.Action == op.Action && !resumable(c) {
						addAttrError(diags, path.Root("pause_after_stage"), "Cannot pause this operation",
							fmt.Sprintf("%s is computed from the hosts before this change, which a paused apply does not keep, so it could not be resumed. "+
								"Remove pause_after_stage for this change.", op.Composed.Plan.Display()))
					}
				}
				return
			}
			all = append(all, s.ID)
		}
	}
	slices.Sort(all)
	all = slices.Compact(all)
	addAttrError(diags, path.Root("pause_after_stage"), "Unknown stage",
		fmt.Sprintf("%q is not a stage of the planned operation (%s). Use one of: %s; or remove the argument to run every stage.",
			stage, opNames(ops), strings.Join(all, ", ")))
}

func opNames(ops []intentOp) string {
	var s []string
	for _, op := range ops {
		s = append(s, op.Composed.Plan.Display())
	}
	return strings.Join(s, ", ")
}

// stopAfter is the StopAfterStage of one operation's run: the pause
// stage when the operation's plan has it.
func stopAfter(op intentOp, stage string) string {
	if stage != "" && slices.ContainsFunc(op.Composed.Plan.Stages, func(s protocol.PlanStage) bool { return s.ID == stage }) {
		return stage
	}
	return ""
}

// stagesAfter lists the stage ids after stage in the plan (all when stage
// is not in it).
func stagesAfter(plan *protocol.Plan, stage string) []string {
	var out []string
	seen := stage == ""
	for _, s := range plan.Stages {
		if seen {
			out = append(out, s.ID)
		}
		if s.ID == stage {
			seen = true
		}
	}
	if !seen {
		for _, s := range plan.Stages {
			out = append(out, s.ID)
		}
	}
	return out
}

// showResume says at plan what apply does with an unfinished operation:
// that it continues under another pack version than it was built from,
// and for a Paused one which stages resume runs, or that it stays paused.
func showResume(k keptPrivate, ops []intentOp, stage string, diags *diag.Diagnostics) {
	checkBuild(k, ops, diags)
	if k.Op == nil || k.Op.Operation.Status != protocol.StatusPaused {
		return
	}
	for _, op := range ops {
		if op.ID != k.Op.Operation.ID {
			continue
		}
		if stage != "" && stage == k.Op.PausedAfter {
			diags.AddWarning(fmt.Sprintf("Operation %s stays paused", op.ID),
				fmt.Sprintf("%s is Paused after stage %s and pause_after_stage still names it: apply runs nothing new. Remove pause_after_stage, or name a later stage, to resume.", op.Composed.Plan.Display(), stage))
			return
		}
		detail := fmt.Sprintf("%s is Paused after stage %s. This apply resumes it (Paused -> Running) with stages %s; the jobs that finished are checked by their evidence and not run again.",
			op.Composed.Plan.Display(), k.Op.PausedAfter, strings.Join(stagesAfter(op.Composed.Plan, k.Op.PausedAfter), ", "))
		if stage != "" {
			detail += fmt.Sprintf(" It pauses again after stage %s.", stage)
		}
		diags.AddWarning(fmt.Sprintf("Operation %s resumes", op.ID), detail)
		return
	}
}

// checkBuild warns when an unfinished operation is continued from a pack
// version other than the one its first run was built from (the build
// key): the jobs that finished stay done, the rest run the new version.
func checkBuild(k keptPrivate, ops []intentOp, diags *diag.Diagnostics) {
	if k.Op == nil || k.Op.Operation.Status.Terminal() || k.Build == nil {
		return
	}
	for _, op := range ops {
		pack := op.Composed.Pack
		if op.ID != k.Op.Operation.ID || pack == nil || (pack.ID == k.Build.Pack && pack.Version == k.Build.Version) {
			continue
		}
		diags.AddWarning(fmt.Sprintf("Operation %s continues under another pack version", op.ID),
			fmt.Sprintf("%s (%s) was built from pack %s %s and is continued with %s %s: the jobs that finished stay done, the others run the scripts of %s. "+
				"To run it as built, pin the pack version it was built from.", op.ID, k.Op.Operation.Status, k.Build.Pack, k.Build.Version, pack.ID, pack.Version, pack.Version))
	}
}

// plannedOp is the record of an operation composed in this apply: the
// intent drafted, its plan composed and capabilities resolved at the
// planning clock (op.Req.Now), when the provider did them.
func plannedOp(op intentOp, actor string) (*protocol.Operation, error) {
	at := op.Req.Now
	if at.IsZero() {
		at = time.Now()
	}
	return operation.Planned(op.ID, op.Composed.Plan, actor, operation.Planning{
		Drafted: at, Composed: at, Resolved: at,
		Intent:     fmt.Sprintf("%s %s of %s on %d host(s)", op.Composed.Pack.ID, op.Action, orDash(op.Composed.Plan.Intent.TargetResource), len(op.Hosts)),
		Resolution: resolutionSummary(op),
	})
}

// resolutionSummary names each requirement's decision, sorted.
func resolutionSummary(op intentOp) string {
	var s []string
	for _, d := range op.Composed.Decisions {
		line := d.Requirement.Key + ": " + string(d.Kind)
		if d.Binding.Provider != "" {
			line += " " + d.Binding.Provider
		}
		s = append(s, line)
	}
	if len(s) == 0 {
		return "the plan requires no capability from outside"
	}
	slices.Sort(s)
	return strings.Join(s, "; ")
}

// runPrevious is the RunInput.Previous of one operation: the kept record
// continued, or the record of the operation planned now.
func runPrevious(op intentOp, in runInputs, actor string) (*protocol.Operation, error) {
	planned, err := plannedOp(op, actor)
	if err != nil {
		return nil, err
	}
	var prev *protocol.Operation
	if in.Prev != nil {
		prev = &in.Prev.Operation
	}
	return operation.Continue(prev, planned, op.Composed.Plan, time.Now())
}

// keptSecretInputs gives the secret input artifacts whose value was kept
// that value, so the run does not read it from its host.
func keptSecretInputs(arts []engine.InputArtifact, values map[string]operation.KeptValue) {
	for i, a := range arts {
		if v, ok := values[a.ID]; ok && a.Sensitivity == protocol.SensitivitySecret && a.SecretValue == "" {
			arts[i].SecretValue = v.Value
		}
	}
}

// prepareRun gives the run inputs the pause stage (refused when no
// planned operation has it), the changes and what the last apply kept.
func prepareRun(ip *intentPlan, c computed, changes []intent.Change, ops []intentOp, k keptPrivate, now time.Time, diags *diag.Diagnostics) {
	ip.inputs.PauseAfterStage = pauseOf(c.Pause)
	ip.inputs.Changes = changes
	ip.inputs.withKept(k, now)
	checkPauseStage(ops, changes, ip.inputs.PauseAfterStage, diags)
}
