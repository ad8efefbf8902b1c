package provider

import (
	"context"
	"reflect"

	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
)

// mastersReplaced is the masters' replacement rule: a change of the
// masters replaces the cluster, except a change of their labels and
// taints only, which plans relabel, and the removal of masters other than
// the first (mastersKept), which plans remove_node.
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
	resp.RequiresReplace = !mastersKept(oldM, newM)
}

// mastersKept reports whether newM are oldM, in their order, with at most
// their labels and taints changed and some masters other than the first
// left out.
func mastersKept(oldM, newM []nodeModel) bool {
	same := func(a, b nodeModel) bool {
		a.Labels, a.Taints, b.Labels, b.Taints = nil, nil, nil, nil
		return reflect.DeepEqual(a, b)
	}
	if len(newM) == 0 || len(oldM) == 0 || !same(oldM[0], newM[0]) {
		return false
	}
	i := 1
	for _, n := range newM[1:] {
		for i < len(oldM) && !same(oldM[i], n) {
			i++
		}
		if i == len(oldM) {
			return false
		}
		i++
	}
	return true
}
