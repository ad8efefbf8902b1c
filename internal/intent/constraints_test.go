package intent

import (
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/capability"
	"github.com/intentops/terraform-provider-cp/internal/operation"
	"github.com/intentops/terraform-provider-cp/internal/planner"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

func i64(v int64) *int64 { return &v }
func bptr(v bool) *bool  { return &v }

// Each constraint on cp_tempo's object_storage.s3 changes the MinIO
// sub-operation's job parameters, and only its own: capacity the volume
// size, encryption the encryption switch, region the region, dedicated
// the namespace and release.
func TestRequirementsShapeTheCreatedMinio(t *testing.T) {
	cat := builtinCat(t)
	base := Spec{Pack: "tempo", Name: "traces", Environment: "stage", ResourceType: "observability.tempo",
		Hosts:  []operation.HostAccess{hostAccess("master-1", protocol.RoleMaster, nil)},
		Params: map[string]string{"namespace": "tracing"},
		State:  planner.State{Artifacts: []protocol.Artifact{{ID: "kubeconfig.admin", Sensitivity: protocol.SensitivitySecret, Host: "master-1", Ref: "master-1:/etc/kubernetes/admin.conf"}}},
		Candidates: []capability.Candidate{
			{Name: "cp_kubernetes_cluster.k", Provider: "cp_kubernetes_cluster", Source: capability.SourceResource, Capability: protocol.Capability{Key: "kubernetes.cluster"}},
			{Name: "cp_kubernetes_cluster.k", Provider: "kubernetes_secrets", Source: capability.SourceResource, Capability: protocol.Capability{Key: "secret.store"}},
		}}
	env := Planning{Catalog: cat, Now: time.Unix(0, 0)}
	defaults := map[string]string{"storage_size": "10Gi", "encryption": "true", "region": "us-east-1", "namespace": "minio", "release_name": "minio", "access_mode": "shared"}
	cases := []struct {
		name string
		c    RequirementConstraints
		want map[string]string // the parameters that differ from the defaults
	}{
		{"no constraints", RequirementConstraints{}, nil},
		{"capacity", RequirementConstraints{MinCapacityGB: i64(200)}, map[string]string{"storage_size": "200Gi"}},
		{"encryption off", RequirementConstraints{Encryption: bptr(false)}, map[string]string{"encryption": "false"}},
		{"encryption on", RequirementConstraints{Encryption: bptr(true)}, nil},
		{"region", RequirementConstraints{Region: "eu-central"}, map[string]string{"region": "eu-central"}},
		{"dedicated", RequirementConstraints{AccessMode: AccessDedicated}, map[string]string{"namespace": "minio-traces", "release_name": "minio-traces", "access_mode": "dedicated"}},
		{"shared", RequirementConstraints{AccessMode: AccessShared}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			reqs, ps := CheckRequirements(Root("requirements"), pack(t, "tempo"), map[string]RequirementConstraints{"object_storage.s3": tc.c})
			if len(ps) > 0 {
				t.Fatalf("got: %v want: no problem", ps)
			}
			s := base
			s.Requirements = reqs
			op, err := s.Compose(env, Change{Action: "install"})
			if err != nil {
				t.Fatal(err)
			}
			want := maps.Clone(defaults)
			maps.Copy(want, tc.want)
			seen := 0
			for _, in := range op.Composed.Plan.Instances {
				if in.SubOperation != "minio" || in.IsGate() {
					continue
				}
				seen++
				for k, v := range in.Params {
					if w, ok := want[k]; ok && v != w {
						t.Errorf("%s: %s got: %q want: %q", in.ID, k, v, w)
					}
				}
			}
			if seen == 0 {
				t.Fatalf("no minio sub-operation job in the plan")
			}
		})
	}
}

func TestCheckRequirementsRefuses(t *testing.T) {
	tempo := pack(t, "tempo")
	cases := []struct {
		reqs map[string]RequirementConstraints
		path string
		text string
	}{
		{map[string]RequirementConstraints{"database.postgresql": {}}, `requirements["database.postgresql"]`, "does not require"},
		{map[string]RequirementConstraints{"object_storage.s3": {MinCapacityGB: i64(0)}}, `requirements["object_storage.s3"].min_capacity_gb`, "not between 1"},
		{map[string]RequirementConstraints{"object_storage.s3": {AccessMode: "exclusive"}}, `requirements["object_storage.s3"].access_mode`, "not an access mode"},
		{map[string]RequirementConstraints{"object_storage.s3": {Region: "EU Central"}}, `requirements["object_storage.s3"].region`, "not a region"},
	}
	for _, tc := range cases {
		_, ps := CheckRequirements(Root("requirements"), tempo, tc.reqs)
		if len(ps) != 1 || ps[0].Path.String() != tc.path || !strings.Contains(ps[0].Detail, tc.text) {
			t.Errorf("got: %+v want one problem on %s saying %q", ps, tc.path, tc.text)
		}
	}
	got, _ := CheckRequirements(Root("requirements"), tempo, map[string]RequirementConstraints{"object_storage.s3": {MinCapacityGB: i64(5), Encryption: bptr(true), AccessMode: "dedicated", Region: "same-as-workload"}})
	want := map[string]string{"min_capacity_gb": "5", "encryption": "required", "access_mode": "dedicated", "region": "same-as-workload"}
	if !maps.Equal(got["object_storage.s3"], want) {
		t.Errorf("got: %v want: %v", got, want)
	}
}

