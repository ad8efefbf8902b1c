package provider

import (
	"context"
	"reflect"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
)

// mastersReplaced is the masters' replacement rule: a change of the
// masters replaces the cluster, except a change of their labels and
// taints only, which plans relabel.
func mastersReplaced(ctx context.Context, req planmodifier.ListRequest, resp *listplanmodifier.RequiresReplaceIfFuncResponse) {
	if req.PlanValue.IsUnknown() || req.StateValue.IsUnknown() {
		resp.RequiresReplace = true
		return
	}
	var oldM, newM []nodeModel
	resp.Diagnostics.Append(req.StateValue.ElementsAs(ctx, &oldM, false)...)
	resp.Diagnostics.Append(req.PlanValue.ElementsAs(ctx, &newM, false)...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.RequiresReplace = !slices.EqualFunc(oldM, newM, func(a, b nodeModel) bool {
		a.Labels, a.Taints, b.Labels, b.Taints = nil, nil, nil, nil
		return reflect.DeepEqual(a, b)
	})
}
