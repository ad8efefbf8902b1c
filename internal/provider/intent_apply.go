package provider

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/intentops/terraform-provider-cp/internal/engine"
	"github.com/intentops/terraform-provider-cp/internal/intent"
	"github.com/intentops/terraform-provider-cp/internal/operation"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
	"github.com/intentops/terraform-provider-cp/internal/transport"
)

// opResult is one operation's outcome.
type opResult struct {
	Op     intentOp
	Result *engine.Result
}

// runInputs are the HCL-supplied decisions, interventions and artifacts
// an operation needs.
type runInputs struct {
	Approvals     []approvalModel
	Interventions []interventionModel
	Artifacts     []protocol.Artifact // from state, by reference
	// Secrets are artifacts given with their value, e.g. the credentials
	// of a bound object storage from write-only arguments.
	Secrets []engine.InputArtifact
	// Repair names the instances run again although their markers
	// stand (a refresh found their evidence failing, or they follow one
	// that did), with why: engine.RunInput.Repair.
	Repair map[string]string
	// Changes are the changes the operations were composed from (their
	// ids), kept so a Paused operation is resumed by the same change.
	Changes []intent.Change
	// PauseAfterStage is pause_after_stage: the stage after which the
	// operation whose plan has it stops, Paused.
	PauseAfterStage string
	// Prev is the last operation's record from private state, continued
	// by the run of the same operation; Values the artifact values kept
	// there that are still valid, given to the run instead of being read
	// from their hosts.
	Prev   *operation.Kept
	Values map[string]operation.KeptValue
}

func (in runInputs) engineInput(opID string, actor string, roles []string) engine.RunInput {
	ri := engine.RunInput{OperationID: opID, Repair: in.Repair}
	for _, a := range in.Approvals {
		ri.Decisions = append(ri.Decisions, protocol.Decision{Gate: strOr(a.Gate, ""), Option: strOr(a.Option, ""), Actor: actor, Roles: roles})
	}
	for _, iv := range in.Interventions {
		ri.Interventions = append(ri.Interventions, protocol.Intervention{
			Type: "manually_fixed", Job: strOr(iv.Job, ""), Node: strOr(iv.Node, ""), Actor: actor,
			Note: strOr(iv.Note, ""), Verification: iv.Verification,
		})
	}
	for _, a := range in.Artifacts {
		ri.Artifacts = append(ri.Artifacts, engine.InputArtifact{Artifact: a})
	}
	keptSecretInputs(ri.Artifacts, in.Values)
	ri.Artifacts = append(ri.Artifacts, in.Secrets...)
	return ri
}

// logSink forwards engine events to the provider log (already redacted).
type logSink struct{ ctx context.Context }

func (s logSink) Emit(e engine.Event) {
	tflog.Debug(s.ctx, "cp engine event", map[string]any{
		"type": e.Type, "instance": e.Instance, "host": e.Host, "status": string(e.Status), "message": e.Message,
	})
}

// runOps runs the operations in order and stops at the first one that
// does not complete. Diagnostics explain failures and waiting gates.
func runOps(ctx context.Context, data *providerData, ops []intentOp, in runInputs, diags *diag.Diagnostics) []opResult {
	redactor := &transport.Redactor{}
	runner := &operation.Runner{
		Packs: data.Catalog, Parallelism: data.Parallelism, PerHost: data.PerHost, Actor: data.Actor,
		Sinks: []engine.Sink{logSink{ctx: ctx}}, Redactor: redactor,
	}
	hclog.Default().Debug("cp runs operations", "count", len(ops))
	var out []opResult
	artifacts := in.Artifacts
	for _, op := range ops {
		run := in
		run.Artifacts = artifacts
		ri := run.engineInput(op.ID, data.Actor, data.Roles)
		ri.StopAfterStage = stopAfter(op, in.PauseAfterStage)
		prev, err := runPrevious(op, in, data.Actor)
		if err != nil {
			diags.AddError(fmt.Sprintf("Cannot continue %s", op.Composed.Plan.Display()), err.Error())
			return out
		}
		ri.Previous = prev
		res, err := runner.Run(ctx, op.Composed.Plan, op.Hosts, ri)
		if err != nil {
			if reportTimedOutBefore(ctx, op.Composed.Plan.Display(), err, redactor, diags) {
				return out
			}
			hint := "\n\nCheck the SSH settings (provider ssh block, the resource's ssh and per-host ssh) and that the hosts are reachable; nothing was changed."
			var locked *engine.LockedError
			if errors.As(err, &locked) {
				hint = "\n\nNo job of this apply ran; nothing was changed."
			}
			diags.AddError(fmt.Sprintf("Cannot run %s", op.Composed.Plan.Display()), redactor.String(err.Error())+hint)
			return out
		}
		out = append(out, opResult{Op: op, Result: res})
		artifacts = protocol.MergeArtifacts(artifacts, res.Artifacts)
		if !reportOutcome(ctx, data, op, res, redactor, diags) {
			return out
		}
	}
	return out
}

