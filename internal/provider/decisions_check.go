package provider

import (
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/intentops/terraform-provider-cp/internal/capability"
	"github.com/intentops/terraform-provider-cp/internal/intent"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// actorOf is who decides for this provider: its actor and actor_roles.
func actorOf(d *providerData) intent.Actor {
	return intent.Actor{Name: d.Actor, Roles: d.Roles}
}

// approvalsOf converts a resource's approvals.
func approvalsOf(in []approvalModel) []intent.Approval {
	out := make([]intent.Approval, 0, len(in))
	for _, a := range in {
		out = append(out, intent.Approval{Gate: strOr(a.Gate, ""), Option: strOr(a.Option, "")})
	}
	return out
}

// withChoices gives the planner the resource's approvals as decisions of
// the provider's actor, so a choice at a provider-selection or creation
// gate plans the chosen candidate or provider.
func withChoices(ip *intentPlan, d *providerData) {
	ip.spec.Choices = intent.Decisions(approvalsOf(ip.inputs.Approvals), actorOf(d))
}

// checkDecisions refuses, at plan and again before apply, decisions that
// could not take effect or that the actor may not take: approvals
// (intent.CheckApprovals, against the planned gates and those of the
// pack's other templates), interventions (intent.CheckInterventions, a
// job that forbids a fix by hand included) and plan patch approvals and
// risk (intent.CheckPatchApprovals, against the pack's
// risk.default_level). Nothing to run means nothing to check:
// decisions for past operations may stay in the configuration.
func checkDecisions(ops []intentOp, ip intentPlan, actor intent.Actor, diags *diag.Diagnostics) {
	if len(ops) == 0 {
		return
	}
	plans := make([]*protocol.Plan, 0, len(ops))
	var gates intent.GateSet
	for _, op := range ops {
		plans = append(plans, op.Composed.Plan)
		gates.Later = append(gates.Later, intent.TemplateGates(op.Composed.Pack)...)
		if op.Composed.Pack.KindOf(op.Action) != protocol.KindCreate {
			gates.Partial = true
		}
	}
	gates.Planned = intent.PlannedGates(plans...)
	addProblems(diags, intent.CheckApprovals(intent.Root("approvals"), approvalsOf(ip.inputs.Approvals), gates, actor))
	ivs := make([]intent.InterventionRef, 0, len(ip.inputs.Interventions))
	for _, iv := range ip.inputs.Interventions {
		ivs = append(ivs, intent.InterventionRef{Job: strOr(iv.Job, ""), Node: strOr(iv.Node, "")})
	}
	addProblems(diags, intent.CheckInterventions(intent.Root("interventions"), ivs, plans...))
	addProblems(diags, intent.CheckPatchApprovals(intent.Root("plan_patches"), ops[0].Composed.Pack, ip.spec.Patches, actor))
}

// checkEditable refuses, before planning, customizations and plan
// patches on an intent whose pack sets editable.advanced_mode: false
// (intent.CheckEditable).
func checkEditable(data *providerData, spec intent.Spec, diags *diag.Diagnostics) {
	if data == nil || data.Catalog == nil {
		return
	}
	pack, err := data.Catalog.Get(spec.Pack, spec.Version)
	if err != nil {
		return
	}
	addProblems(diags, intent.CheckEditable(pack, planEdits(spec.Customization, spec.Patches)))
}

// planEdits says which edits an intent carries, written at the
// customizations and plan_patches attributes (the same on every intent
// resource and cp_plan).
func planEdits(c *protocol.Customization, patches []protocol.PlanPatch) intent.Edits {
	return intent.Edits{Customization: c != nil, Patches: len(patches),
		CustomizationPath: intent.Root("customizations"), PatchesPath: intent.Root("plan_patches")}
}

// addChoiceError reports a planning error caused by a choice (an option
// its gate does not have, or one binding or creating what is not offered)
// on the option of the approval that made it, and says whether it did.
func addChoiceError(diags *diag.Diagnostics, approvals []approvalModel, err error) bool {
	if !errors.Is(err, capability.ErrUnknownOption) {
		return false
	}
	msg := err.Error()
	at := path.Root("approvals")
	for i, a := range approvals {
		if g := strOr(a.Gate, ""); g != "" && strings.Contains(msg, "gate "+g+" ") {
			at = at.AtListIndex(i).AtName("option")
			break
		}
	}
	addAttrError(diags, at, "Unknown option", fmt.Sprintf("%s. Choose one of the gate's options, or remove the approval.", err.Error()))
	return true
}

// checkExposeKubeconfig refuses, at plan, expose_kubeconfig = true when
// the kubernetes pack's admin kubeconfig is visible to roles the
// provider's actor does not hold (visible_to_roles).
func checkExposeKubeconfig(data *providerData, expose bool, diags *diag.Diagnostics) {
	if data == nil || data.Catalog == nil || !expose {
		return
	}
	pack, err := data.Catalog.Get("kubernetes", "")
	if err != nil {
		return
	}
	if err := intent.PackArtifactVisible("expose_kubeconfig", pack, kubeconfigArtifact, actorOf(data)); err != nil {
		// addAttrError names the attribute, which the error names too.
		addAttrError(diags, path.Root("expose_kubeconfig"), "Artifact not visible to the actor",
			strings.TrimPrefix(err.Error(), "expose_kubeconfig: ")+", or set expose_kubeconfig = false.")
	}
}

// kubeconfigArtifact is the artifact expose_kubeconfig stores.
const kubeconfigArtifact = "kubeconfig.admin"
