package packs_test

import (
	"maps"
	"strings"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/capability"
	"github.com/intentops/terraform-provider-cp/internal/intent"
	"github.com/intentops/terraform-provider-cp/internal/packs"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

func minioPack(t *testing.T) *protocol.ScenarioPack {
	t.Helper()
	cat, err := packs.LoadBuiltin()
	if err != nil {
		t.Fatal(err)
	}
	p, err := cat.Get("minio", "")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// minioS3 is the object_storage.s3 capability a MinIO created with params
// exports.
func minioS3(t *testing.T, p *protocol.ScenarioPack, params map[string]string) map[string]string {
	t.Helper()
	for _, c := range intent.Exports(p, intent.ExportValues(p, params, map[string]string{"name": "storage"})) {
		if c.Key == "object_storage.s3" {
			return c.Attributes
		}
	}
	t.Fatalf("the minio pack exports no object_storage.s3: %v", intent.Exports(p, nil))
	return nil
}

// The attributes a MinIO exports follow the parameters it was created
// with: capacity_gb the data volume's size, encryption, region and
// access_mode their parameters (defaults when unset).
func TestMinioExportsFollowParameters(t *testing.T) {
	p := minioPack(t)
	base := map[string]string{"api": "s3", "provider": "minio"}
	with := func(kv ...string) map[string]string {
		out := maps.Clone(base)
		for i := 0; i < len(kv); i += 2 {
			out[kv[i]] = kv[i+1]
		}
		return out
	}
	cases := []struct {
		name   string
		params map[string]string
		want   map[string]string
	}{
		{"defaults", nil, with("capacity_gb", "10Gi", "encryption", "true", "region", "us-east-1", "access_mode", "shared")},
		{"storage_size", map[string]string{"storage_size": "200Gi"}, with("capacity_gb", "200Gi", "encryption", "true", "region", "us-east-1", "access_mode", "shared")},
		{"encryption off", map[string]string{"encryption": "false"}, with("capacity_gb", "10Gi", "encryption", "false", "region", "us-east-1", "access_mode", "shared")},
		{"region", map[string]string{"region": "eu-central-1"}, with("capacity_gb", "10Gi", "encryption", "true", "region", "eu-central-1", "access_mode", "shared")},
		{"access_mode dedicated", map[string]string{"access_mode": "dedicated"}, with("capacity_gb", "10Gi", "encryption", "true", "region", "us-east-1", "access_mode", "dedicated")},
		// A value not of its parameter's type is not substituted: the
		// attribute is left out rather than exported unchecked.
		{"untyped values are left out", map[string]string{"storage_size": "ten", "access_mode": "private", "region": "EU WEST"},
			with("encryption", "true")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := minioS3(t, p, tc.params); !maps.Equal(got, tc.want) {
				t.Fatalf("exports %v; want %v", got, tc.want)
			}
		})
	}
}

// A MinIO created for a consumer, its parameters shaped by the consumer's
// constraints (shaped_by), exports what satisfies those constraints, so a
// later binding with the same constraints accepts it; the defaults do
// not satisfy a consumer asking for more, and each check says why.
func TestCreatedMinioSatisfiesItsConstraints(t *testing.T) {
	p := minioPack(t)
	var shapes []protocol.ConstraintShape
	for _, pr := range p.Provides {
		if pr.Capability == "object_storage.s3" {
			shapes = pr.ShapedBy
		}
	}
	cases := []struct {
		name        string
		constraints map[string]string
	}{
		{"capacity", map[string]string{"min_capacity_gb": "200"}},
		{"encryption required", map[string]string{"encryption": capability.ValueRequired}},
		{"region", map[string]string{"region": "eu-central-1"}},
		{"dedicated", map[string]string{"access_mode": "dedicated"}},
		{"all at once", map[string]string{"min_capacity_gb": "500", "encryption": capability.ValueRequired, "region": "eu-west-3", "access_mode": "dedicated"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			params, _ := capability.Shape(shapes, tc.constraints, nil, "traces")
			for _, chk := range capability.MatchConstraints(tc.constraints, minioS3(t, p, params), nil) {
				if !chk.OK {
					t.Errorf("created with %v: %s fails: %s", params, chk.Constraint, chk.Detail)
				}
			}
		})
	}
	// The defaults against consumers asking for more.
	defaults := minioS3(t, p, nil)
	for constraint, detail := range map[string]string{
		"min_capacity_gb: 200":   "capacity_gb 10Gi (10.74 GB) < min_capacity_gb 200",
		"access_mode: dedicated": "access_mode shared != dedicated",
		"region: eu-central-1":   "region us-east-1 != eu-central-1",
	} {
		k, v, _ := strings.Cut(constraint, ": ")
		got := capability.MatchConstraints(map[string]string{k: v}, defaults, nil)
		if len(got) != 1 || got[0].OK || got[0].Detail != detail {
			t.Errorf("defaults against %s: %+v; want rejected: %s", constraint, got, detail)
		}
	}
	off := minioS3(t, p, map[string]string{"encryption": "false"})
	if got := capability.MatchConstraints(map[string]string{"encryption": capability.ValueRequired}, off, nil); got[0].OK {
		t.Errorf("a MinIO without encryption passes encryption: required: %+v", got)
	}
}
