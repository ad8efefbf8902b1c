package provider

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/intentops/terraform-provider-cp/internal/intent"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// A cluster's hosts given by file (inventory_file). The plan and state
// never hold them: the resource's methods put them into the model the
// intent code reads (Masters, Workers) on the way in, from the file for
// the plan and from private state for the state, and clearWriteOnly
// takes them out again before a plan or state is returned. So every check,
// change and operation is the inline hosts' one, and the plan shows only
// inventory_sha256.

// privInventory is the private-state key of the hosts a cluster with an
// inventory file was last applied (or refreshed) with.
const privInventory = "cp.cluster.inventory"

// usesInventory says m takes its hosts from a file.
func usesInventory(m *clusterModel) bool {
	return !m.InventoryFile.IsNull() && !m.InventoryFile.IsUnknown()
}

// nodesOf converts an inventory's hosts to the host blocks' model.
func nodesOf(hs []intent.InventoryHost) []nodeModel {
	out := make([]nodeModel, 0, len(hs))
	for _, h := range hs {
		n := nodeModel{Name: types.StringValue(h.Name), Address: types.StringValue(h.Address), Port: types.Int64Null(),
			NodeAddress: nullIfEmpty(h.NodeAddress), WireGuardEndpoint: nullIfEmpty(h.WireGuardEndpoint), Labels: h.Labels, Taints: h.Taints}
		if h.Port != nil {
			n.Port = types.Int64Value(*h.Port)
		}
		if h.SSH != nil {
			n.SSH = &hostSSHModel{User: nullIfEmpty(h.SSH.User), PrivateKeyFile: nullIfEmpty(h.SSH.PrivateKeyFile)}
		}
		out = append(out, n)
	}
	return out
}

// inventoryHosts is the reverse of nodesOf, for private state.
func inventoryHosts(ns []nodeModel) []intent.InventoryHost {
	out := make([]intent.InventoryHost, 0, len(ns))
	for _, n := range ns {
		h := intent.InventoryHost{Name: n.Name.ValueString(), Address: n.Address.ValueString(), NodeAddress: n.NodeAddress.ValueString(),
			WireGuardEndpoint: n.WireGuardEndpoint.ValueString(), Labels: n.Labels, Taints: n.Taints}
		if !n.Port.IsNull() && !n.Port.IsUnknown() {
			p := n.Port.ValueInt64()
			h.Port = &p
		}
		if n.SSH != nil {
			h.SSH = &intent.InventorySSH{User: n.SSH.User.ValueString(), PrivateKeyFile: n.SSH.PrivateKeyFile.ValueString()}
		}
		out = append(out, h)
	}
	return out
}

func nullIfEmpty(s string) types.String {
	if s == "" {
		return types.StringNull()
	}
	return types.StringValue(s)
}

// loadInventory reads m's inventory file into m's hosts and
// inventory_sha256; an error is on inventory_file. With kept (the state,
// its hosts from private state), a file that does not exist is a warning
// and m keeps the state's hosts: the plan before a destroy, which
// OpenTofu makes with the configuration, works after the file is deleted,
// and no plan changes a host for a file that is gone.
func loadInventory(m, kept *clusterModel, diags *diag.Diagnostics) bool {
	inv, err := intent.ReadInventory(m.InventoryFile.ValueString())
	if errors.Is(err, fs.ErrNotExist) && kept != nil && usesInventory(kept) {
		diags.AddAttributeWarning(path.Root("inventory_file"), "Inventory file not found",
			"inventory_file: "+err.Error()+"; the plan keeps the hosts the state has, so nothing changes on them. "+
				"Restore the file to change the hosts; a destroy uses the state's hosts.")
		m.Masters, m.Workers, m.InventorySHA256 = kept.Masters, kept.Workers, kept.InventorySHA256
		return true
	}
	if err != nil {
		addAttrError(diags, path.Root("inventory_file"), "Invalid inventory file",
			err.Error()+"; fix the file, or list the hosts in masters and workers blocks instead.")
		return false
	}
	m.Masters, m.Workers = nodesOf(inv.Masters), nodesOf(inv.Workers)
	m.InventorySHA256 = types.StringValue(inv.SHA256)
	return true
}

