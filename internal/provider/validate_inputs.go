package provider

import (
	"context"
	"fmt"
	"os"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/intentops/terraform-provider-cp/internal/intent"
	"github.com/intentops/terraform-provider-cp/internal/paramtype"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// Conversions between the resources' models and the plain checks of
// package intent: models to inputs, intent paths to framework paths,
// problems to attribute errors.

// toPath converts an intent path to the framework's.
func toPath(p intent.Path) path.Path {
	var out path.Path
	for i, s := range p {
		switch {
		case i == 0:
			out = path.Root(s.Name)
		case s.Kind == intent.StepAttr:
			out = out.AtName(s.Name)
		case s.Kind == intent.StepIndex:
			out = out.AtListIndex(s.Index)
		case s.Kind == intent.StepKey:
			out = out.AtMapKey(s.Name)
		}
	}
	return out
}

// addProblems reports each problem on its attribute.
func addProblems(diags *diag.Diagnostics, ps intent.Problems) {
	for _, p := range ps {
		if p.Warning {
			diags.AddAttributeWarning(toPath(p.Path), p.Summary, p.Path.String()+": "+p.Detail)
			continue
		}
		addAttrError(diags, toPath(p.Path), p.Summary, p.Detail)
	}
}

func portOf(v types.Int64) (int, bool) {
	if v.IsNull() || v.IsUnknown() {
		return 0, false
	}
	return int(v.ValueInt64()), true
}

// nodeInputs are a cluster's masters or workers (attr) as host inputs.
func nodeInputs(list []nodeModel, attr string) []intent.HostInput {
	var out []intent.HostInput
	for i, n := range list {
		port, set := portOf(n.Port)
		role := protocol.RoleWorker
		if attr == "masters" {
			role = protocol.RoleMaster
		}
		out = append(out, intent.HostInput{Path: intent.Root(attr).Index(i), Name: strOr(n.Name, ""), Address: strOr(n.Address, ""),
			Port: port, PortSet: set, Role: role, Labels: n.Labels, Taints: n.Taints,
			NodeAddress: strOr(n.NodeAddress, ""), WireGuardEndpoint: strOr(n.WireGuardEndpoint, "")})
	}
	return out
}

// hostResInput is one host of cp_scenario or cp_node at base.
func hostResInput(h *hostResModel, base intent.Path) intent.HostInput {
	port, set := portOf(h.Port)
	return intent.HostInput{Path: base, Name: strOr(h.Name, ""), Address: strOr(h.Address, ""), Port: port, PortSet: set,
		Role: strOr(h.Role, ""), RoleSet: !h.Role.IsNull() && !h.Role.IsUnknown(), Labels: h.Labels, Taints: h.Taints}
}

// planHostInputs are cp_plan's hosts.
func planHostInputs(list []hostModel) []intent.HostInput {
	var out []intent.HostInput
	for i, h := range list {
		port, set := portOf(h.Port)
		out = append(out, intent.HostInput{Path: intent.Root("hosts").Index(i), Name: strOr(h.Name, ""), Address: strOr(h.Address, ""),
			Port: port, PortSet: set, Role: strOr(h.Role, ""), RoleSet: !h.Role.IsNull() && !h.Role.IsUnknown(), Labels: h.Labels, Taints: h.Taints})
	}
	return out
}

// defaultPort is the SSH port of a host that sets none.
func defaultPort(data *providerData, s *resourceSSHModel) int {
	if s != nil {
		if p, ok := portOf(s.Port); ok {
			return p
		}
	}
	if data != nil {
		return data.SSH.Port
	}
	return 22
}

// resourceSSHProblems checks a resource's ssh block.
func resourceSSHProblems(s *resourceSSHModel) intent.Problems {
	if s == nil {
		return nil
	}
	if p, ok := portOf(s.Port); ok {
		return intent.CheckPort(intent.Root("ssh").Attr("port"), p, "the resource's SSH port")
	}
	return nil
}

// checkTimeouts refuses timeouts that are zero or negative (the
// framework's validator only checks that they parse).
func checkTimeouts(ctx context.Context, tv timeouts.Value, diags *diag.Diagnostics) {
	if tv.IsNull() || tv.IsUnknown() {
		return
	}
	for name, v := range tv.Attributes() {
		s, ok := v.(types.String)
		if !ok || s.IsNull() || s.IsUnknown() {
			continue
		}
		if err := paramtype.Check(protocol.ParamSpec{Type: paramtype.Duration}, s.ValueString()); err != nil {
			addAttrError(diags, path.Root("timeouts").AtName(name), "Invalid timeout",
				fmt.Sprintf("%s is not a positive duration; write one such as \"30m\" or \"1h30m\".", paramtype.Quote(s.ValueString())))
		}
	}
}

// clusterInput is a cluster model's settings for intent.CheckCluster.
func clusterInput(m *clusterModel) intent.ClusterInput {
	return intent.ClusterInput{
		Name: strOr(m.Name, ""), KubernetesVersion: strOr(m.KubernetesVersion, ""),
		PodCIDR: strOr(m.PodCIDR, ""), ServiceCIDR: strOr(m.ServiceCIDR, ""),
		RegistryMirrors: m.RegistryMirrors, Parameters: m.Parameters, Proxy: proxyInput(m.Proxy),
		Hosts: append(nodeInputs(m.Masters, "masters"), nodeInputs(m.Workers, "workers")...),
	}
}

// proxyInput is a cluster's proxy block for intent.CheckProxy.
func proxyInput(p *proxyModel) *intent.ProxyInput {
	if p == nil {
		return nil
	}
	return &intent.ProxyInput{HTTP: strOr(p.HTTP, ""), HTTPS: strOr(p.HTTPS, ""), NoProxy: p.NoProxy}
}

// clusterOwnParams are the kubernetes pack parameters cp_kubernetes_cluster
// sets with attributes of its own.
var clusterOwnParams = map[string]string{
	"cluster_name": "name", "kubernetes_version": "kubernetes_version", "cni": "cni", "container_runtime": "container_runtime",
	"storage": "storage", "pod_cidr": "pod_cidr", "service_cidr": "service_cidr", "registry_mirrors": "registry_mirrors",
	"http_proxy": "proxy", "https_proxy": "proxy", "no_proxy": "proxy", "node_addresses": "masters", "wireguard_endpoints": "masters",
}

// patchParamPaths lists where plan patches set job parameters.
func patchParamPaths(patches []planPatchModel) []intent.PatchParams {
	var out []intent.PatchParams
	for i, p := range patches {
		for j, c := range p.Changes {
			if len(c.Parameters) > 0 {
				out = append(out, intent.PatchParams{Path: intent.Root("plan_patches").Index(i).Attr("changes").Index(j).Attr("parameters"), Jobs: c.Jobs})
			}
		}
	}
	return out
}

// clusterParamPaths says where each kubernetes parameter of a cluster
// intent was written.
func clusterParamPaths(m *clusterModel) intent.ParamPaths {
	own := map[string]intent.Path{}
	for k, attr := range clusterOwnParams {
		own[k] = intent.Root(attr)
	}
	if _, set := m.Parameters["control_plane_endpoint"]; !set && len(m.Masters) > 0 {
		own["control_plane_endpoint"] = intent.Root("masters").Index(0).Attr("address")
	}
	return intent.ParamPaths{Own: own, Base: intent.Root("parameters"), Patches: patchParamPaths(m.PlanPatches)}
}

// checkProviderEnv refuses become_password_env naming a variable that is
// unset or empty: sudo would be given an empty password.
func checkProviderEnv(s SSHDefaults, diags *diag.Diagnostics) {
	addProblems(diags, intent.CheckEnvVar(intent.Root("ssh").Attr("become_password_env"), s.BecomePasswordEnv, "the sudo password", os.LookupEnv))
}

// scenarioPaths are cp_scenario's: parameters, patches, and requirements
// offered by the cluster handle or the candidates.
func scenarioPaths(m *scenarioModel) planPaths {
	handle := strOr(m.ClusterHandle, "") != ""
	return planPaths{
		Params: intent.ParamPaths{Base: intent.Root("parameters"), Patches: patchParamPaths(m.PlanPatches)},
		Requirement: func(c string) path.Path {
			if handle && (c == "kubernetes.cluster" || c == "secret.store") {
				return path.Root("cluster_handle")
			}
			return path.Root("candidates")
		},
	}
}

// validateScenario checks cp_scenario's hosts, ssh and timeouts; with the
// provider's data (at plan) also the pack, version, action and
// destroy_action against the catalog.
func validateScenario(ctx context.Context, m *scenarioModel, data *providerData, diags *diag.Diagnostics) {
	var hosts []intent.HostInput
	for i := range m.Hosts {
		hosts = append(hosts, hostResInput(&m.Hosts[i], intent.Root("hosts").Index(i)))
	}
	addProblems(diags, intent.CheckHosts(hosts, intent.HostRules{Roles: intent.ScenarioRoles, DefaultPort: defaultPort(data, m.SSH)}))
	addProblems(diags, resourceSSHProblems(m.SSH))
	m.checkCredentials(planEnv(data), diags)
	checkTimeouts(ctx, m.Timeouts, diags)
	if data == nil || data.Catalog == nil {
		return
	}
	_, ps := intent.CheckPackRef(data.Catalog, intent.PackRef{
		ID: strOr(m.Pack, ""), Version: strOr(m.Version, ""), Action: strOr(m.Action, "install"), DestroyAction: strOr(m.DestroyAction, ""),
		IDPath: intent.Root("pack"), VersionPath: intent.Root("version"), ActionPath: intent.Root("action"), DestroyActionPath: intent.Root("destroy_action"),
	})
	addProblems(diags, ps)
}

// validateTempo checks cp_tempo's ssh and timeouts; with the provider's
// data also its pack version constraint.
func validateTempo(ctx context.Context, m *tempoModel, data *providerData, diags *diag.Diagnostics) {
	addProblems(diags, resourceSSHProblems(m.SSH))
	m.checkCredentials(planEnv(data), diags)
	checkTimeouts(ctx, m.Timeouts, diags)
	if data == nil || data.Catalog == nil {
		return
	}
	_, ps := intent.CheckPackRef(data.Catalog, intent.PackRef{ID: "tempo", Version: strOr(m.Version, ""), VersionPath: intent.Root("version")})
	addProblems(diags, ps)
}

// tempoPaths are cp_tempo's: object storage offered by object_storage (or
// the candidates), the cluster's capabilities by the cluster handle.
func tempoPaths(m *tempoModel) planPaths {
	return planPaths{
		Params: intent.ParamPaths{Base: intent.Root("parameters"), Patches: patchParamPaths(m.PlanPatches)},
		Requirement: func(c string) path.Path {
			switch {
			case c == "object_storage.s3" && m.ObjectStorage != nil:
				return path.Root("object_storage")
			case c == "kubernetes.cluster" || c == "secret.store":
				return path.Root("cluster_handle")
			}
			return path.Root("candidates")
		},
	}
}

// validateNode checks cp_node's node, ssh and timeouts; with the
// cluster's hosts (at plan) also that the node's address and port are
// not one of theirs.
func validateNode(ctx context.Context, m *nodeResModel, data *providerData, cluster []protocol.Host, diags *diag.Diagnostics) {
	var hosts []intent.HostInput
	for _, h := range cluster {
		hosts = append(hosts, intent.HostInput{Path: intent.Root("cluster_handle"), Name: h.Name, Address: h.Address, Port: h.Port, PortSet: h.Port != 0, Existing: true})
	}
	if m.Node != nil {
		hosts = append(hosts, hostResInput(m.Node, intent.Root("node")))
	}
	addProblems(diags, intent.CheckHosts(hosts, intent.HostRules{Roles: intent.NodeRoles, DefaultPort: defaultPort(data, m.SSH), IPv4Only: true, Kind: "node"}))
	addProblems(diags, resourceSSHProblems(m.SSH))
	checkTimeouts(ctx, m.Timeouts, diags)
}

// nodePaths are cp_node's: the cluster's parameters come from its handle.
func nodePaths(m *nodeResModel) planPaths {
	return planPaths{Params: intent.ParamPaths{
		Own:      map[string]intent.Path{"cluster_name": intent.Root("cluster_handle"), "kubernetes_version": intent.Root("cluster_handle")},
		Fallback: intent.Root("cluster_handle"), Patches: patchParamPaths(m.PlanPatches),
	}}
}
