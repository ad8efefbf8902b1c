package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"sort"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/intentops/terraform-provider-cp/internal/operation"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// clusterRecord is the intent a cluster was last applied with, kept on its
// masters so the cluster can be imported by the address of one of them.
type clusterRecord struct {
	Name             string              `json:"name"`
	Environment      string              `json:"environment"`
	Region           *string             `json:"region,omitempty"`
	Masters          []recordNode        `json:"masters"`
	Workers          []recordNode        `json:"workers,omitempty"`
	CNI              string              `json:"cni"`
	ContainerRuntime string              `json:"container_runtime"`
	Storage          string              `json:"storage"`
	Version          string              `json:"kubernetes_version"`
	HA               bool                `json:"require_ha_control_plane"`
	PodCIDR          string              `json:"pod_cidr"`
	ServiceCIDR      string              `json:"service_cidr"`
	RegistryMirrors  []string            `json:"registry_mirrors,omitempty"`
	Parameters       map[string]string   `json:"parameters,omitempty"`
	Artifacts        []protocol.Artifact `json:"artifacts,omitempty"`
}

type recordNode struct {
	Name    string            `json:"name"`
	Address string            `json:"address"`
	Port    *int64            `json:"port,omitempty"`
	Labels  map[string]string `json:"labels,omitempty"`
	Taints  []string          `json:"taints,omitempty"`
}

func optString(v types.String) *string {
	if v.IsNull() || v.IsUnknown() {
		return nil
	}
	s := v.ValueString()
	return &s
}

func recordOf(m *clusterModel) clusterRecord {
	rec := clusterRecord{
		Name: m.Name.ValueString(), Environment: m.Environment.ValueString(), Region: optString(m.Region),
		CNI: m.CNI.ValueString(), ContainerRuntime: m.ContainerRuntime.ValueString(), Storage: m.Storage.ValueString(),
		Version: m.KubernetesVersion.ValueString(), HA: m.RequireHAControlPlane.ValueBool(), PodCIDR: m.PodCIDR.ValueString(),
		ServiceCIDR: m.ServiceCIDR.ValueString(), RegistryMirrors: m.RegistryMirrors, Parameters: m.Parameters,
		Artifacts: artifactsFromList(m.Artifacts),
	}
	conv := func(ns []nodeModel) []recordNode {
		var out []recordNode
		for _, n := range ns {
			rn := recordNode{Name: n.Name.ValueString(), Address: n.Address.ValueString(), Labels: n.Labels, Taints: n.Taints}
			if !n.Port.IsNull() && !n.Port.IsUnknown() {
				p := n.Port.ValueInt64()
				rn.Port = &p
			}
			out = append(out, rn)
		}
		return out
	}
	rec.Masters, rec.Workers = conv(m.Masters), conv(m.Workers)
	return rec
}

// writeRecord keeps the intent on the masters; a failure is a warning.
func (r *KubernetesClusterResource) writeRecord(ctx context.Context, m *clusterModel, diags *diag.Diagnostics) {
	b, err := json.MarshalIndent(recordOf(m), "", "  ")
	if err != nil {
		return
	}
	var local diag.Diagnostics
	_, access := clusterHosts(m, r.data, &local)
	var masters []operation.HostAccess
	for _, a := range access {
		if a.Host.Role == protocol.RoleMaster {
			masters = append(masters, a)
		}
	}
	if err := operation.WriteRecord(ctx, masters, m.Name.ValueString(), b); err != nil {
		diags.AddWarning("Cannot keep the intent record on the masters", err.Error()+"\n\nImporting this cluster by a master's address will fall back to discovering its nodes.")
	}
}

// ImportState takes the address of a master, optionally with the cluster
// name and SSH port: `10.0.0.11`, `prod-k8s@10.0.0.11`, `prod-k8s@10.0.0.11:2222`.
// The read that follows restores the intent from the record cp keeps on
// the masters, or discovers the nodes through the API server.
func (r *KubernetesClusterResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	req.ID = importRequestID(ctx, req, func(ctx context.Context, req resource.ImportStateRequest) (string, bool) {
		var im clusterIdentityModel
		if resp.Diagnostics.Append(req.Identity.Get(ctx, &im)...); resp.Diagnostics.HasError() {
			return "", false
		}
		return importIDOf(im.Name.ValueString(), im.Address, im.Port), true
	})
	if resp.Diagnostics.HasError() {
		return
	}
	if r.data == nil {
		resp.Diagnostics.AddError("Provider not configured", "the cp provider must be configured to import.")
		return
	}
	name, addr, _ := strings.Cut(req.ID, "@")
	if addr == "" {
		name, addr = "", req.ID
	}
	host, port := addr, int64(0)
	if h, p, err := net.SplitHostPort(addr); err == nil {
		n, _ := strconv.Atoi(p)
		host, port = h, int64(n)
	}
	if host == "" {
		resp.Diagnostics.AddError("Invalid import ID", fmt.Sprintf("%q: use the address of a master, optionally as name@address[:port], e.g. prod-k8s@10.0.0.11.", req.ID))
		return
	}
	master := nodeModel{Name: types.StringValue("import"), Address: types.StringValue(host), Port: types.Int64Null()}
	if port != 0 {
		master.Port = types.Int64Value(port)
	}
	m := clusterModel{Name: types.StringValue(name), Masters: []nodeModel{master}}
	rec, err := r.importRecord(ctx, &m, name)
	if err != nil {
		resp.Diagnostics.AddError("Cannot import the cluster", err.Error())
		return
	}
	pack, _ := r.data.Catalog.Get("kubernetes", "")
	state := modelFromRecord(rec, r.data.Environment, pack)
	resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
	setIdentity(ctx, clusterHooks{r: r}, state, resp.Identity, &resp.Diagnostics)
}

