package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/intentops/terraform-provider-cp/internal/intent"
	"github.com/intentops/terraform-provider-cp/internal/planner"
)

// An intent path converts to the framework path of the same attribute.
func TestToPath(t *testing.T) {
	cases := []struct {
		in   intent.Path
		want path.Path
	}{
		{intent.Root("name"), path.Root("name")},
		{intent.Root("workers").Index(2).Attr("labels").Key("x"), path.Root("workers").AtListIndex(2).AtName("labels").AtMapKey("x")},
		{intent.Root("capability_policy").Key("object_storage.s3").Attr("environments"), path.Root("capability_policy").AtMapKey("object_storage.s3").AtName("environments")},
	}
	for _, tc := range cases {
		if got := toPath(tc.in); !got.Equal(tc.want) {
			t.Fatalf("got: %s want: %s", got, tc.want)
		}
	}
}

// A refused cluster parameter lands on the attribute that set it: the
// cluster's own attribute, the first master's address for a derived
// endpoint, parameters["name"] otherwise.
func TestClusterParamPaths(t *testing.T) {
	m := &clusterModel{Masters: []nodeModel{{}, {}}, Parameters: map[string]string{"min_cpus": "x"}}
	pp := clusterParamPaths(m)
	for name, want := range map[string]string{
		"kubernetes_version": "kubernetes_version", "cluster_name": "name", "pod_cidr": "pod_cidr",
		"control_plane_endpoint": "masters[0].address", "min_cpus": `parameters["min_cpus"]`,
	} {
		if got := pp.Of(&planner.ParamError{Name: name}).String(); got != want {
			t.Fatalf("got: %s for %s want: %s", got, name, want)
		}
	}
	m.Parameters["control_plane_endpoint"] = "lb.internal:6443"
	if got := clusterParamPaths(m).Of(&planner.ParamError{Name: "control_plane_endpoint"}).String(); got != `parameters["control_plane_endpoint"]` {
		t.Fatalf("got: %s want: parameters[\"control_plane_endpoint\"] once the endpoint is set", got)
	}
}
