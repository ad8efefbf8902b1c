package capability

import (
	"maps"
	"strings"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// minioShapes are the minio pack's shaped_by.
var minioShapes = []protocol.ConstraintShape{
	{Constraint: "min_capacity_gb", Parameter: "storage_size", Value: "{value}Gi"},
	{Constraint: "encryption", When: ValueRequired, Parameter: "encryption", Value: "true"},
	{Constraint: "encryption", When: ValueNotRequired, Parameter: "encryption", Value: "false"},
	{Constraint: "region", Parameter: "region"},
	{Constraint: "access_mode", When: "dedicated", Parameter: "namespace", Value: "minio-{consumer}"},
	{Constraint: "access_mode", When: "dedicated", Parameter: "release_name", Value: "minio-{consumer}"},
}

// Each constraint shapes the creating pack's parameters, and only that
// constraint's parameters.
func TestShapeCreationParams(t *testing.T) {
	wl := map[string]string{"region": "eu-central"}
	cases := []struct {
		name string
		cons map[string]string
		want map[string]string
	}{
		{"none", nil, nil},
		{"capacity", map[string]string{"min_capacity_gb": "200"}, map[string]string{"storage_size": "200Gi"}},
		{"encryption on", map[string]string{"encryption": ValueRequired}, map[string]string{"encryption": "true"}},
		{"encryption off", map[string]string{"encryption": ValueNotRequired}, map[string]string{"encryption": "false"}},
		{"region", map[string]string{"region": "eu-west"}, map[string]string{"region": "eu-west"}},
		{"region same as workload", map[string]string{"region": ValueSameAsWorkload}, map[string]string{"region": "eu-central"}},
		{"dedicated", map[string]string{"access_mode": "dedicated"}, map[string]string{"namespace": "minio-traces", "release_name": "minio-traces"}},
		{"shared", map[string]string{"access_mode": "shared"}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, notes := Shape(minioShapes, tc.cons, wl, "traces")
			if !maps.Equal(got, tc.want) || len(notes) != len(tc.want) {
				t.Fatalf("got: %v %q want: %v", got, notes, tc.want)
			}
		})
	}
}

// A creation decision carries the shaped parameters and says why.
func TestResolveShapesCreation(t *testing.T) {
	cr := []Creator{{Capability: s3, Provider: "dedicated_minio", Pack: "minio", Action: "install", ShapedBy: minioShapes}}
	d, err := Resolve(Request{Requirement: protocol.CapabilityRequirement{Key: s3, Constraints: map[string]string{"min_capacity_gb": "200", "access_mode": "dedicated"}},
		Environment: "dev", Creators: cr, Consumer: "traces"})
	if err != nil || d.Create == nil {
		t.Fatalf("got: %+v, %v want: a creation", d, err)
	}
	want := map[string]string{"storage_size": "200Gi", "namespace": "minio-traces", "release_name": "minio-traces"}
	if !maps.Equal(d.Create.Params, want) {
		t.Errorf("params got: %v want: %v", d.Create.Params, want)
	}
	if want := "shaped by the constraints: storage_size 200Gi (min_capacity_gb 200)"; !strings.Contains(d.Reason, want) {
		t.Errorf("reason got: %q want substring %q", d.Reason, want)
	}
	// The policy's require_encryption wins over encryption not required.
	d, err = Resolve(Request{Requirement: protocol.CapabilityRequirement{Key: s3, Constraints: map[string]string{"encryption": ValueNotRequired}},
		Environment: "dev", Creators: cr, Policy: Policy{s3: {"dev": {RequireEncryption: true}}}})
	if err != nil || d.Create == nil || d.Create.Params["encryption"] != "true" {
		t.Fatalf("got: %+v, %v want: encryption true by policy", d.Create, err)
	}
}
