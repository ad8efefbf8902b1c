package intent

import (
	"slices"

	"github.com/intentops/terraform-provider-cp/internal/paramtype"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// Risk levels of a plan patch, lowest first.
const (
	RiskLow    = "low"
	RiskMedium = "medium"
	RiskHigh   = "high"
)

// RiskLevels are the levels a patch's risk and a pack's
// risk.default_level take, lowest first.
var RiskLevels = []string{RiskLow, RiskMedium, RiskHigh}

// PatchRisk is a patch's effective risk: its own risk when set, otherwise
// the pack's risk.default_level; "" when neither says.
func PatchRisk(pack *protocol.ScenarioPack, p protocol.PlanPatch) string {
	if p.Risk != "" || pack == nil {
		return p.Risk
	}
	return pack.Risk.DefaultLevel
}

// WithPatchRisk returns copies of the patches with each one's effective
// risk set (PatchRisk), so the plan shows it; the input is not changed.
func WithPatchRisk(pack *protocol.ScenarioPack, patches []protocol.PlanPatch) []protocol.PlanPatch {
	if patches == nil {
		return nil
	}
	out := slices.Clone(patches)
	for i := range out {
		out[i].Risk = PatchRisk(pack, out[i])
	}
	return out
}

// needsApproval reports whether a patch may be applied only once
// approved: it says approval.required, or its effective risk is high.
func needsApproval(pack *protocol.ScenarioPack, p protocol.PlanPatch) bool {
	return p.Approval.Required || PatchRisk(pack, p) == RiskHigh
}

// checkPatchRisk refuses a risk that is not a level, and a patch of high
// effective risk without an approval recorded on it (approved_by); who
// approved, and with which role, is checked by CheckPatchApprovals.
func checkPatchRisk(ps *Problems, base Path, pack *protocol.ScenarioPack, p protocol.PlanPatch, i int, actor Actor) bool {
	if p.Risk != "" && !slices.Contains(RiskLevels, p.Risk) {
		ps.add(base.Index(i).Attr("risk"), "Invalid risk level",
			"plan patch %s has risk %s; set one of %s, or leave risk unset to take the pack's risk.default_level.",
			patchName(p, i), paramtype.Quote(p.Risk), quoteList(RiskLevels))
		return false
	}
	if PatchRisk(pack, p) != RiskHigh || p.Approval.ApprovedBy != "" {
		return true
	}
	from := "its risk is high"
	if p.Risk == "" {
		from = "it sets no risk and pack " + pack.Ref() + " has risk.default_level high"
	}
	how := "once the provider's actor " + quoteOr(actor.Name) + " has reviewed it, set approval = { approved_by = " + quoteOr(actor.Name) + " } (add roles = [...] to name the roles that may approve)"
	if len(p.Approval.Roles) > 0 {
		how = "once it is reviewed by an actor holding one of the roles " + quoteList(p.Approval.Roles) + ", set approval.approved_by = " + quoteOr(actor.Name) + " (the provider's actor, who must hold one of them)"
	}
	ps.add(base.Index(i), "High-risk plan patch not approved", "plan patch %s needs an approval because %s: %s.", patchName(p, i), from, how)
	return false
}
