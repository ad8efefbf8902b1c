package intent

import (
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

func editablePack(mode *bool) *protocol.ScenarioPack {
	return &protocol.ScenarioPack{ID: "locked", Version: "1.0.0", Editable: protocol.Editable{AdvancedMode: mode}}
}

// editable.advanced_mode: false refuses customizations and plan patches
// on the attribute that set them; true, or editable left out, allows
// them.
func TestCheckEditable(t *testing.T) {
	both := Edits{Customization: true, Patches: 2, CustomizationPath: Root("customizations"), PatchesPath: Root("plan_patches")}
	cases := []struct {
		name  string
		pack  *protocol.ScenarioPack
		edits Edits
		want  []string
	}{
		{"false refuses both", editablePack(new(false)), both, []string{
			`customizations: Plan not editable: pack locked@1.0.0 sets editable.advanced_mode: false, so its plans take no customizations`,
			`plan_patches: Plan not editable: pack locked@1.0.0 sets editable.advanced_mode: false, so its plans take no plan patches`,
		}},
		{"false refuses patches alone", editablePack(new(false)), Edits{Patches: 1, PatchesPath: Root("plan_patches")},
			[]string{`plan_patches: Plan not editable`}},
		{"false refuses a customization alone", editablePack(new(false)), Edits{Customization: true, CustomizationPath: Root("customizations")},
			[]string{`customizations: Plan not editable`}},
		{"false with no edits", editablePack(new(false)), Edits{}, nil},
		{"true allows both", editablePack(new(true)), both, nil},
		{"editable left out allows both", editablePack(nil), both, nil},
		{"no pack", nil, both, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			wantProblems(t, CheckEditable(tc.pack, tc.edits), tc.want)
		})
	}
}

// The built-in packs set editable.advanced_mode: true, so their plans
// stay editable.
func TestBuiltinPacksEditable(t *testing.T) {
	for _, p := range builtin(t).List() {
		if !PlanEditable(p) || p.Editable.AdvancedMode == nil {
			t.Errorf("pack %s: got editable %v want editable.advanced_mode: true", p.Ref(), PlanEditable(p))
		}
	}
}
