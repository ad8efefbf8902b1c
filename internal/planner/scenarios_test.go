package planner

import (
	"time"

	"github.com/intentops/terraform-provider-cp/internal/capability"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

var testNow = time.Date(2026, 4, 29, 12, 0, 0, 0, time.UTC)

func createInput(k *protocol.ScenarioPack) Input {
	return Input{PlanID: "op-482", Intent: clusterIntent(3, 5), Pack: k, Now: testNow}
}

// addNodeInput adds worker-6 to a cluster of 1 master and 2 workers; the
// state holds kubernetes.api and a join token expiring at tokenExpiry.
func addNodeInput(k *protocol.ScenarioPack, tokenExpiry time.Time) Input {
	in := clusterIntent(1, 2)
	in.Action = "add_node"
	in.TargetResource = "cluster/prod-k8s"
	in.Hosts = append(in.Hosts, protocol.Host{Name: "worker-6", Address: "10.0.1.6", Role: protocol.RoleWorker})
	in.Targets = []string{"worker-6"}
	return Input{PlanID: "op-483", Intent: in, Pack: k, Now: testNow, State: State{
		Capabilities: []protocol.Capability{{Key: "kubernetes.api"}},
		Artifacts: []protocol.Artifact{{ID: "kubeadm.join_token", Sensitivity: protocol.SensitivitySecret,
			Producer: "init-control-plane[master-1]", Host: "master-1", Ref: "master-1:/var/lib/cp/join_token", ExpiresAt: tokenExpiry}},
	}}
}

func s3Policy() capability.Policy {
	return capability.Policy{"object_storage.s3": {
		"stage": {AllowedProviders: []string{"shared_minio", "dedicated_minio"}, DefaultProvider: "dedicated_minio"},
		"prod": {AllowedProviders: []string{"aws_s3", "dedicated_minio"}, RequireEncryption: true, RequireApproval: true,
			ApprovalRoles: []string{"sre", "platform_admin"}},
	}}
}

// tempoInput resolves Tempo's requirements with the capability package and
// plans tempo.install.
func tempoInput(env string, s3 []capability.Candidate) (Input, error) {
	tempo := fixtureTempo()
	workload := map[string]string{"region": "eu-central", "environment": env}
	cands := map[string][]capability.Candidate{
		"kubernetes.cluster": {{Name: "cp_kubernetes_cluster.prod", Provider: "cp_kubernetes", Source: capability.SourceResource,
			Capability: protocol.Capability{Key: "kubernetes.cluster", Attributes: map[string]string{"region": "eu-central"}}}},
		"secret.store":      {{Name: "vault-eu", Provider: "vault", Source: capability.SourceExternal, Capability: protocol.Capability{Key: "secret.store"}}},
		"object_storage.s3": s3,
	}
	creators := []capability.Creator{{Capability: "object_storage.s3", Provider: "dedicated_minio", Pack: "minio", Version: ">=1.0.0", Action: "install"}}
	in := Input{PlanID: "op-500", Pack: tempo, Now: testNow, Packs: fakePacks{"minio": fixtureMinio()},
		Intent: protocol.Intent{ID: "tempo-" + env, Action: "install", Pack: "tempo", TargetResource: "tempo/" + env,
			Constraints: map[string]string{"environment": env, "region": "eu-central"}}}
	for _, r := range tempo.Requires {
		req := r.Requirement()
		if req.Key == "object_storage.s3" {
			req.Constraints = map[string]string{"region": capability.ValueSameAsWorkload}
		}
		d, err := capability.Resolve(capability.Request{Requirement: req, Environment: env, Workload: workload,
			Candidates: cands[r.Capability], Creators: creators, Policy: s3Policy()})
		if err != nil {
			return in, err
		}
		in.Decisions = append(in.Decisions, d)
	}
	return in, nil
}

func awsCandidate() capability.Candidate {
	return capability.Candidate{Name: "aws-s3-eu", Provider: "aws_s3", Source: capability.SourceExternal,
		Capability: protocol.Capability{Key: "object_storage.s3", Attributes: map[string]string{"region": "eu-central", "encryption": "aws:kms"}}}
}

// forkedCustomization is seed 000 §6 adapted to the pack's job ids.
func forkedCustomization() *protocol.Customization {
	return &protocol.Customization{BaseTemplate: "kubernetes.create@1.0.0", Changes: []protocol.CustomizationChange{
		{Inserted: "configure-registry-mirror", After: "install-container-runtime"},
		{Inserted: "pre-pull-images", After: "configure-registry-mirror"},
		{Removed: "install-addons"},
	}}
}

// registryPatch is the PlanPatch of seed 000 §4 / seed 001 §14.
func registryPatch(approvedBy string) protocol.PlanPatch {
	return protocol.PlanPatch{ID: "patch-1", Author: "ai-agent:sre", Reason: "Nodes cannot pull images from registry-1.docker.io.",
		Changes: []protocol.PatchChange{
			{InsertAfter: "install-container-runtime", Jobs: []protocol.PatchJob{
				{ID: "configure-containerd-registry-mirror"}, {ID: "restart-containerd"}, {ID: "pre-pull-kubernetes-images"}}},
			{Retry: &protocol.RetryChange{Job: "init-control-plane"}},
		},
		Approval: protocol.PatchApproval{Required: true, Roles: []string{"sre"}, ApprovedBy: approvedBy}}
}