func (r *KubernetesClusterResource) importRecord(ctx context.Context, m *clusterModel, name string) (clusterRecord, error) {
	var local diag.Diagnostics
	_, access := clusterHosts(m, r.data, &local)
	if local.HasError() || len(access) == 0 {
		return clusterRecord{}, fmt.Errorf("no host to connect to")
	}
	all, err := operation.ReadRecords(ctx, access[0])
	if err != nil {
		return clusterRecord{}, err
	}
	// Records of other resources (node., tempo., scenario.) are not a
	// cluster's: a cluster record is named after the cluster, a DNS label.
	recs := map[string][]byte{}
	for n, b := range all {
		if !strings.Contains(n, ".") {
			recs[n] = b
		}
	}
	if name == "" && len(recs) == 1 {
		for n := range recs {
			name = n
		}
	}
	if b, ok := recs[name]; ok {
		var rec clusterRecord
		if err := json.Unmarshal(b, &rec); err != nil {
			return rec, fmt.Errorf("intent record %s on %s: %w", name, access[0].Host.Address, err)
		}
		return rec, nil
	}
	if len(recs) > 1 {
		return clusterRecord{}, fmt.Errorf("%s keeps records of several clusters (%s); import as name@%s", access[0].Host.Address, strings.Join(protocol.SortedKeys(recs), ", "), access[0].Host.Address)
	}
	return r.discover(ctx, access[0], name)
}

// discover builds a record from the API server's node list, for clusters
// cp did not create.
func (r *KubernetesClusterResource) discover(ctx context.Context, master operation.HostAccess, name string) (clusterRecord, error) {
	nodes, err := operation.ListNodes(ctx, master, nil)
	if err != nil {
		return clusterRecord{}, fmt.Errorf("no intent record on %s and the nodes cannot be listed: %w", master.Host.Address, err)
	}
	if name == "" {
		return clusterRecord{}, fmt.Errorf("no intent record on %s: import as name@%s to name the cluster", master.Host.Address, master.Host.Address)
	}
	rec := clusterRecord{Name: name, CNI: "calico", ContainerRuntime: "containerd", Storage: "none", PodCIDR: "10.244.0.0/16", ServiceCIDR: "10.96.0.0/12"}
	sort.Slice(nodes, func(i, j int) bool { return nodes[i].Name < nodes[j].Name })
	for _, n := range nodes {
		rn := recordNode{Name: n.Name, Address: n.InternalIP}
		if n.ControlPlane {
			rec.Masters = append(rec.Masters, rn)
		} else {
			rec.Workers = append(rec.Workers, rn)
		}
		rec.Version = strings.TrimPrefix(n.KubeletVersion, "v")
	}
	for _, n := range nodes {
		if n.InternalIP == master.Host.Address {
			rec.Artifacts = []protocol.Artifact{{ID: "kubeconfig.admin", Sensitivity: protocol.SensitivitySecret, Ref: n.Name + ":/etc/kubernetes/admin.conf", Host: n.Name}}
		}
	}
	return rec, nil
}

func modelFromRecord(rec clusterRecord, env string, pack *protocol.ScenarioPack) *clusterModel {
	if rec.Environment != "" {
		env = rec.Environment
	}
	m := &clusterModel{
		ID: types.StringValue(rec.Name), Name: types.StringValue(rec.Name), Environment: types.StringValue(env),
		Region: types.StringNull(), CNI: types.StringValue(rec.CNI), ContainerRuntime: types.StringValue(rec.ContainerRuntime),
		Storage: types.StringValue(rec.Storage), KubernetesVersion: types.StringValue(rec.Version),
		RequireHAControlPlane: types.BoolValue(rec.HA), PodCIDR: types.StringValue(rec.PodCIDR), ServiceCIDR: types.StringValue(rec.ServiceCIDR),
		RegistryMirrors: rec.RegistryMirrors, Parameters: rec.Parameters,
		DeletionProtection: types.BoolValue(false), RefreshHealth: types.BoolValue(true), ExposeKubeconfig: types.BoolValue(false),
	}
	if rec.Region != nil {
		m.Region = types.StringValue(*rec.Region)
	}
	conv := func(ns []recordNode) []nodeModel {
		var out []nodeModel
		for _, n := range ns {
			nm := nodeModel{Name: types.StringValue(n.Name), Address: types.StringValue(n.Address), Port: types.Int64Null(), Labels: n.Labels, Taints: n.Taints}
			if n.Port != nil {
				nm.Port = types.Int64Value(*n.Port)
			}
			out = append(out, nm)
		}
		return out
	}
	m.Masters, m.Workers = conv(rec.Masters), conv(rec.Workers)
	m.Artifacts = artifactsList(rec.Artifacts)
	m.APIEndpoint = types.StringValue(apiEndpoint(m))
	m.Handle = types.StringValue(clusterHandle(m, pack).Encode())
	m.Timeouts = timeoutsNull()
	m.PlanSummary, m.Plan, m.PlanDigest = types.StringValue(""), types.StringValue(""), types.StringValue("")
	m.PlannedInstances = types.MapValueMust(plannedInstanceType, nil)
	m.Operation = types.ObjectNull(operationType.AttrTypes)
	m.Evidence = types.ListValueMust(evidenceType, nil)
	m.Capabilities = capabilitiesList(nil)
	m.Nodes = types.ListValueMust(clusterNodeType, nil)
	m.Health = types.StringValue("unknown")
	m.Kubeconfig = types.StringNull()
	return m
}

func timeoutsNull() timeouts.Value {
	return timeouts.Value{Object: types.ObjectNull(map[string]attr.Type{
		"create": types.StringType, "update": types.StringType, "delete": types.StringType,
	})}
}
