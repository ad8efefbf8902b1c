package intent

import (
	"slices"
	"strconv"

	"github.com/intentops/terraform-provider-cp/internal/paramtype"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// CheckPatchApprovals checks each plan patch that needs approval
// (needsApproval: approval.required, or a high effective risk, its own or
// the pack's risk.default_level) and says it has one: approved_by must be
// the provider's actor (who runs the apply, so an approval cannot be
// signed in someone else's name), and when approval.roles is set the
// actor must hold one of them. A risk that is not a level, and a
// high-risk patch without approved_by, are refused here; any other
// unapproved patch is left to the planner, which keeps it out of the plan
// and says so. base is the plan_patches attribute; pack may be nil.
func CheckPatchApprovals(base Path, pack *protocol.ScenarioPack, patches []protocol.PlanPatch, actor Actor) Problems {
	var ps Problems
	for i, p := range patches {
		if !checkPatchRisk(&ps, base, pack, p, i, actor) {
			continue
		}
		a := p.Approval
		if !needsApproval(pack, p) || a.ApprovedBy == "" {
			continue
		}
		at := base.Index(i).Attr("approval")
		if a.ApprovedBy != actor.Name {
			ps.add(at.Attr("approved_by"), "Approval by another actor",
				"plan patch %s is approved by %s, but this provider acts as %s; an approval is given by the actor who applies it: set approved_by = %s when that actor reviewed the patch, or apply with the approver's provider actor.",
				patchName(p, i), paramtype.Quote(a.ApprovedBy), quoteOr(actor.Name), quoteOr(actor.Name))
			continue
		}
		if len(a.Roles) == 0 {
			continue
		}
		if !slices.ContainsFunc(actor.Roles, func(r string) bool { return slices.Contains(a.Roles, r) }) {
			ps.add(at.Attr("roles"), "Approver lacks the role",
				"plan patch %s needs approval by one of the roles %s, but actor %s holds %s; approve it as an actor with one of them.",
				patchName(p, i), quoteList(a.Roles), quoteOr(actor.Name), orNone(actor.Roles))
		}
	}
	return ps
}

func patchName(p protocol.PlanPatch, i int) string {
	if p.ID != "" {
		return p.ID
	}
	return "#" + strconv.Itoa(i+1)
}
