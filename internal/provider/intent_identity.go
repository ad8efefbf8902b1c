package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/identityschema"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// Resource identities (Terraform and OpenTofu 1.12 on): what names a
// cluster or a node and where to find it, so an import block can give
// identity = { ... } instead of an id.

// clusterIdentityModel is cp_kubernetes_cluster's identity.
type clusterIdentityModel struct {
	Name    types.String `tfsdk:"name"`
	Address types.String `tfsdk:"address"`
	Port    types.Int64  `tfsdk:"port"`
}

// nodeIdentityModel is cp_node's identity.
type nodeIdentityModel struct {
	Cluster types.String `tfsdk:"cluster"`
	Name    types.String `tfsdk:"name"`
	Address types.String `tfsdk:"address"`
	Port    types.Int64  `tfsdk:"port"`
}

func portAttr(of string) identityschema.Int64Attribute {
	return identityschema.Int64Attribute{OptionalForImport: true, Description: "SSH port of " + of + "; the provider's when unset."}
}

// IdentitySchema of cp_kubernetes_cluster: its name and the address of
// its first master, which keeps the intent record import reads.
func (r *KubernetesClusterResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = identityschema.Schema{Attributes: map[string]identityschema.Attribute{
		"name":    identityschema.StringAttribute{RequiredForImport: true, Description: "The cluster's name."},
		"address": identityschema.StringAttribute{RequiredForImport: true, Description: "Address of a master (the first one's in the identity cp sets)."},
		"port":    portAttr("the master"),
	}}
}

// IdentitySchema of cp_node: its cluster, its name and its address, where
// the node's intent record is kept.
func (r *NodeResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = identityschema.Schema{Attributes: map[string]identityschema.Attribute{
		"cluster": identityschema.StringAttribute{RequiredForImport: true, Description: "Name of the cluster the node is in."},
		"name":    identityschema.StringAttribute{RequiredForImport: true, Description: "The node's name."},
		"address": identityschema.StringAttribute{RequiredForImport: true, Description: "The node's address."},
		"port":    portAttr("the node"),
	}}
}

func (clusterHooks) identity(m *clusterModel) any {
	id := clusterIdentityModel{Name: m.Name, Address: types.StringNull(), Port: types.Int64Null()}
	if len(m.Masters) > 0 {
		id.Address, id.Port = m.Masters[0].Address, m.Masters[0].Port
	} else if m.firstMaster != nil { // hosts from inventory_file
		id.Address, id.Port = m.firstMaster.Address, m.firstMaster.Port
	}
	return &id
}

func (nodeHooks) identity(m *nodeResModel) any {
	id := nodeIdentityModel{Cluster: types.StringNull(), Name: types.StringNull(), Address: types.StringNull(), Port: types.Int64Null()}
	if ch, err := decodeNodeCluster(m); err == nil {
		id.Cluster = types.StringValue(ch)
	}
	if m.Node != nil {
		id.Name, id.Address, id.Port = m.Node.Name, m.Node.Address, m.Node.Port
	}
	return &id
}

// importIDOf writes an identity as an import id: id@address[:port].
func importIDOf(id string, address types.String, port types.Int64) string {
	s := address.ValueString()
	if !port.IsNull() && !port.IsUnknown() {
		s = fmt.Sprintf("%s:%d", s, port.ValueInt64())
	}
	if id != "" {
		s = id + "@" + s
	}
	return s
}

// importRequestID is the import id, or the identity written as one.
func importRequestID(ctx context.Context, req resource.ImportStateRequest, fromIdentity func(context.Context, resource.ImportStateRequest) (string, bool)) string {
	if req.ID != "" || req.Identity == nil {
		return req.ID
	}
	if id, ok := fromIdentity(ctx, req); ok {
		return id
	}
	return ""
}
