package planner

import (
	"fmt"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// Fixture packs built in Go, shaped like the builtin packs.

func cr(key string, node bool) protocol.CapabilityRequirement {
	r := protocol.CapabilityRequirement{Key: key}
	if node {
		r.Scope = protocol.ScopeNode
	}
	return r
}

func capOf(key string, node bool) protocol.Capability {
	c := protocol.Capability{Key: key}
	if node {
		c.Scope = protocol.ScopeNode
	}
	return c
}

type jobSpec struct {
	id, expand string
	req        []protocol.CapabilityRequirement
	arts       []string
	prov       []protocol.Capability
	out        []protocol.ArtifactSpec
	params     map[string]protocol.ParamSpec
	key        string
	after      []string
}

func mkJob(s jobSpec) *protocol.Job {
	j := &protocol.Job{ID: s.id, Title: s.id, Scope: protocol.JobScope{Expand: protocol.Expansion(s.expand)}, After: s.after}
	j.Inputs.Requires.Capabilities = s.req
	for _, a := range s.arts {
		j.Inputs.Requires.Artifacts = append(j.Inputs.Requires.Artifacts, protocol.ArtifactRef{ID: a})
	}
	j.Inputs.Parameters = s.params
	j.Outputs.Provides.Capabilities = s.prov
	j.Outputs.Artifacts = s.out
	j.Controls.Idempotency.Key = s.key
	if s.key == "" {
		j.Controls.Idempotency.Key = s.id + ":{node_id}"
	}
	return j
}

func secret(id string, ttl time.Duration) protocol.ArtifactSpec {
	return protocol.ArtifactSpec{ID: id, Sensitivity: protocol.SensitivitySecret, TTL: protocol.Duration(ttl)}
}

func library(specs ...jobSpec) map[string]*protocol.Job {
	out := map[string]*protocol.Job{}
	for _, s := range specs {
		out[s.id] = mkJob(s)
	}
	return out
}

func fixtureKubernetes() *protocol.ScenarioPack {
	nodeBase := []protocol.CapabilityRequirement{cr("linux.host", true), cr("ssh.access", true)}
	runtimeReq := []protocol.CapabilityRequirement{cr("container.runtime.containerd", true)}
	p := &protocol.ScenarioPack{
		ID: "kubernetes", Version: "1.0.0", Title: "Kubernetes", ResourceTypes: []string{"kubernetes.cluster"},
		Actions: []string{"create", "add_node"},
		Parameters: map[string]protocol.ParamSpec{
			"name":               {Type: "string", Required: true},
			"cni":                {Type: "string", Default: "calico", Enum: []string{"calico", "cilium"}},
			"container_runtime":  {Type: "string", Default: "containerd", Enum: []string{"containerd"}},
			"containerd_version": {Type: "string", Default: "1.7.22"},
			"storage":            {Type: "string", Default: "none", Enum: []string{"none", "longhorn"}},
			"kubernetes_version": {Type: "string", Default: "1.31.2"},
		},
		Jobs: library(
			jobSpec{id: "validate-inputs", expand: "once", prov: []protocol.Capability{capOf("intent.validated", false)}, key: "validate-inputs:{cluster}"},
			jobSpec{id: "validate-nodes", expand: "each_node", req: []protocol.CapabilityRequirement{cr("intent.validated", false)},
				prov: []protocol.Capability{capOf("linux.host", true)}, out: []protocol.ArtifactSpec{{ID: "node_inventory", Sensitivity: protocol.SensitivityPublic, Scope: protocol.ScopeNode}}},
			jobSpec{id: "validate-credentials", expand: "each_node", req: []protocol.CapabilityRequirement{cr("intent.validated", false)},
				prov: []protocol.Capability{capOf("ssh.access", true)}},
			jobSpec{id: "prepare-network", expand: "each_node", req: nodeBase, prov: []protocol.Capability{capOf("host.network.ready", true)}},
			jobSpec{id: "install-container-runtime", expand: "each_node", req: nodeBase,
				prov:   []protocol.Capability{capOf("container.runtime.containerd", true)},
				params: map[string]protocol.ParamSpec{"containerd_version": {}}, key: "install-containerd:{node_id}:{containerd_version}"},
			jobSpec{id: "init-control-plane", expand: "first_master",
				req:    []protocol.CapabilityRequirement{cr("container.runtime.containerd", true), cr("host.network.ready", true)},
				prov:   []protocol.Capability{capOf("kubernetes.api", false)},
				out:    []protocol.ArtifactSpec{secret("kubeconfig.admin", 0), secret("kubeadm.join_token", 24*time.Hour)},
				params: map[string]protocol.ParamSpec{"kubernetes_version": {}}, key: "kubeadm-init:{cluster}:{kubernetes_version}"},
			jobSpec{id: "install-cni", expand: "once", req: []protocol.CapabilityRequirement{cr("kubernetes.api", false)}, arts: []string{"kubeconfig.admin"},
				prov: []protocol.Capability{capOf("kubernetes.network.ready", false)}, params: map[string]protocol.ParamSpec{"cni": {}}, key: "install-cni:{cluster}:{cni}"},
			jobSpec{id: "join-masters", expand: "other_masters",
				req:  []protocol.CapabilityRequirement{cr("kubernetes.api", false), cr("container.runtime.containerd", true), cr("host.network.ready", true)},
				arts: []string{"kubeadm.join_token"}, prov: []protocol.Capability{capOf("control_plane.nodes.joined", true)}},
			jobSpec{id: "join-workers", expand: "each_worker",
				req:  []protocol.CapabilityRequirement{cr("kubernetes.api", false), cr("kubernetes.network.ready", false), cr("container.runtime.containerd", true), cr("host.network.ready", true)},
				arts: []string{"kubeadm.join_token"}, prov: []protocol.Capability{capOf("worker.nodes.joined", true)}},
			jobSpec{id: "install-addons", expand: "once", req: []protocol.CapabilityRequirement{cr("kubernetes.network.ready", false)},
				prov: []protocol.Capability{capOf("kubernetes.addons", false)}, params: map[string]protocol.ParamSpec{"storage": {}}, after: []string{"join-workers"}},
			jobSpec{id: "verify-cluster", expand: "once",
				req:  []protocol.CapabilityRequirement{cr("kubernetes.api", false), cr("worker.nodes.joined", false), cr("control_plane.nodes.joined", false)},
				prov: []protocol.Capability{capOf("kubernetes.cluster.ready", false)}, after: []string{"install-addons"}},
			// library-only jobs
			jobSpec{id: "generate-join-token", expand: "first_master", req: []protocol.CapabilityRequirement{cr("kubernetes.api", false)},
				out: []protocol.ArtifactSpec{secret("kubeadm.join_token", 24*time.Hour)}},
			jobSpec{id: "configure-registry-mirror", expand: "each_node", req: runtimeReq},
			jobSpec{id: "pre-pull-images", expand: "each_node", req: runtimeReq},
			jobSpec{id: "configure-containerd-registry-mirror", expand: "each_node", req: runtimeReq},
			jobSpec{id: "restart-containerd", expand: "each_node", req: runtimeReq},
			jobSpec{id: "pre-pull-kubernetes-images", expand: "each_node", req: runtimeReq},
			// add_node
			jobSpec{id: "validate-node", expand: "target_nodes", prov: []protocol.Capability{capOf("linux.host", true), capOf("ssh.access", true)}},
			jobSpec{id: "prepare-node", expand: "target_nodes", req: nodeBase,
				prov: []protocol.Capability{capOf("host.network.ready", true), capOf("container.runtime.containerd", true)}},
			jobSpec{id: "join-node", expand: "target_nodes",
				req:  []protocol.CapabilityRequirement{cr("kubernetes.api", false), cr("container.runtime.containerd", true), cr("host.network.ready", true)},
				arts: []string{"kubeadm.join_token"}, prov: []protocol.Capability{capOf("worker.nodes.joined", true)}},
			jobSpec{id: "verify-node", expand: "target_nodes", req: []protocol.CapabilityRequirement{cr("worker.nodes.joined", true)}},
		),
	}
	p.Templates = map[string]*protocol.PlanTemplate{
		"create": {ID: "kubernetes.create", Action: "create", Title: "Create Kubernetes cluster", Version: p.Version, Stages: []protocol.Stage{
			{ID: "validate", Title: "Validate inputs, nodes and credentials", Jobs: []string{"validate-inputs", "validate-nodes", "validate-credentials"}},
			{ID: "prepare-network", Title: "Prepare network", Jobs: []string{"prepare-network"}},
			{ID: "install-runtime", Title: "Install container runtime", Jobs: []string{"install-container-runtime"}},
			{ID: "init-control-plane", Title: "Init control plane", Jobs: []string{"init-control-plane"}},
			{ID: "install-cni", Title: "Install CNI", Jobs: []string{"install-cni"}},
			{ID: "join-masters", Title: "Join masters", Jobs: []string{"join-masters"}},
			{ID: "join-workers", Title: "Join workers", Jobs: []string{"join-workers"}},
			{ID: "install-addons", Title: "Install addons", Jobs: []string{"install-addons"}},
			{ID: "verify", Title: "Verify cluster", Jobs: []string{"verify-cluster"}},
		}},
		"add_node": {ID: "kubernetes.add_node", Action: "add_node", Title: "Add node", Version: p.Version, Stages: []protocol.Stage{
			{ID: "validate", Title: "Validate node", Jobs: []string{"validate-node"}},
			{ID: "prepare", Title: "Prepare Kubernetes prerequisites", Jobs: []string{"prepare-node"}},
			{ID: "join", Title: "Join worker", Jobs: []string{"join-node"}},
			{ID: "verify", Title: "Verify node Ready", Jobs: []string{"verify-node"}},
		}},
	}
	return p
}

func fixtureTempo() *protocol.ScenarioPack {
	p := &protocol.ScenarioPack{
		ID: "tempo", Version: "1.0.0", Title: "Tempo", Actions: []string{"install"},
		Requires:   []protocol.PackRequirement{{Capability: "kubernetes.cluster"}, {Capability: "object_storage.s3"}, {Capability: "secret.store"}},
		Provides:   []protocol.PackProvision{{Capability: "observability.tracing"}},
		Parameters: map[string]protocol.ParamSpec{"retention": {Default: "72h"}},
		Jobs: library(
			jobSpec{id: "create-bucket", expand: "once", req: []protocol.CapabilityRequirement{cr("object_storage.s3", false)},
				out: []protocol.ArtifactSpec{secret("tempo.bucket_credentials", 0)}},
			jobSpec{id: "deploy-tempo", expand: "once", req: []protocol.CapabilityRequirement{cr("kubernetes.cluster", false), cr("secret.store", false)},
				arts: []string{"tempo.bucket_credentials"}, prov: []protocol.Capability{capOf("observability.tracing", false)},
				params: map[string]protocol.ParamSpec{"retention": {}}, key: "deploy-tempo:{cluster}:{retention}"},
			jobSpec{id: "verify-tempo", expand: "once", req: []protocol.CapabilityRequirement{cr("observability.tracing", false)}},
		),
	}
	p.Templates = map[string]*protocol.PlanTemplate{"install": {ID: "tempo.install", Action: "install", Title: "Install Tempo", Version: p.Version, Stages: []protocol.Stage{
		{ID: "storage", Title: "Storage: bucket and credentials", Jobs: []string{"create-bucket"}},
		{ID: "deploy", Title: "Tempo deployment", Jobs: []string{"deploy-tempo"}},
		{ID: "verify", Title: "Verify ingestion and query", Jobs: []string{"verify-tempo"}},
	}}}
	return p
}

func fixtureMinio() *protocol.ScenarioPack {
	p := &protocol.ScenarioPack{
		ID: "minio", Version: "1.0.0", Title: "MinIO", Actions: []string{"install"},
		Provides:   []protocol.PackProvision{{Capability: "object_storage.s3"}},
		Parameters: map[string]protocol.ParamSpec{"mode": {Default: "standalone", Enum: []string{"standalone", "distributed"}}},
		Jobs: library(
			jobSpec{id: "deploy-minio", expand: "once", req: []protocol.CapabilityRequirement{cr("kubernetes.cluster", false)},
				params: map[string]protocol.ParamSpec{"mode": {}}, key: "deploy-minio:{cluster}:{mode}"},
			jobSpec{id: "verify-minio", expand: "once", prov: []protocol.Capability{capOf("object_storage.s3", false)}, after: []string{"deploy-minio"}},
		),
	}
	p.Templates = map[string]*protocol.PlanTemplate{"install": {ID: "minio.install", Action: "install", Title: "Install MinIO", Version: p.Version, Stages: []protocol.Stage{
		{ID: "deploy", Title: "Deploy MinIO", Jobs: []string{"deploy-minio"}},
		{ID: "verify", Title: "Verify MinIO", Jobs: []string{"verify-minio"}},
	}}}
	return p
}

// fakePacks is a PackSource over fixture packs.
type fakePacks map[string]*protocol.ScenarioPack

func (f fakePacks) Get(id, constraint string) (*protocol.ScenarioPack, error) {
	if p, ok := f[id]; ok {
		return p, nil
	}
	return nil, fmt.Errorf("no pack %q", id)
}

// clusterIntent has masters master-1.. and workers worker-1..
func clusterIntent(masters, workers int) protocol.Intent {
	in := protocol.Intent{ID: "prod-k8s", Action: "create", Pack: "kubernetes", TargetResourceType: "kubernetes.cluster",
		Parameters:  map[string]string{"name": "prod-k8s", "cni": "calico", "container_runtime": "containerd", "storage": "longhorn"},
		Constraints: map[string]string{"environment": "prod", "region": "eu-central", "require_ha_control_plane": "true"}}
	for i := 1; i <= masters; i++ {
		in.Hosts = append(in.Hosts, protocol.Host{Name: fmt.Sprintf("master-%d", i), Address: fmt.Sprintf("10.0.0.%d", i), Role: protocol.RoleMaster})
	}
	for i := 1; i <= workers; i++ {
		in.Hosts = append(in.Hosts, protocol.Host{Name: fmt.Sprintf("worker-%d", i), Address: fmt.Sprintf("10.0.1.%d", i), Role: protocol.RoleWorker})
	}
	return in
}
