package intent

import "github.com/intentops/terraform-provider-cp/internal/protocol"

// PlanEditable reports whether the pack's plans may be edited by
// customizations and plan patches: editable.advanced_mode true, or unset
// (a pack without editable keeps its plans editable).
func PlanEditable(pack *protocol.ScenarioPack) bool {
	return pack == nil || pack.Editable.AdvancedMode == nil || *pack.Editable.AdvancedMode
}

// Edits says which plan edits an intent carries, for CheckEditable.
type Edits struct {
	Customization bool // a customizations block is set
	Patches       int  // plan patches set
	// CustomizationPath and PatchesPath are where they were written.
	CustomizationPath, PatchesPath Path
}

// CheckEditable refuses customizations and plan patches on an intent of
// a pack whose editable.advanced_mode is false: its plans are run as the
// pack's templates say, not edited.
func CheckEditable(pack *protocol.ScenarioPack, e Edits) Problems {
	var ps Problems
	if PlanEditable(pack) {
		return ps
	}
	if e.Customization {
		ps.add(e.CustomizationPath, "Plan not editable",
			"pack %s sets editable.advanced_mode: false, so its plans take no customizations; remove customizations, or use a pack that sets editable.advanced_mode: true.",
			pack.Ref())
	}
	if e.Patches > 0 {
		ps.add(e.PatchesPath, "Plan not editable",
			"pack %s sets editable.advanced_mode: false, so its plans take no plan patches; remove plan_patches, or use a pack that sets editable.advanced_mode: true.",
			pack.Ref())
	}
	return ps
}