// refuseTwoSources refuses an inventory file given with host blocks.
func refuseTwoSources(m *clusterModel, diags *diag.Diagnostics) bool {
	if m.InventoryFile.IsNull() || (m.Masters == nil && m.Workers == nil) {
		return false
	}
	addAttrError(diags, path.Root("inventory_file"), "Hosts given twice",
		"inventory_file and masters/workers blocks are both set; the hosts come from one of them: move the blocks' hosts into the file "+
			"and remove the blocks, or remove inventory_file.")
	return true
}

// attrGetter is a plan (or configuration): its attributes are read one
// by one, so the hosts of a large inline list are never converted here.
type attrGetter interface {
	GetAttribute(ctx context.Context, p path.Path, target any) diag.Diagnostics
}

// planInventory reads the hosts of the plan's inventory file; nil when
// the plan has none (or is null). The model returned holds what the
// checks of the inventory need (inventory_file and its SHA-256, the
// hosts, the parameters); withInventoryHosts passes it to the intent
// skeleton, whose readConfig hook puts the hosts into its plan. At apply
// the SHA-256 of the file read must be the planned one, if the plan
// knows it: a file edited between plan and apply is refused. (At plan,
// the proposed inventory_sha256 is the state's.)
func planInventory(ctx context.Context, plan attrGetter, isNull, apply bool, kept *clusterModel, diags *diag.Diagnostics) *clusterModel {
	if isNull {
		return nil
	}
	var m clusterModel
	var masters, workers types.List
	diags.Append(plan.GetAttribute(ctx, path.Root("inventory_file"), &m.InventoryFile)...)
	diags.Append(plan.GetAttribute(ctx, path.Root("inventory_sha256"), &m.InventorySHA256)...)
	if diags.HasError() || !usesInventory(&m) {
		return nil
	}
	diags.Append(plan.GetAttribute(ctx, path.Root("masters"), &masters)...)
	diags.Append(plan.GetAttribute(ctx, path.Root("workers"), &workers)...)
	var params types.Map
	diags.Append(plan.GetAttribute(ctx, path.Root("parameters"), &params)...)
	if diags.HasError() {
		return nil
	}
	if !params.IsNull() {
		m.Parameters, _ = mapValues(params) // unknown: the skeleton plans nothing yet
	}
	if !masters.IsNull() || !workers.IsNull() {
		m.Masters = []nodeModel{}
	}
	planned := m.InventorySHA256
	if refuseTwoSources(&m, diags) || !loadInventory(&m, kept, diags) {
		return nil
	}
	if apply && !planned.IsNull() && !planned.IsUnknown() && planned.ValueString() != m.InventorySHA256.ValueString() {
		addAttrError(diags, path.Root("inventory_file"), "Inventory file changed since plan",
			fmt.Sprintf("%s has SHA-256 %s, the plan was made with %s; plan again so the plan shows what apply does.",
				m.InventoryFile.ValueString(), m.InventorySHA256.ValueString(), planned.ValueString()))
		return nil
	}
	return &m
}

type inventoryKey struct{}

// withInventoryHosts passes the inventory's hosts (planInventory) to the
// intent skeleton's readConfig hook.
func withInventoryHosts(ctx context.Context, m *clusterModel) context.Context {
	if m == nil {
		return ctx
	}
	return context.WithValue(ctx, inventoryKey{}, m)
}

// fillInventoryHosts puts the hosts withInventoryHosts passed into m, a
// plan of the same inventory file.
func fillInventoryHosts(ctx context.Context, m *clusterModel) {
	inv, ok := ctx.Value(inventoryKey{}).(*clusterModel)
	if !ok || !usesInventory(m) || inv.InventoryFile.ValueString() != m.InventoryFile.ValueString() {
		return
	}
	m.Masters, m.Workers, m.InventorySHA256 = inv.Masters, inv.Workers, inv.InventorySHA256
}

// stateWithInventory puts the hosts kept in private state into a state
// whose hosts came from an inventory file (its host lists are null); it
// returns the filled model, nil when there was nothing to fill.
func stateWithInventory(ctx context.Context, st *tfsdk.State, p privateReader, diags *diag.Diagnostics) *clusterModel {
	if st.Raw.IsNull() {
		return nil
	}
	b, d := p.GetKey(ctx, privInventory)
	if diags.Append(d...); len(b) == 0 {
		return nil
	}
	var m clusterModel
	if diags.Append(st.Get(ctx, &m)...); diags.HasError() || m.Masters != nil || m.Workers != nil {
		return nil
	}
	inv, err := intent.DecodeInventory(b)
	if err != nil {
		diags.AddError("Cannot read the cluster's hosts from private state", err.Error()+"; import the cluster again (terraform import) to rebuild its state.")
		return nil
	}
	m.Masters, m.Workers = nodesOf(inv.Masters), nodesOf(inv.Workers)
	diags.Append(st.Set(ctx, &m)...)
	return &m
}

