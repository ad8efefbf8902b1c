package provider

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/intentops/terraform-provider-cp/internal/operation"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// clusterHosts returns the cluster's hosts (masters first) with how to
// reach each, validating names and addresses.
func clusterHosts(m *clusterModel, data *providerData, diags *diag.Diagnostics) ([]protocol.Host, []operation.HostAccess) {
	base := resourceAccess(data, m.SSH)
	var hosts []protocol.Host
	var access []operation.HostAccess
	seen := map[string]string{}
	add := func(list []nodeModel, role, attr string) {
		for i, n := range list {
			p := path.Root(attr).AtListIndex(i)
			h := protocol.Host{Name: strOr(n.Name, ""), Address: strOr(n.Address, ""), Port: intOr(n.Port, 0), Role: role, Labels: n.Labels, Taints: n.Taints}
			if h.Name == "" {
				addAttrError(diags, p.AtName("name"), "Missing node name", "every node needs a unique name, e.g. \""+role+"-1\".")
			} else if other, dup := seen[h.Name]; dup {
				addAttrError(diags, p.AtName("name"), "Duplicate node name",
					fmt.Sprintf("%q is also used by %s; node names must be unique across masters and workers.", h.Name, other))
			}
			seen[h.Name] = p.String()
			if h.Address == "" {
				addAttrError(diags, p.AtName("address"), "Missing node address", fmt.Sprintf("node %q needs an address to connect to.", h.Name))
			}
			if h.Port < 0 || h.Port > 65535 {
				addAttrError(diags, p.AtName("port"), "Invalid port", fmt.Sprintf("%d is not between 1 and 65535.", h.Port))
			}
			acc := base
			if n.SSH != nil {
				acc = acc.Merge(operation.Access{User: strOr(n.SSH.User, ""), PrivateKeyFile: strOr(n.SSH.PrivateKeyFile, "")})
			}
			hosts = append(hosts, h)
			access = append(access, operation.HostAccess{Host: h, Access: acc})
		}
	}
	add(m.Masters, protocol.RoleMaster, "masters")
	add(m.Workers, protocol.RoleWorker, "workers")
	return hosts, access
}

// resourceAccess merges the resource's ssh settings over the provider's.
func resourceAccess(data *providerData, s *resourceSSHModel) operation.Access {
	a := operation.Access{
		User: data.SSH.User, Port: data.SSH.Port, PrivateKeyFile: data.SSH.PrivateKeyFile,
		KnownHostsFile: data.SSH.KnownHostsFile, AcceptNew: data.SSH.HostKeyChecking == "accept-new", DialTimeout: data.SSH.Timeout,
	}
	if env := data.SSH.BecomePasswordEnv; env != "" {
		a.BecomePassword = os.Getenv(env)
	}
	if b := data.SSH.Bastion; b != nil {
		a.Bastion = &operation.Bastion{Address: b.Address, Port: b.Port, User: b.User, PrivateKeyFile: b.PrivateKeyFile}
	}
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
	// Several masters need a shared endpoint; without a load balancer
	// given, the first master serves it.
	if p["control_plane_endpoint"] == "" && len(m.Masters) > 1 {
		p["control_plane_endpoint"] = m.Masters[0].Address.ValueString() + ":6443"
	}
	if len(m.RegistryMirrors) > 0 {
		p["registry_mirrors"] = strings.Join(m.RegistryMirrors, ",")
	}
	return p
}

func clusterConstraints(m *clusterModel, env string) map[string]string {
	c := map[string]string{"environment": env}
	if r := strOr(m.Region, ""); r != "" {
		c["region"] = r
	}
	c["require_ha_control_plane"] = strconv.FormatBool(m.RequireHAControlPlane.ValueBool())
	return c
}

// validateCluster checks what needs no SSH: HA rules, names, parameters
// known to the pack. Every problem carries its attribute path.
func validateCluster(m *clusterModel, diags *diag.Diagnostics) {
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
	if v := strOr(m.KubernetesVersion, ""); v != "" && !versionRe.MatchString(v) {
		addAttrError(diags, path.Root("kubernetes_version"), "Invalid Kubernetes version",
			fmt.Sprintf("%q is not a version such as \"1.31.2\" (major.minor.patch, no leading v).", v))
	}
	for _, a := range []string{"pod_cidr", "service_cidr"} {
		v := m.PodCIDR
		if a == "service_cidr" {
			v = m.ServiceCIDR
		}
		if c := strOr(v, ""); c != "" {
			if _, _, err := net.ParseCIDR(c); err != nil {
				addAttrError(diags, path.Root(a), "Invalid CIDR", fmt.Sprintf("%q is not a CIDR such as \"10.244.0.0/16\".", c))
			}
		}
	}
	if pc, sc := strOr(m.PodCIDR, ""), strOr(m.ServiceCIDR, ""); pc != "" && sc != "" && cidrsOverlap(pc, sc) {
		addAttrError(diags, path.Root("service_cidr"), "Overlapping CIDRs",
			fmt.Sprintf("service_cidr %s overlaps pod_cidr %s; pick ranges that do not overlap.", sc, pc))
	}
	for i, u := range m.RegistryMirrors {
		if pu, err := url.Parse(u); err != nil || (pu.Scheme != "http" && pu.Scheme != "https") || pu.Host == "" {
			addAttrError(diags, path.Root("registry_mirrors").AtListIndex(i), "Invalid registry mirror",
				fmt.Sprintf("%q is not an http(s) URL such as \"https://mirror.internal:5000\".", u))
		}
	}
	for i, iv := range m.Interventions {
		if strOr(iv.Job, "") == "" {
			addAttrError(diags, path.Root("interventions").AtListIndex(i).AtName("job"), "Missing job", "name the job that was fixed by hand, e.g. \"join-workers\".")
		}
	}
	for _, k := range protocol.SortedKeys(m.Parameters) {
		switch k {
		case "cluster_name", "kubernetes_version", "cni", "container_runtime", "storage", "pod_cidr", "service_cidr", "registry_mirrors":
			addAttrError(diags, path.Root("parameters").AtMapKey(k), "Parameter has its own attribute",
				fmt.Sprintf("set %s with the resource's own attribute instead of parameters.", k))
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

var versionRe = regexp.MustCompile(`^\d+\.\d+\.\d+$`)

func cidrsOverlap(a, b string) bool {
	_, na, err1 := net.ParseCIDR(a)
	_, nb, err2 := net.ParseCIDR(b)
	return err1 == nil && err2 == nil && (na.Contains(nb.IP) || nb.Contains(na.IP))
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
					fmt.Sprintf("%s %q for host %s: %v; set ssh.%s here or in the provider's ssh block to a file that exists.", attr, f, a.Host.Name, err, attr))
			}
		}
	}
}
