package provider

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/intentops/terraform-provider-cp/internal/intent"
	"github.com/intentops/terraform-provider-cp/internal/operation"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// clusterProvider is the provider kind of a cluster's exports, unless its
// pack names another (e.g. kubernetes_secrets for secret.store).
const clusterProvider = "cp_kubernetes_cluster"

// scenarioPlanOf converts a cp_scenario model (cp_tempo converts into
// one): hosts come from the model, then from the cluster handle.
func scenarioPlanOf(data *providerData, m *scenarioModel, diags *diag.Diagnostics) intentPlan {
	pack, _ := data.Catalog.Get(m.Pack.ValueString(), strOr(m.Version, ""))
	ip := intentPlan{
		spec: intent.Spec{
			Pack: m.Pack.ValueString(), Version: strOr(m.Version, ""), Name: m.Name.ValueString(),
			Environment: strOr(m.Environment, data.Environment), Params: m.Parameters, Constraints: clone(m.Constraints),
			Candidates: toCandidates(candidateModels(m.Candidates)), Customization: toCustomization(m.Customizations), Patches: toPatches(m.PlanPatches, pack),
		},
		paths:  scenarioPaths(m),
		inputs: runInputs{Approvals: m.Approvals, Interventions: m.Interventions},
	}
	ip.addStorageCredentials(m.Candidates)
	m.IntentConstraints.apply(data, pack, &ip.spec, diags)
	base := resourceAccess(data, m.SSH)
	for _, h := range m.Hosts {
		host := protocol.Host{Name: h.Name.ValueString(), Address: h.Address.ValueString(), Port: intOr(h.Port, 0),
			Role: strOr(h.Role, "node"), Labels: h.Labels, Taints: h.Taints}
		ip.spec.Hosts = append(ip.spec.Hosts, operation.HostAccess{Host: host, Access: hostAccessOf(base, h.SSH)})
	}
	if hs := strOr(m.ClusterHandle, ""); hs != "" {
		ch, err := intent.DecodeClusterHandle(hs)
		if err != nil {
			addHandleError(diags, err)
			return ip
		}
		ip.onCluster(data, ch, base)
	}
	if !m.ClusterHandle.IsUnknown() {
		checkTargets(m.Targets, ip.spec.Hosts, diags)
	}
	return ip
}

// checkTargets refuses, on its element of targets, a target that is not
// one of the intent's hosts, or one listed twice.
func checkTargets(targets []string, hosts []operation.HostAccess, diags *diag.Diagnostics) {
	names := make([]string, 0, len(hosts))
	for _, h := range hosts {
		names = append(names, h.Host.Name)
	}
	for i, t := range targets {
		switch {
		case !slices.Contains(names, t):
			addAttrError(diags, path.Root("targets").AtListIndex(i), "Unknown target",
				fmt.Sprintf("target %q is not a host of the intent (%s); name one of them, or leave targets empty to act on every host", t, strings.Join(names, ", ")))
		case slices.Index(targets, t) < i:
			addAttrError(diags, path.Root("targets").AtListIndex(i), "Duplicate target", fmt.Sprintf("target %q is listed twice; list each host once", t))
		}
	}
}

// onCluster adds the cluster's hosts (when none are given), artifacts and
// exports to the plan; the cluster's region is the intent's unless it
// sets one.
func (ip *intentPlan) onCluster(data *providerData, ch intent.Handle, access operation.Access) {
	ip.handle = &ch
	if len(ip.spec.Hosts) == 0 {
		for _, h := range ch.ProtocolHosts() {
			ip.spec.Hosts = append(ip.spec.Hosts, operation.HostAccess{Host: h, Access: access})
		}
	}
	arts := ch.ProtocolArtifacts()
	ip.spec.State.Artifacts = append(ip.spec.State.Artifacts, arts...)
	ip.inputs.Artifacts = append(ip.inputs.Artifacts, arts...)
	kpack := intent.PackOfKind(data.Catalog, ch.Kind)
	ip.spec.Candidates = append(ip.spec.Candidates, intent.Candidates(kpack, ch.Name, clusterProvider, ch.Exports(kpack))...)
	if ip.spec.Constraints == nil {
		ip.spec.Constraints = map[string]string{}
	}
	if _, ok := ip.spec.Constraints["region"]; !ok && ch.Region != "" {
		ip.spec.Constraints["region"] = ch.Region
	}
}

// hostAccessOf merges a host's own ssh settings over the resource's.
func hostAccessOf(base operation.Access, s *hostSSHModel) operation.Access {
	if s == nil {
		return base
	}
	return base.Merge(operation.Access{User: strOr(s.User, ""), PrivateKeyFile: strOr(s.PrivateKeyFile, "")})
}

func clone(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// scenarioCaps are a scenario's capabilities after a run: the pack's
// provides with what its jobs reported and the public artifacts' values.
func scenarioCaps(m *scenarioModel, env string) func(opResult, []protocol.Artifact) []protocol.Capability {
	return func(last opResult, arts []protocol.Artifact) []protocol.Capability {
		pack := last.Op.Composed.Pack
		values := intent.ExportValues(pack, m.Parameters, map[string]string{"name": m.Name.ValueString(), "environment": env, "region": m.Constraints["region"]})
		return intent.Provided(pack, last.Result.Capabilities, arts, values)
	}
}

// scenarioHandle is the handle of a scenario-like resource: its kind, its
// capabilities and its artifacts by reference.
func scenarioHandle(kind, name string) func([]protocol.Artifact, []protocol.Capability) intent.Handle {
	return func(arts []protocol.Artifact, caps []protocol.Capability) intent.Handle {
		h := intent.NewHandle(kind, name, nil, arts)
		h.Capabilities = caps
		return h
	}
}