// keepInventory writes the hosts of m (a state) to private state when
// they came from an inventory file, and removes them otherwise.
func keepInventory(ctx context.Context, p privateWriter, m *clusterModel, diags *diag.Diagnostics) {
	if m == nil || !usesInventory(m) {
		diags.Append(p.SetKey(ctx, privInventory, nil)...)
		return
	}
	inv := intent.Inventory{Masters: inventoryHosts(m.Masters), Workers: inventoryHosts(m.Workers), SHA256: m.InventorySHA256.ValueString()}
	b, err := inv.Encode()
	if err != nil {
		diags.AddError("Cannot keep the cluster's hosts", err.Error())
		return
	}
	diags.Append(p.SetKey(ctx, privInventory, b)...)
}

// withoutInventoryHosts takes the hosts out of a state whose hosts come
// from an inventory file (as clearWriteOnly does before a Set).
func withoutInventoryHosts(ctx context.Context, st *tfsdk.State, diags *diag.Diagnostics) {
	if st.Raw.IsNull() {
		return
	}
	var m clusterModel
	if diags.Append(st.Get(ctx, &m)...); diags.HasError() || !usesInventory(&m) || (m.Masters == nil && m.Workers == nil) {
		return
	}
	m.Masters, m.Workers = nil, nil
	diags.Append(st.Set(ctx, &m)...)
}

// inventoryDiags moves the diagnostics on masters and workers to
// inventory_file, naming the file, the host's position and name and the
// field, e.g. "hosts.yaml: workers[3].address (worker-4): ...".
func inventoryDiags(m *clusterModel, diags diag.Diagnostics) diag.Diagnostics {
	if !usesInventory(m) {
		return diags // blocks: the diagnostics are on them already
	}
	var out diag.Diagnostics
	for _, d := range diags {
		dp, ok := d.(diag.DiagnosticWithPath)
		if !ok {
			out = append(out, d)
			continue
		}
		steps := dp.Path().Steps()
		var name path.PathStepAttributeName
		if len(steps) > 0 {
			name, _ = steps[0].(path.PathStepAttributeName)
		}
		if name != "masters" && name != "workers" {
			out = append(out, d)
			continue
		}
		at := dp.Path().String()
		detail := strings.TrimPrefix(d.Detail(), at+": ")
		if host := hostAt(m, dp.Path()); host != "" {
			at += " (" + host + ")"
		}
		detail = m.InventoryFile.ValueString() + ": " + at + ": " + detail
		if d.Severity() == diag.SeverityError {
			out.AddAttributeError(path.Root("inventory_file"), d.Summary(), detail)
		} else {
			out.AddAttributeWarning(path.Root("inventory_file"), d.Summary(), detail)
		}
	}
	return out
}

// hostAt is the name of the host a masters[i]/workers[i] path is in.
func hostAt(m *clusterModel, p path.Path) string {
	steps := p.Steps()
	if len(steps) < 2 {
		return ""
	}
	root, _ := steps[0].(path.PathStepAttributeName)
	idx, ok := steps[1].(path.PathStepElementKeyInt)
	list := m.Masters
	if root == "workers" {
		list = m.Workers
	}
	if !ok || int(idx) < 0 || int(idx) >= len(list) {
		return ""
	}
	return list[idx].Name.ValueString()
}

// handleInventory is the handle's reference to the hosts of a cluster
// whose hosts come from a file with a known SHA-256: the file's absolute
// path (consumers read it from their own working directory, the same
// one) and digest, so the handle does not list the hosts; nil otherwise.
func handleInventory(m *clusterModel, hosts []protocol.Host) *intent.HandleInventory {
	if !usesInventory(m) || m.InventorySHA256.IsNull() || m.InventorySHA256.IsUnknown() || m.InventorySHA256.ValueString() == "" || len(hosts) == 0 {
		return nil
	}
	file, err := filepath.Abs(m.InventoryFile.ValueString())
	if err != nil {
		return nil
	}
	return intent.InventoryRef(file, m.InventorySHA256.ValueString(), hosts)
}
