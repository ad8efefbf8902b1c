package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// intentAttrs are the arguments whose change makes an intent resource run
// its action again. Approvals, interventions, timeouts and destroy_action
// only matter to the next run and change nothing on their own.
var intentAttrs = []string{"pack", "version", "action", "name", "environment", "hosts", "cluster_handle", "parameters",
	"constraints", "candidates", "customizations", "plan_patches", "ssh", "node", "object_storage"}

func rawAttr(v tftypes.Value, name string) (tftypes.Value, bool) {
	got, _, err := tftypes.WalkAttributePath(v, tftypes.NewAttributePath().WithAttributeName(name))
	if err != nil {
		return tftypes.Value{}, false
	}
	tv, ok := got.(tftypes.Value)
	return tv, ok
}

// sameIntent reports whether the planned intent equals the state's, for
// the intent attributes the resource's schema has.
func sameIntent(_ context.Context, req resource.ModifyPlanRequest) bool {
	for _, name := range intentAttrs {
		pv, okP := rawAttr(req.Plan.Raw, name)
		sv, okS := rawAttr(req.State.Raw, name)
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
