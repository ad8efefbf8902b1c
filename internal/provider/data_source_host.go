package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/intentops/terraform-provider-cp/internal/operation"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

var _ datasource.DataSourceWithConfigure = &HostDataSource{}

// HostDataSource gathers a host's facts over SSH.
type HostDataSource struct {
	data *providerData
}

// NewHostDataSource is the constructor listed by the provider.
func NewHostDataSource() datasource.DataSource { return &HostDataSource{} }

type hostDataModel struct {
	Address     types.String `tfsdk:"address"`
	Port        types.Int64  `tfsdk:"port"`
	User        types.String `tfsdk:"user"`
	KeyFile     types.String `tfsdk:"private_key_file"`
	KnownHosts  types.String `tfsdk:"known_hosts_file"`
	Hostname    types.String `tfsdk:"hostname"`
	OS          types.String `tfsdk:"os"`
	OSVersion   types.String `tfsdk:"os_version"`
	OSName      types.String `tfsdk:"os_name"`
	Kernel      types.String `tfsdk:"kernel"`
	Arch        types.String `tfsdk:"arch"`
	CPUs        types.Int64  `tfsdk:"cpus"`
	MemoryMB    types.Int64  `tfsdk:"memory_mb"`
	DiskTotalGB types.Int64  `tfsdk:"disk_total_gb"`
	DiskFreeGB  types.Int64  `tfsdk:"disk_free_gb"`
}

// Metadata sets the type name.
func (d *HostDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_host"
}

// Configure receives the provider data.
func (d *HostDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.data = configureData(req.ProviderData, &resp.Diagnostics)
}

// Schema of cp_host.
func (d *HostDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Gathers a host's facts over SSH — OS, architecture, CPUs, memory, disk — e.g. to check a node before adding it. Only reads.",
		Attributes: map[string]schema.Attribute{
			"address":          schema.StringAttribute{MarkdownDescription: "Address of the host.", Required: true},
			"port":             schema.Int64Attribute{MarkdownDescription: "SSH port; defaults to the provider's.", Optional: true},
			"user":             optStr("Login user; defaults to the provider's."),
			"private_key_file": optStr("Private key; defaults to the provider's."),
			"known_hosts_file": optStr("known_hosts file; defaults to the provider's."),
			"hostname":         cStr("Host name as the host reports it."),
			"os":               cStr("os-release ID, e.g. `ubuntu`, `debian`."),
			"os_version":       cStr("os-release VERSION_ID, e.g. `24.04`."),
			"os_name":          cStr("os-release PRETTY_NAME."),
			"kernel":           cStr("Kernel release."),
			"arch":             cStr("Machine architecture, e.g. `x86_64`, `aarch64`."),
			"cpus":             cInt("Online CPUs."),
			"memory_mb":        cInt("Total memory in MiB."),
			"disk_total_gb":    cInt("Size of the root filesystem in GiB."),
			"disk_free_gb":     cInt("Free space on the root filesystem in GiB."),
		},
	}
}

// Read connects and gathers the facts.
func (d *HostDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m hostDataModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() || d.data == nil {
		return
	}
	acc := resourceAccess(d.data, &resourceSSHModel{User: m.User, Port: m.Port, PrivateKeyFile: m.KeyFile, KnownHostsFile: m.KnownHosts})
	h := operation.HostAccess{Host: protocol.Host{Name: m.Address.ValueString(), Address: m.Address.ValueString()}, Access: acc}
	f, err := operation.GatherFacts(ctx, h, nil)
	if err != nil {
		addAttrError(&resp.Diagnostics, path.Root("address"), "Cannot gather host facts", err.Error()+
			"\n\nCheck the address, the SSH user and key, and that the host key is in the known_hosts file.")
		return
	}
	m.Hostname, m.OS, m.OSVersion, m.OSName = types.StringValue(f.Hostname), types.StringValue(f.OS), types.StringValue(f.OSVersion), types.StringValue(f.OSName)
	m.Kernel, m.Arch = types.StringValue(f.Kernel), types.StringValue(f.Arch)
	m.CPUs, m.MemoryMB = types.Int64Value(int64(f.CPUs)), types.Int64Value(int64(f.MemoryMB))
	m.DiskTotalGB, m.DiskFreeGB = types.Int64Value(int64(f.DiskTotalGB)), types.Int64Value(int64(f.DiskFreeGB))
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}
