package e2e

import (
	"slices"
	"strings"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/capability"
	"github.com/intentops/terraform-provider-cp/internal/engine"
	"github.com/intentops/terraform-provider-cp/internal/planner"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// stagePolicy is seed 001 §6's object storage policy: stage may use a
// shared or a dedicated MinIO and prefers a new dedicated one; prod
// needs encryption and approval.
func stagePolicy() capability.Policy {
	return capability.Policy{"object_storage.s3": {
		"stage": {AllowedProviders: []string{"shared_minio", "dedicated_minio"}, DefaultProvider: "dedicated_minio"},
		"prod": {AllowedProviders: []string{"aws_s3", "dedicated_minio"}, RequireEncryption: true, RequireApproval: true,
			ApprovalRoles: []string{"sre", "platform_admin"}},
		"dev": {AllowedProviders: []string{"aws_s3"}},
	}}
}

// clusterCandidates are what a cp_kubernetes_cluster handle exports.
func clusterCandidates() []capability.Candidate {
	return []capability.Candidate{
		{Name: clusterName, Provider: "cp_kubernetes_cluster", Source: capability.SourceResource,
			Capability: protocol.Capability{Key: "kubernetes.cluster", Attributes: map[string]string{"name": clusterName, "environment": "prod", "region": "eu-central"}}},
		{Name: clusterName + "-secrets", Provider: "kubernetes_secrets", Source: capability.SourceResource,
			Capability: protocol.Capability{Key: "secret.store", Attributes: map[string]string{"cluster": clusterName}}},
	}
}

// scenarioRequest plans a workload pack's install on the cluster, as
// cp_scenario/cp_tempo do with a cluster handle.
func scenarioRequest(pack, name, env string, hosts []protocol.Host, params map[string]string, cands []capability.Candidate, arts []protocol.Artifact) planner.Request {
	return planner.Request{
		PlanID: name + ".install", PackID: pack, Environment: env, Policy: stagePolicy(),
		Candidates: append(clusterCandidates(), cands...),
		State:      planner.State{Artifacts: arts},
		Intent: protocol.Intent{ID: name, Action: "install", TargetResource: name, Parameters: params, Hosts: hosts,
			Constraints: map[string]string{"environment": env, "region": "eu-central"}},
	}
}

// clusterArtifacts keeps what a cluster handle hands to workloads: the
// admin kubeconfig by reference.
func clusterArtifacts(arts []protocol.Artifact) []protocol.Artifact {
	var out []protocol.Artifact
	for _, a := range arts {
		if a.ID == "kubeconfig.admin" {
			out = append(out, a)
		}
	}
	return out
}

// workloads installs Tempo (with a MinIO sub-operation, then with a bound
// S3), MinIO and PostgreSQL on the running cluster.
func (e *env) workloads(step func(string, func(*testing.T)), hosts []protocol.Host, clusterArts []protocol.Artifact) {
	kc := clusterArtifacts(clusterArts)
	var s3 []protocol.Artifact

	step("tempo-with-minio-sub-operation", func(t *testing.T) {
		c := e.compose(scenarioRequest("tempo", "tempo-stage", "stage", hosts, nil, nil, kc))
		if len(c.Plan.SubOps) != 1 || c.Plan.SubOps[0].ID != "minio" {
			t.Fatalf("sub-operations = %+v, want minio", c.Plan.SubOps)
		}
		res := e.runCompleted(c.Plan, engine.RunInput{Artifacts: inputArtifacts(kc)})
		// Instances are listed in plan order; when they ran is in their times.
		byJob := map[string]engine.InstanceResult{}
		for _, in := range res.Instances {
			byJob[in.Job] = in
		}
		verified, okV := byJob["verify-minio"]
		bucket, okB := byJob["create-bucket-and-credentials"]
		if !okV || !okB {
			t.Fatalf("instances verify-minio (%v) and create-bucket-and-credentials (%v) want both in the run", okV, okB)
		}
		if bucket.Started.Before(verified.Started.Add(verified.Duration)) {
			t.Errorf("tempo's bucket job started at %s, before MinIO was verified at %s", bucket.Started, verified.Started.Add(verified.Duration))
		}
		st := e.simState()
		for _, rel := range []string{"minio/minio", "tempo/tempo"} {
			if r := st.Releases[rel]; r == nil || r.Status != "deployed" {
				t.Errorf("release %s = %+v, want deployed", rel, r)
			}
		}
		ep := artifact(t, res.Artifacts, "object_storage.s3.endpoint")
		if strings.TrimSpace(ep.Value) != "http://minio.minio.svc:9000" {
			t.Errorf("endpoint = %q", ep.Value)
		}
		cred := artifact(t, res.Artifacts, "object_storage.s3.credentials")
		if cred.Sensitivity != protocol.SensitivitySecret || cred.Value != "" || cred.Ref == "" {
			t.Errorf("credentials = %+v, want a secret reference", cred)
		}
		s3 = []protocol.Artifact{ep, cred}
	})

	step("tempo-with-bound-s3", func(t *testing.T) {
		cand := capability.Candidate{Name: "shared-minio", Provider: "shared_minio", Source: capability.SourceExternal,
			Capability: protocol.Capability{Key: "object_storage.s3", Attributes: map[string]string{"region": "eu-central", "encryption": "true"}}}
		arts := append(slices.Clone(kc), s3...)
		params := map[string]string{"namespace": "tempo-ext", "release_name": "tempo-ext", "bucket": "tempo-ext-traces"}
		c := e.compose(scenarioRequest("tempo", "tempo-ext", "stage", hosts, params, []capability.Candidate{cand}, arts))
		if len(c.Plan.SubOps) != 0 {
			t.Fatalf("bound S3 still plans sub-operations %+v", c.Plan.SubOps)
		}
		res := e.runCompleted(c.Plan, engine.RunInput{Artifacts: inputArtifacts(arts)})
		if r := e.simState().Releases["tempo-ext/tempo-ext"]; r == nil || r.Status != "deployed" {
			t.Errorf("release tempo-ext = %+v", r)
		}
		if id := artifact(t, res.Artifacts, "tempo.verification_trace_id"); len(strings.TrimSpace(id.Value)) != 32 {
			t.Errorf("trace id = %q", id.Value)
		}
	})

	step("minio", func(t *testing.T) {
		params := map[string]string{"namespace": "minio-solo", "release_name": "minio-solo", "bucket": "solo"}
		c := e.compose(scenarioRequest("minio", "minio-solo", "stage", hosts, params, nil, kc))
		res := e.runCompleted(c.Plan, engine.RunInput{Artifacts: inputArtifacts(kc)})
		if ep := artifact(t, res.Artifacts, "object_storage.s3.endpoint"); strings.TrimSpace(ep.Value) != "http://minio-solo.minio-solo.svc:9000" {
			t.Errorf("endpoint = %q", ep.Value)
		}
		found := false
		for _, pc := range res.Capabilities {
			found = found || (pc.Key == "object_storage.s3" && pc.Attributes["encryption"] == "true")
		}
		if !found {
			t.Errorf("no encrypted object_storage.s3 provided: %+v", res.Capabilities)
		}
	})

	step("postgresql", func(t *testing.T) {
		c := e.compose(scenarioRequest("postgresql", "pg-dev", "dev", hosts, nil, nil, kc))
		if len(c.Plan.SubOps) != 0 {
			t.Fatalf("postgresql in dev plans sub-operations %+v", c.Plan.SubOps)
		}
		res := e.runCompleted(c.Plan, engine.RunInput{Artifacts: inputArtifacts(kc)})
		// The official image as a StatefulSet, no Helm release (Bitnami's
		// images moved to a legacy repository in 2025).
		if st := e.simState(); len(findObjects(st, "StatefulSet", "postgresql", "postgresql")) != 1 || st.Releases["postgresql/postgresql"] != nil {
			t.Errorf("want the StatefulSet postgresql/postgresql and no Helm release; releases %v", st.Releases)
		}
		conn := artifact(t, res.Artifacts, "postgresql.connection")
		if !strings.Contains(conn.Value, "host=postgresql.postgresql.svc") {
			t.Errorf("connection = %q", conn.Value)
		}
		found := false
		for _, ev := range res.Evidence {
			if ev.ID == "backup_schedule_matches" {
				found = true
				if ev.Observed != "disabled" {
					t.Errorf("backups without S3: %q, want disabled", ev.Observed)
				}
			}
		}
		if !found {
			t.Error("no backup_schedule_matches evidence recorded")
		}
	})
}