// reportOutcome adds diagnostics for a run that did not complete and says
// whether it did.
func reportOutcome(ctx context.Context, data *providerData, op intentOp, res *engine.Result, redactor *transport.Redactor, diags *diag.Diagnostics) bool {
	if res.TimedOut != nil {
		reportTimedOut(op.Composed.Plan.Display(), res, redactor, diags)
		return false
	}
	switch res.Operation.Status {
	case protocol.StatusCompleted:
		return true
	case protocol.StatusCancelled:
		reportCancelled(op, res, diags)
		return false
	case protocol.StatusPaused:
		reportPaused(op, res, diags)
		return false
	case protocol.StatusWaitingForApproval, protocol.StatusWaitingForInput:
		var b strings.Builder
		for _, w := range res.Waiting {
			fmt.Fprintf(&b, "Gate %s (%s) waits: %s\n  options: %s\n", w.Gate, w.Type, w.Reason, strings.Join(w.Options, " | "))
			if len(w.RequiredRoles) > 0 {
				fmt.Fprintf(&b, "  required roles: %s\n", strings.Join(w.RequiredRoles, ", "))
			}
			if w.Refused != "" {
				fmt.Fprintf(&b, "  the decision given was refused: %s\n", w.Refused)
			}
			fmt.Fprintf(&b, "  to proceed, add to the resource:\n    approvals = [{ gate = %q, option = %q }]\n  and apply again as an actor holding one of the roles (provider actor_roles).\n", w.Gate, firstOr(w.Options, ""))
		}
		diags.AddError(fmt.Sprintf("%s stopped at a gate (%s)", op.Composed.Plan.Display(), res.Operation.Status),
			b.String()+"\nJobs that do not depend on the gate ran; nothing that does ran.")
		return false
	default:
		detail := failureDetail(res) + diagnoseFailures(ctx, data, op, res, redactor)
		diags.AddError(fmt.Sprintf("%s failed (%s)", op.Composed.Plan.Display(), res.Operation.Status), redactor.String(detail))
		return false
	}
}

