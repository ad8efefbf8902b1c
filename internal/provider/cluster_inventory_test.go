package provider

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/intentops/terraform-provider-cp/internal/intent"
)

// fakePrivate is private state in memory.
type fakePrivate map[string][]byte

func (p fakePrivate) GetKey(_ context.Context, k string) ([]byte, diag.Diagnostics) { return p[k], nil }
func (p fakePrivate) SetKey(_ context.Context, k string, v []byte) diag.Diagnostics {
	if len(v) == 0 {
		delete(p, k)
	} else {
		p[k] = v
	}
	return nil
}

func invMaster(name, addr string) nodeModel {
	return nodeModel{Name: types.StringValue(name), Address: types.StringValue(addr), Port: types.Int64Null(),
		NodeAddress: types.StringNull(), WireGuardEndpoint: types.StringNull()}
}

// The hosts kept in private state are every field of the file's, read
// back the same; a cluster without inventory_file keeps none (and
// removes what an earlier inventory kept).
func TestKeepInventoryRoundTrip(t *testing.T) {
	port := int64(2222)
	inv := intent.Inventory{
		Masters: []intent.InventoryHost{{Name: "master-1", Address: "10.0.0.11", Port: &port, NodeAddress: "192.168.0.11", WireGuardEndpoint: "203.0.113.11",
			Labels: map[string]string{"tier": "control"}, Taints: []string{"a=b:NoSchedule"}, SSH: &intent.InventorySSH{User: "ops", PrivateKeyFile: "/k"}}},
		Workers: []intent.InventoryHost{{Name: "worker-1", Address: "10.0.0.21"}},
	}
	m := &clusterModel{InventoryFile: types.StringValue("hosts.yaml"), InventorySHA256: types.StringValue("abc"),
		Masters: nodesOf(inv.Masters), Workers: nodesOf(inv.Workers)}
	p := fakePrivate{}
	var diags diag.Diagnostics
	keepInventory(context.Background(), p, m, &diags)
	got, err := intent.DecodeInventory(p[privInventory])
	if err != nil || diags.HasError() {
		t.Fatalf("%v %v", err, diags)
	}
	inv.SHA256 = "abc"
	if !reflect.DeepEqual(got, inv) {
		t.Fatalf("kept %+v\nwant %+v", got, inv)
	}
	keepInventory(context.Background(), p, &clusterModel{InventoryFile: types.StringNull()}, &diags)
	if _, ok := p[privInventory]; ok {
		t.Fatal("a cluster with inline hosts still keeps an inventory in private state")
	}
}

// Problems on masters and workers move to inventory_file and name the
// file, the host's position and name and the field.
func TestInventoryDiagsNameTheFileAndHost(t *testing.T) {
	m := &clusterModel{InventoryFile: types.StringValue("hosts.yaml"),
		Masters: []nodeModel{invMaster("master-1", "10.0.0.1")}, Workers: []nodeModel{invMaster("worker-1", "x"), invMaster("worker-2", "y")}}
	var in diag.Diagnostics
	addAttrError(&in, path.Root("workers").AtListIndex(1).AtName("address"), "Invalid node address", "\"y\" is not an IPv4 address.")
	addAttrError(&in, path.Root("masters"), "No masters", "list at least one master.")
	addAttrError(&in, path.Root("pod_cidr"), "Bad", "kept where it is.")
	out := inventoryDiags(m, in)
	if len(out) != 3 {
		t.Fatalf("got %d diagnostics, want 3", len(out))
	}
	for i, want := range []struct{ at, detail string }{
		{"inventory_file", `hosts.yaml: workers[1].address (worker-2): "y" is not an IPv4 address.`},
		{"inventory_file", `hosts.yaml: masters: list at least one master.`},
		{"pod_cidr", `pod_cidr: kept where it is.`},
	} {
		d := out[i].(diag.DiagnosticWithPath)
		if d.Path().String() != want.at || d.Detail() != want.detail {
			t.Errorf("diagnostic %d: %s %q, want %s %q", i, d.Path(), d.Detail(), want.at, want.detail)
		}
	}
}

