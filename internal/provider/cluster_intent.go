package provider

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/intentops/terraform-provider-cp/internal/intent"
	"github.com/intentops/terraform-provider-cp/internal/operation"
	"github.com/intentops/terraform-provider-cp/internal/paramtype"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// clusterHosts returns the cluster's hosts (masters first) with how to
// reach each. validateCluster checks them; diags receives nothing here
// and is kept for callers that plan with the result.
func clusterHosts(m *clusterModel, data *providerData, _ *diag.Diagnostics) ([]protocol.Host, []operation.HostAccess) {
	base := resourceAccess(data, m.SSH)
	var hosts []protocol.Host
	var access []operation.HostAccess
	add := func(list []nodeModel, role string) {
		for _, n := range list {
			h := protocol.Host{Name: strOr(n.Name, ""), Address: strOr(n.Address, ""), Port: intOr(n.Port, 0), Role: role, Labels: n.Labels, Taints: n.Taints}
			acc := base
			if n.SSH != nil {
				acc = acc.Merge(operation.Access{User: strOr(n.SSH.User, ""), PrivateKeyFile: strOr(n.SSH.PrivateKeyFile, "")})
			}
			hosts = append(hosts, h)
			access = append(access, operation.HostAccess{Host: h, Access: acc})
		}
	}
	add(m.Masters, protocol.RoleMaster)
	add(m.Workers, protocol.RoleWorker)
	return hosts, access
}

// resourceAccess merges the resource's ssh settings over the provider's.
func resourceAccess(data *providerData, s *resourceSSHModel) operation.Access {
	a := data.SSH.access()
	if s != nil {
		a = a.Merge(operation.Access{User: strOr(s.User, ""), Port: intOr(s.Port, 0),
			PrivateKeyFile: strOr(s.PrivateKeyFile, ""), KnownHostsFile: strOr(s.KnownHostsFile, "")})
	}
	return a
}

// clusterParams are the kubernetes pack parameters of the cluster.
func clusterParams(m *clusterModel) map[string]string {
	p := map[string]string{}
	for k, v := range m.Parameters {
		p[k] = v
	}
	set := func(k, v string) {
		if v != "" {
			p[k] = v
		}
	}
	set("cluster_name", strOr(m.Name, ""))
	set("kubernetes_version", strOr(m.KubernetesVersion, ""))
	set("cni", strOr(m.CNI, ""))
	set("container_runtime", strOr(m.ContainerRuntime, ""))
	set("storage", strOr(m.Storage, ""))
	set("pod_cidr", strOr(m.PodCIDR, ""))
	set("service_cidr", strOr(m.ServiceCIDR, ""))
	// The endpoint reaches the pack as host:port (validateCluster checked
	// it; several masters need it). A single master without one is left
	// to the pack's default: its node address on port 6443.
	if ep, err := intent.NormalizeEndpoint(p[intent.EndpointParam]); err == nil {
		p[intent.EndpointParam] = ep
	}
	if len(m.RegistryMirrors) > 0 {
		p["registry_mirrors"] = strings.Join(m.RegistryMirrors, ",")
	}
	if x := m.Proxy; x != nil {
		set("http_proxy", strOr(x.HTTP, ""))
		set("https_proxy", strOr(x.HTTPS, ""))
		set("no_proxy", strings.Join(x.NoProxy, ","))
	}
	set("node_addresses", nodeAddressList(m, func(n nodeModel) string { return strOr(n.NodeAddress, "") }))
	set("wireguard_endpoints", nodeAddressList(m, func(n nodeModel) string { return strOr(n.WireGuardEndpoint, "") }))
	return p
}

// nodeAddressList is the name=address entries, sorted by name, of the
// nodes whose address of that kind (of) is set and not their SSH address.
func nodeAddressList(m *clusterModel, of func(nodeModel) string) string {
	var out []string
	for _, n := range append(append([]nodeModel(nil), m.Masters...), m.Workers...) {
		if a := of(n); a != "" && a != strOr(n.Address, "") {
			out = append(out, strOr(n.Name, "")+"="+a)
		}
	}
	sort.Strings(out)
	return strings.Join(out, ",")
}

