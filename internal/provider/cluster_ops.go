package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/mapplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/intentops/terraform-provider-cp/internal/intent"
)

// mastersReplaced is the masters' replacement rule
// (intent.ControlPlaneChange): labels and taints, masters other than the
// first left out and masters added are changes in place; a change of the
// first master, of a staying master, of their order or of the endpoint
// replaces the cluster, with a warning saying why; masters added while
// the endpoint changes are refused.
//
// A null list on either side is a cluster whose hosts come from
// inventory_file: its ModifyPlan applies the same rule
// (inventoryReplacement).
func mastersReplaced(ctx context.Context, req planmodifier.ListRequest, resp *listplanmodifier.RequiresReplaceIfFuncResponse) {
	if req.PlanValue.IsNull() || req.StateValue.IsNull() {
		return
	}
	if req.PlanValue.IsUnknown() || req.StateValue.IsUnknown() {
		resp.RequiresReplace = true
		return
	}
	var oldM, newM []nodeModel
	resp.Diagnostics.Append(req.StateValue.ElementsAs(ctx, &oldM, false)...)
	resp.Diagnostics.Append(req.PlanValue.ElementsAs(ctx, &newM, false)...)
	oldP, okOld := paramsAt(ctx, req.State.Raw, req.State.GetAttribute, &resp.Diagnostics)
	newP, okNew := paramsAt(ctx, req.Plan.Raw, req.Plan.GetAttribute, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	c, known := controlPlaneChange(oldM, newM, oldP, newP)
	switch {
	case !known || !okOld || !okNew:
		resp.RequiresReplace = true
	case c.Refused != nil:
		addProblems(&resp.Diagnostics, intent.Problems{*c.Refused})
	case c.Replace:
		resp.RequiresReplace = true
		warnReplaced(&resp.Diagnostics, c)
	}
}

// parametersReplaced replaces the cluster when the parameters change its
// control-plane endpoint. The warning is given here when the masters do
// not change (otherwise mastersReplaced gives it, or refuses the plan).
func parametersReplaced(ctx context.Context, req planmodifier.MapRequest, resp *mapplanmodifier.RequiresReplaceIfFuncResponse) {
	if req.PlanValue.IsUnknown() || req.StateValue.IsUnknown() {
		resp.RequiresReplace = true
		return
	}
	oldP, okOld := mapValues(req.StateValue)
	newP, okNew := mapValues(req.PlanValue)
	var oldL, newL types.List
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("masters"), &oldL)...)
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("masters"), &newL)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if oldL.IsNull() || newL.IsNull() {
		return // hosts from inventory_file: inventoryReplacement
	}
	if !okOld || !okNew || oldL.IsUnknown() || newL.IsUnknown() {
		resp.RequiresReplace = true
		return
	}
	var oldM, newM []nodeModel
	resp.Diagnostics.Append(oldL.ElementsAs(ctx, &oldM, false)...)
	resp.Diagnostics.Append(newL.ElementsAs(ctx, &newM, false)...)
	if resp.Diagnostics.HasError() {
		return
	}
	olds, okOld := mastersOf(oldM)
	news, okNew := mastersOf(newM)
	if !okOld || !okNew {
		resp.RequiresReplace = true
		return
	}
	if intent.EndpointOf(oldP, olds) == intent.EndpointOf(newP, news) {
		return
	}
	c := intent.ControlPlaneChange(intent.ControlPlane{Masters: olds, Params: oldP}, intent.ControlPlane{Masters: news, Params: newP})
	if c.Refused != nil {
		return
	}
	resp.RequiresReplace = true
	if oldL.Equal(newL) {
		warnReplaced(&resp.Diagnostics, c)
	}
}

// warnReplaced tells the reviewer why the cluster is replaced.
func warnReplaced(diags *diag.Diagnostics, c intent.MastersChange) {
	diags.AddAttributeWarning(toPath(c.ReasonPath), "The cluster is replaced, not updated",
		"This change cannot be made in place: "+c.Reason+". Every node is reset and the cluster is created again, "+
			"its workloads and etcd data lost. Undo the change to keep the cluster.")
}

// controlPlaneChange converts the masters for intent.ControlPlaneChange;
// known is false when a value of a master is not known yet.
func controlPlaneChange(oldM, newM []nodeModel, oldP, newP map[string]string) (intent.MastersChange, bool) {
	olds, okOld := mastersOf(oldM)
	news, okNew := mastersOf(newM)
	if !okOld || !okNew {
		return intent.MastersChange{}, false
	}
	return intent.ControlPlaneChange(intent.ControlPlane{Masters: olds, Params: oldP}, intent.ControlPlane{Masters: news, Params: newP}), true
}

// mastersOf is the masters as intent.ControlPlaneChange compares them;
// false when a value is unknown.
func mastersOf(ms []nodeModel) ([]intent.Master, bool) {
	var out []intent.Master
	for _, n := range ms {
		vals := []attr.Value{n.Name, n.Address, n.Port, n.NodeAddress, n.WireGuardEndpoint}
		user, key := types.StringNull(), types.StringNull()
		if n.SSH != nil {
			user, key = n.SSH.User, n.SSH.PrivateKeyFile
		}
		vals = append(vals, user, key)
		for _, v := range vals {
			if v.IsUnknown() {
				return nil, false
			}
		}
		out = append(out, intent.Master{Name: n.Name.ValueString(), Address: n.Address.ValueString(), NodeAddress: n.NodeAddress.ValueString(),
			Settings: fmt.Sprintf("port=%s wireguard_endpoint=%q ssh.user=%q ssh.private_key_file=%q",
				n.Port.String(), n.WireGuardEndpoint.ValueString(), user.ValueString(), key.ValueString())})
	}
	return out, true
}

// paramsAt reads the parameters of a plan or state (nil when there is
// none, as in a plan modifier's unit test); false when not known.
func paramsAt(ctx context.Context, raw tftypes.Value, get func(context.Context, path.Path, any) diag.Diagnostics, diags *diag.Diagnostics) (map[string]string, bool) {
	if raw.IsNull() || !raw.IsKnown() {
		return nil, raw.IsNull()
	}
	var m types.Map
	if diags.Append(get(ctx, path.Root("parameters"), &m)...); diags.HasError() {
		return nil, false
	}
	return mapValues(m)
}

// mapValues is a string map's values; false when it or one of its values
// is unknown.
func mapValues(m types.Map) (map[string]string, bool) {
	if m.IsUnknown() {
		return nil, false
	}
	out := map[string]string{}
	for k, v := range m.Elements() {
		s, ok := v.(types.String)
		if !ok || s.IsUnknown() {
			return nil, false
		}
		out[k] = s.ValueString()
	}
	return out, true
}
