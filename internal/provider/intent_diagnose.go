package provider

import (
	"context"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/intentops/terraform-provider-cp/internal/diagnose"
	"github.com/intentops/terraform-provider-cp/internal/engine"
	"github.com/intentops/terraform-provider-cp/internal/operation"
	"github.com/intentops/terraform-provider-cp/internal/planner"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
	"github.com/intentops/terraform-provider-cp/internal/transport"
)

// diagnoseFailures explains each failed job and proposes a reviewed plan
// patch as HCL to paste into the resource. Analyzer problems become
// warnings in the text; they never hide the failure. The operation
// records the diagnosis: Diagnosing, then PlanPatchReview with the first
// proposed patch, or Failed again when none is proposed.
func diagnoseFailures(ctx context.Context, data *providerData, op intentOp, res *engine.Result, redactor *transport.Redactor) string {
	var b strings.Builder
	var failed []string
	var proposals []operation.Proposal
	defer func() {
		if len(failed) == 0 || res.Operation.Status != protocol.StatusFailed {
			return
		}
		if err := operation.Diagnosed(&res.Operation, failed, proposals, time.Now()); err != nil {
			tflog.Warn(ctx, "cannot record the diagnosis", map[string]any{"error": err.Error()})
		}
	}()
	for _, in := range res.Instances {
		if in.Status != engine.StatusFailed {
			continue
		}
		f, err := diagnose.NewFailure(diagnose.InstanceFromResult(in), diagnose.Context{
			Plan: op.Composed.Plan, Pack: op.Composed.Pack, Artifacts: res.Artifacts, Now: op.Req.Now,
		})
		if err != nil {
			tflog.Warn(ctx, "cannot diagnose a failure", map[string]any{"instance": in.ID, "error": err.Error()})
			continue
		}
		result := diagnose.Diagnose(ctx, f, diagnose.Options{
			Analyzers: data.Analyzers,
			Review:    reviewWith(op.Req),
			Redactor:  redactor,
			Warn:      func(w string) { tflog.Warn(ctx, "diagnosis", map[string]any{"warning": w}) },
		})
		failed = append(failed, in.ID)
		if result.Patch != nil {
			proposals = append(proposals, operation.Proposal{Patch: result.Patch.ID, Author: result.Patch.Author, Job: in.ID})
		}
		b.WriteString("\n\n--- Diagnosis of " + in.ID + " ---\n")
		b.WriteString(diagnose.Explain(result))
	}
	return b.String()
}

// reviewWith rebuilds the failed operation's plan with a proposed patch,
// exactly as the next plan would, so only applicable patches are shown.
func reviewWith(req planner.Request) diagnose.ReviewFunc {
	return func(p protocol.PlanPatch) error {
		try := req
		try.Patches = append(append([]protocol.PlanPatch(nil), req.Patches...), p)
		_, err := planner.Compose(try)
		return err
	}
}