func clusterConstraints(m *clusterModel, env string) map[string]string {
	c := map[string]string{"environment": env}
	if r := strOr(m.Region, ""); r != "" {
		c["region"] = r
	}
	c["require_ha_control_plane"] = strconv.FormatBool(m.RequireHAControlPlane.ValueBool())
	return c
}

// validateCluster checks what needs no SSH: HA rules, hosts, names,
// networks, mirrors, timeouts and parameters the resource sets with its
// own attributes. With the provider's data (at plan) it also checks the
// version against the pack's range and host ports against the provider's
// default. Every problem carries its attribute path.
func validateCluster(ctx context.Context, m *clusterModel, data *providerData, diags *diag.Diagnostics) {
	if m.RequireHAControlPlane.ValueBool() {
		n := len(m.Masters)
		if n < 3 || n%2 == 0 {
			addAttrError(diags, path.Root("masters"), "HA control plane needs an odd number of at least 3 masters",
				fmt.Sprintf("require_ha_control_plane is true but %d master(s) are listed; etcd needs a quorum: list 3, 5 or 7 masters, or set require_ha_control_plane = false.", n))
		}
	}
	if len(m.Masters) == 0 {
		addAttrError(diags, path.Root("masters"), "No masters", "list at least one master; the first one initializes the control plane.")
	}
	in := clusterInput(m)
	addProblems(diags, intent.CheckHosts(in.Hosts, intent.HostRules{DefaultPort: defaultPort(data, m.SSH), IPv4Only: true, Kind: "node"}))
	addProblems(diags, resourceSSHProblems(m.SSH))
	var pack *protocol.ScenarioPack
	if data != nil && data.Catalog != nil {
		pack, _ = data.Catalog.Get("kubernetes", "")
	}
	addProblems(diags, intent.CheckCluster(in, pack))
	checkTimeouts(ctx, m.Timeouts, diags)
	for i, iv := range m.Interventions {
		if strOr(iv.Job, "") == "" {
			addAttrError(diags, path.Root("interventions").AtListIndex(i).AtName("job"), "Missing job", "name the job that was fixed by hand, e.g. \"join-workers\".")
		}
	}
	for _, k := range protocol.SortedKeys(m.Parameters) {
		if attr, own := clusterOwnParams[k]; own {
			addAttrError(diags, path.Root("parameters").AtMapKey(k), "Parameter has its own attribute",
				fmt.Sprintf("set %s with the resource's own attribute %s instead of parameters.", k, attr))
		}
	}
}

func hostNames(hs []protocol.Host, role string) []string {
	var out []string
	for _, h := range hs {
		if role == "" || h.Role == role {
			out = append(out, h.Name)
		}
	}
	sort.Strings(out)
	return out
}

// checkAccessFiles reports SSH key and known_hosts files that do not exist,
// at plan time, before any connection is tried.
func checkAccessFiles(access []operation.HostAccess, diags *diag.Diagnostics) {
	seen := map[string]bool{}
	for _, a := range access {
		for attr, f := range map[string]string{"private_key_file": a.Access.PrivateKeyFile, "known_hosts_file": a.Access.KnownHostsFile} {
			if f == "" || seen[f] {
				continue
			}
			seen[f] = true
			if _, err := os.Stat(operation.ExpandHome(f)); err != nil {
				if attr == "known_hosts_file" && a.Access.AcceptNew {
					continue
				}
				addAttrError(diags, path.Root("ssh").AtName(attr), "SSH file not found",
					fmt.Sprintf("%s %s for host %s: %v; set ssh.%s here or in the provider's ssh block to a file that exists.", attr, paramtype.Quote(f), a.Host.Name, err, attr))
			}
		}
	}
}