func TestCheckPolicyContextAndRules(t *testing.T) {
	if ps := CheckPolicyContext(Root("criticality"), "urgent", Root("compliance"), []string{"pci", "PCI DSS"}); len(ps) != 2 ||
		ps[0].Path.String() != "criticality" || ps[1].Path.String() != "compliance[1]" {
		t.Errorf("got: %+v want criticality and compliance[1] refused", ps)
	}
	rules := []capability.Rule{
		{Name: "a", Effect: capability.EffectDeny},
		{Name: "a", Effect: capability.EffectAllow},
		{Name: "b", Effect: capability.EffectException},
		{Name: "c", Capability: "no.such", Effect: capability.EffectAllow},
	}
	ps := CheckRules(Root("policy_rules"), rules, builtinCat(t))
	var paths []string
	for _, p := range ps {
		paths = append(paths, p.Path.String())
	}
	if got := strings.Join(paths, " "); got != "policy_rules[1].name policy_rules[2].effect policy_rules[3].capability" {
		t.Errorf("got: %s want: the duplicate name, the exception without roles and the unknown capability", got)
	}
}

// As HCL gives them (strings), unknown keys and badly typed values are
// refused on their path.
func TestParseRequirements(t *testing.T) {
	tempo := pack(t, "tempo")
	cases := []struct {
		raw  map[string]string
		path string
		text string
	}{
		{map[string]string{"capacity": "1"}, `requirements["object_storage.s3"]["capacity"]`, "is not a constraint"},
		{map[string]string{"min_capacity_gb": "lots"}, `requirements["object_storage.s3"]["min_capacity_gb"]`, "not a whole number"},
		{map[string]string{"encryption": "yes"}, `requirements["object_storage.s3"]["encryption"]`, "not true or false"},
		{map[string]string{"access_mode": "exclusive"}, `requirements["object_storage.s3"]["access_mode"]`, "not an access mode"},
	}
	for _, tc := range cases {
		_, ps := ParseRequirements(Root("requirements"), tempo, map[string]map[string]string{"object_storage.s3": tc.raw})
		if len(ps) != 1 || ps[0].Path.String() != tc.path || !strings.Contains(ps[0].Detail, tc.text) {
			t.Errorf("%v: got: %+v want one problem on %s saying %q", tc.raw, ps, tc.path, tc.text)
		}
	}
	got, ps := ParseRequirements(Root("requirements"), tempo, map[string]map[string]string{"object_storage.s3": {"min_capacity_gb": "200", "encryption": "false"}})
	if len(ps) > 0 || !maps.Equal(got["object_storage.s3"], map[string]string{"min_capacity_gb": "200", "encryption": "not-required"}) {
		t.Errorf("got: %v %v want min_capacity_gb 200, encryption not-required", got, ps)
	}
}

// A parameter of the created MinIO that the intent sets and a constraint
// shapes differently is refused on that parameter; the same value passes.
func TestShapedParameterConflict(t *testing.T) {
	cat := builtinCat(t)
	s := Spec{Pack: "tempo", Name: "traces", Environment: "stage", ResourceType: "observability.tempo",
		Hosts: []operation.HostAccess{hostAccess("master-1", protocol.RoleMaster, nil)},
		State: planner.State{Artifacts: []protocol.Artifact{{ID: "kubeconfig.admin", Sensitivity: protocol.SensitivitySecret, Host: "master-1", Ref: "master-1:/etc/kubernetes/admin.conf"}}},
		Candidates: []capability.Candidate{
			{Name: "cp_kubernetes_cluster.k", Provider: "cp_kubernetes_cluster", Source: capability.SourceResource, Capability: protocol.Capability{Key: "kubernetes.cluster"}},
			{Name: "cp_kubernetes_cluster.k", Provider: "kubernetes_secrets", Source: capability.SourceResource, Capability: protocol.Capability{Key: "secret.store"}},
		},
		Requirements: map[string]map[string]string{"object_storage.s3": {"min_capacity_gb": "200"}}}
	env := Planning{Catalog: cat, Now: time.Unix(0, 0)}
	s.Params = map[string]string{"minio.storage_size": "10Gi"}
	_, err := s.Compose(env, Change{Action: "install"})
	pe, ok := planner.AsParamErrors(err)
	if !ok || len(pe) != 1 || pe[0].Name != "minio.storage_size" || !strings.Contains(pe[0].Msg, `the constraints on object_storage.s3 set it to "200Gi"`) {
		t.Fatalf("got: %v want the parameter minio.storage_size refused for the constraint", err)
	}
	s.Params = map[string]string{"minio.storage_size": "200Gi"}
	if _, err := s.Compose(env, Change{Action: "install"}); err != nil {
		t.Fatalf("got: %v want: the same value accepted", err)
	}
}
