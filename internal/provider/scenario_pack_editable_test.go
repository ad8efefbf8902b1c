package provider

import (
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// cp_scenario_pack's advanced_mode is whether the pack's intents take
// customizations and plan patches: editable.advanced_mode, true when the
// pack leaves it out.
func TestScenarioPackAdvancedModeShowsEditable(t *testing.T) {
	for _, tc := range []struct {
		name string
		mode *bool
		want bool
	}{{"true", new(true), true}, {"false", new(false), false}, {"left out", nil, true}} {
		m := flattenPack(&protocol.ScenarioPack{ID: "demo", Version: "1.0.0", Editable: protocol.Editable{AdvancedMode: tc.mode}})
		if m.AdvancedMode.ValueBool() != tc.want {
			t.Errorf("advanced_mode %s: got %v want %v", tc.name, m.AdvancedMode.ValueBool(), tc.want)
		}
	}
}