// The masters' replacement rule holds for inventory hosts: a master
// added with the endpoint kept is in place, a changed first master
// replaces the cluster (on inventory_sha256, with the warning), an
// endpoint change replaces it on parameters, and masters added while
// the endpoint changes are refused on the endpoint, as inline.
func TestInventoryReplacement(t *testing.T) {
	ep := func(e string) map[string]string { return map[string]string{intent.EndpointParam: e} }
	one := []nodeModel{invMaster("master-1", "10.0.0.1")}
	three := []nodeModel{invMaster("master-1", "10.0.0.1"), invMaster("master-2", "10.0.0.2"), invMaster("master-3", "10.0.0.3")}
	moved := []nodeModel{invMaster("master-1", "10.0.0.9")}
	model := func(ms []nodeModel, params map[string]string) *clusterModel {
		return &clusterModel{InventoryFile: types.StringValue("hosts.yaml"), Masters: ms, Parameters: params}
	}
	for _, tc := range []struct {
		name          string
		prior, plan   *clusterModel
		replace       []string
		warn, refused string
	}{
		{"master added", model(one, ep("api:6443")), model(three, ep("api:6443")), nil, "", ""},
		{"first master changed", model(one, ep("api:6443")), model(moved, ep("api:6443")), []string{"inventory_sha256"}, "The cluster is replaced", ""},
		{"endpoint changed", model(three, ep("api:6443")), model(three, ep("api2:6443")), []string{"parameters"}, "The cluster is replaced", ""},
		{"blocks again with the first master changed", model(one, ep("api:6443")), &clusterModel{InventoryFile: types.StringNull(), Masters: moved, Parameters: ep("api:6443")},
			[]string{"masters"}, "The cluster is replaced", ""},
		{"masters added while the endpoint changes", model(one, ep("api:6443")), model(three, ep("api2:6443")), nil, "", `parameters["control_plane_endpoint"]`},
	} {
		t.Run(strings.ReplaceAll(tc.name, " ", "_"), func(t *testing.T) {
			var resp resource.ModifyPlanResponse
			inventoryReplacement(tc.prior, tc.plan, &resp)
			var got []string
			for _, p := range resp.RequiresReplace {
				got = append(got, p.String())
			}
			if !reflect.DeepEqual(got, tc.replace) {
				t.Errorf("requires replace %v, want %v", got, tc.replace)
			}
			if tc.warn != "" && (resp.Diagnostics.WarningsCount() != 1 || !strings.Contains(resp.Diagnostics.Warnings()[0].Summary(), tc.warn)) {
				t.Errorf("warnings %v, want %q", resp.Diagnostics.Warnings(), tc.warn)
			}
			if tc.refused == "" && resp.Diagnostics.HasError() || tc.refused != "" &&
				(!resp.Diagnostics.HasError() || resp.Diagnostics.Errors()[0].(diag.DiagnosticWithPath).Path().String() != tc.refused) {
				t.Errorf("errors %v, want on %q", resp.Diagnostics.Errors(), tc.refused)
			}
		})
	}
}

// A file that does not exist: an error without kept hosts; with them, a
// warning and the state's hosts (the plan before a destroy).
func TestLoadInventoryMissingFile(t *testing.T) {
	gone := filepath.Join(t.TempDir(), "hosts.yaml")
	m := &clusterModel{InventoryFile: types.StringValue(gone)}
	var diags diag.Diagnostics
	if loadInventory(m, nil, &diags) || !diags.HasError() || !strings.Contains(diags.Errors()[0].Detail(), "no such file") {
		t.Fatalf("a missing file without state: %v", diags)
	}
	kept := &clusterModel{InventoryFile: types.StringValue(gone), InventorySHA256: types.StringValue("abc"), Masters: []nodeModel{invMaster("master-1", "10.0.0.1")}}
	diags = nil
	if !loadInventory(m, kept, &diags) || diags.HasError() || diags.WarningsCount() != 1 || len(m.Masters) != 1 || m.InventorySHA256.ValueString() != "abc" {
		t.Fatalf("a missing file with the state's hosts: %v %+v", diags, m)
	}
	// A file that exists is read, whatever the state keeps.
	must(t, os.WriteFile(gone, []byte("masters:\n  - { name: m9, address: 10.0.0.9 }\n"), 0o600))
	diags = nil
	if !loadInventory(m, kept, &diags) || diags.HasError() || m.Masters[0].Name.ValueString() != "m9" || m.InventorySHA256.ValueString() == "abc" {
		t.Fatalf("an existing file: %v %+v", diags, m)
	}
}

// Before a plan or state is returned, an inventory's hosts leave the
// model (the first master kept for the identity), and with blocks
// inventory_sha256 is null, never the unknown a computed attribute is
// planned as (apply would fail with it).
func TestClusterClearWriteOnly(t *testing.T) {
	inv := &clusterModel{InventoryFile: types.StringValue("hosts.yaml"), InventorySHA256: types.StringValue("abc"),
		Masters: []nodeModel{invMaster("master-1", "10.0.0.1")}, Workers: []nodeModel{invMaster("worker-1", "10.0.0.2")}}
	clusterHooks{}.clearWriteOnly(inv)
	if inv.Masters != nil || inv.Workers != nil || inv.InventorySHA256.ValueString() != "abc" {
		t.Fatalf("inventory cluster: %+v", inv)
	}
	if id := (clusterHooks{}).identity(inv).(*clusterIdentityModel); id.Address.ValueString() != "10.0.0.1" {
		t.Fatalf("identity address %s, want the first master's", id.Address)
	}
	blocks := &clusterModel{InventoryFile: types.StringNull(), InventorySHA256: types.StringUnknown(), Masters: []nodeModel{invMaster("master-1", "10.0.0.1")}}
	clusterHooks{}.clearWriteOnly(blocks)
	if !blocks.InventorySHA256.IsNull() || len(blocks.Masters) != 1 {
		t.Fatalf("cluster with blocks: %+v", blocks)
	}
}