// reportPaused says where the operation stopped and how to resume it. It
// is a warning: the resource is saved with the operation Paused.
func reportPaused(op intentOp, res *engine.Result, diags *diag.Diagnostics) {
	var done, held []string
	for _, in := range res.Instances {
		switch in.Status {
		case engine.StatusDone, engine.StatusSatisfied, engine.StatusFixed:
			done = append(done, in.ID)
		case engine.StatusPending:
			held = append(held, in.ID)
		}
	}
	slices.Sort(done)
	slices.Sort(held)
	detail := ""
	if n := len(res.Operation.Timeline); n > 0 {
		detail = res.Operation.Timeline[n-1].Detail
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Operation %s is Paused: %s.\n", res.Operation.ID, detail)
	fmt.Fprintf(&b, "  finished: %s\n", orNoneList(firstN(done, 12)))
	fmt.Fprintf(&b, "  not started: %s\n", orNoneList(firstN(held, 12)))
	b.WriteString("\nTo resume, remove pause_after_stage (or name a later stage) and apply again: the next plan shows the stages it runs, " +
		"and the finished jobs are not run again. Other operations of this change run after it completes.")
	diags.AddWarning(fmt.Sprintf("%s paused", op.Composed.Plan.Display()), b.String())
}

// reportCancelled says at which gate, by which option and actor, an
// operation was cancelled, and what ran before the gate. It is the answer
// to a decision, not a failure: no diagnosis and no intervention advice.
// It is an error, so that Terraform records nothing as done: a create saves
// no state, an update keeps the prior state and a destroy keeps the
// resource, while the hosts hold only what ran before the gate.
func reportCancelled(op intentOp, res *engine.Result, diags *diag.Diagnostics) {
	c := res.Cancelled
	if c == nil {
		c = &engine.GateCancel{Gate: "(unknown)", Option: "(unknown)", Actor: res.Operation.Actor}
	}
	var ran, skipped []string
	for _, in := range res.Instances {
		switch in.Status {
		case engine.StatusDone, engine.StatusSatisfied, engine.StatusFixed:
			ran = append(ran, in.ID)
		case engine.StatusCancelled, engine.StatusSkipped, engine.StatusPending:
			skipped = append(skipped, in.ID)
		}
	}
	slices.Sort(ran)
	slices.Sort(skipped)
	var b strings.Builder
	fmt.Fprintf(&b, "Option %q of gate %s, chosen by actor %s, cancelled the operation (Cancelled). Nothing past the gate ran.\n", c.Option, c.Gate, orDash(c.Actor))
	fmt.Fprintf(&b, "  finished before the gate: %s\n", orNoneList(ran))
	fmt.Fprintf(&b, "  not run: %s\n", orNoneList(firstN(skipped, 12)))
	b.WriteString("\nTerraform records nothing of this change as done. To go on, choose another option of the gate in `approvals` and apply again; " +
		"to keep things as they are, revert the change in the configuration.")
	diags.AddError(fmt.Sprintf("%s cancelled at gate %s by %s", op.Composed.Plan.Display(), c.Gate, orDash(c.Actor)), b.String())
}

func orNoneList(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}

func firstN(s []string, n int) []string {
	if len(s) > n {
		return append(s[:n:n], fmt.Sprintf("... (%d more)", len(s)-n))
	}
	return s
}

func firstOr(s []string, def string) string {
	if len(s) == 0 {
		return def
	}
	return s[0]
}

// failureDetail names each failed job, its host, the evidence that failed,
// a log tail and what to do next.
func failureDetail(res *engine.Result) string {
	var b strings.Builder
	for _, in := range res.Instances {
		if in.Status != engine.StatusFailed {
			continue
		}
		fmt.Fprintf(&b, "Job %s failed on host %s", in.ID, orDash(in.Host))
		if in.Class != "" {
			fmt.Fprintf(&b, " (%s)", in.Class)
		}
		fmt.Fprintf(&b, ": %s\n", in.Reason)
		for _, e := range in.Evidence {
			if !e.Passed {
				fmt.Fprintf(&b, "  evidence %s failed: observed %q", e.ID, truncate(e.Observed, 200))
				if e.Detail != "" {
					fmt.Fprintf(&b, " (%s)", e.Detail)
				}
				b.WriteString("\n")
			}
		}
		if len(in.LogTail) > 0 {
			b.WriteString("  log tail:\n")
			for _, l := range tail(in.LogTail, 15) {
				b.WriteString("    " + l + "\n")
			}
		}
	}
	var skipped int
	for _, in := range res.Instances {
		if in.Status == engine.StatusSkipped {
			skipped++
		}
	}
	b.WriteString(rollingStops(res))
	if skipped > 0 {
		fmt.Fprintf(&b, "%d dependent job(s) were skipped.\n", skipped)
	}
	b.WriteString("\nWhat to do: fix the cause on the host and record it in `interventions` (the fix is verified before the operation goes on), " +
		"or add a `plan_patches` entry, then apply again. Finished jobs are not run again: their evidence is checked and they are skipped. " +
		"The resource is not tainted.")
	return b.String()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

func tail(lines []string, n int) []string {
	if len(lines) <= n {
		return lines
	}
	return lines[len(lines)-n:]
}
