package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// scenarioIntentAttrs are the arguments whose change makes cp_scenario or
// cp_tempo run its action again. Approvals, interventions, timeouts and
// destroy_action only matter to the next run and change nothing on their
// own.
var scenarioIntentAttrs = []string{"pack", "version", "action", "name", "environment", "hosts", "targets", "cluster_handle", "parameters",
	"constraints", "candidates", "customizations", "plan_patches", "ssh", "object_storage"}

func rawAttr(v tftypes.Value, name string) (tftypes.Value, bool) {
	got, _, err := tftypes.WalkAttributePath(v, tftypes.NewAttributePath().WithAttributeName(name))
	if err != nil {
		return tftypes.Value{}, false
	}
	tv, ok := got.(tftypes.Value)
	return tv, ok
}

// sameIntent reports whether the planned intent equals the state's, for
// the attributes (of those the resource's schema has).
func sameIntent(plan, state tftypes.Value, attrs []string) bool {
	for _, name := range attrs {
		pv, okP := rawAttr(plan, name)
		sv, okS := rawAttr(state, name)
		if !okP && !okS {
			continue
		}
		if okP != okS || !pv.Equal(sv) {
			return false
		}
	}
	return true
}

// operationCompleted reports whether the recorded operation completed.
func operationCompleted(op types.Object) bool {
	if op.IsNull() || op.IsUnknown() {
		return false
	}
	s, ok := op.Attributes()["status"].(types.String)
	return ok && s.ValueString() == "Completed"
}
