package intent

import (
	"strings"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

func goodCluster() ClusterInput {
	return ClusterInput{Name: "prod-k8s", KubernetesVersion: "1.31.2", PodCIDR: "10.244.0.0/16", ServiceCIDR: "10.96.0.0/12",
		RegistryMirrors: []string{"https://mirror.internal:5000"}, Parameters: map[string]string{"wireguard_cidr": "10.200.0.0/24"},
		Hosts: []HostInput{host(0, "master-1", "10.0.0.11")}}
}

func kubernetesPack(versions string) *protocol.ScenarioPack {
	return &protocol.ScenarioPack{ID: "kubernetes", Version: "1.0.0", Parameters: map[string]protocol.ParamSpec{
		"kubernetes_version": {Type: "semver", Versions: versions}}}
}

func TestCheckCluster_goodClusterPasses(t *testing.T) {
	if ps := CheckCluster(goodCluster(), kubernetesPack(">= 1.29.0")); len(ps) != 0 {
		t.Fatalf("got: %v want: no problems", ps)
	}
}

func TestCheckCluster_eachBadInputAtItsPath(t *testing.T) {
	cases := []struct {
		name   string
		change func(*ClusterInput)
		pack   *protocol.ScenarioPack
		path   string
		frag   []string
	}{
		{"name with capitals", func(c *ClusterInput) { c.Name = "Prod K8s" }, nil, "name", []string{`"Prod K8s"`, "DNS-1123"}},
		{"name of 300 characters", func(c *ClusterInput) { c.Name = strings.Repeat("k", 300) }, nil, "name", []string{"(100 more characters)"}},
		{"version not semver", func(c *ClusterInput) { c.KubernetesVersion = "latest" }, nil, "kubernetes_version", []string{`"latest" is not a version`}},
		{"version with a leading v", func(c *ClusterInput) { c.KubernetesVersion = "v1.31.2" }, nil, "kubernetes_version", []string{"no leading v"}},
		{"version below the pack's range", func(c *ClusterInput) { c.KubernetesVersion = "1.28.9" }, kubernetesPack(">= 1.29.0, < 1.35.0"), "kubernetes_version",
			[]string{`"1.28.9" is outside the versions the kubernetes@1.0.0 pack installs (>= 1.29.0, < 1.35.0)`}},
		{"IPv6 pod network", func(c *ClusterInput) { c.PodCIDR = "fd00:10:244::/56" }, nil, "pod_cidr", []string{"not an IPv4 network"}},
		{"pod network /31", func(c *ClusterInput) { c.PodCIDR = "10.244.0.0/31" }, nil, "pod_cidr", []string{"is a /31", "between /8 and /24"}},
		{"pod network with host bits", func(c *ClusterInput) { c.PodCIDR = "10.244.0.1/16" }, nil, "pod_cidr", []string{"canonical form"}},
		{"pod network too small for the nodes", func(c *ClusterInput) {
			c.PodCIDR = "10.244.0.0/24"
			c.Hosts = append(c.Hosts, host(1, "master-2", "10.0.0.12"))
		}, nil, "pod_cidr", []string{"holds 1 /24 node networks but the cluster has 2 nodes"}},
		{"service network /8", func(c *ClusterInput) { c.ServiceCIDR = "10.0.0.0/8" }, nil, "service_cidr", []string{"between /12 and /28"}},
		{"service network overlaps the pods'", func(c *ClusterInput) { c.ServiceCIDR = "10.244.128.0/20" }, nil, "service_cidr", []string{"overlaps pod_cidr 10.244.0.0/16"}},
		{"mesh overlaps the pods'", func(c *ClusterInput) { c.Parameters["wireguard_cidr"] = "10.244.3.0/24" }, nil, `parameters["wireguard_cidr"]`,
			[]string{"overlaps pod_cidr"}},
		{"mesh not a /24", func(c *ClusterInput) { c.Parameters["wireguard_cidr"] = "10.200.0.0/16" }, nil, `parameters["wireguard_cidr"]`, []string{"a /24"}},
		{"host inside the service network", func(c *ClusterInput) { c.Hosts[0].Address = "10.96.0.5" }, nil, "masters[0].address", []string{"inside service_cidr"}},
		{"comma inside one mirror", func(c *ClusterInput) { c.RegistryMirrors = []string{"https://a.internal,https://b.internal"} }, nil, "registry_mirrors[0]",
			[]string{"holds a comma"}},
		{"mirror with a quote", func(c *ClusterInput) { c.RegistryMirrors = []string{"https://ok.internal", `https://m"x`} }, nil, "registry_mirrors[1]",
			[]string{`"https://m\"x" is not an http(s) URL`}},
		{"duplicate mirror", func(c *ClusterInput) { c.RegistryMirrors = []string{"https://a.internal", "https://a.internal"} }, nil, "registry_mirrors[1]",
			[]string{"registry_mirrors[0]"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := goodCluster()
			c.Parameters = map[string]string{"wireguard_cidr": "10.200.0.0/24"}
			tc.change(&c)
			wantProblem(t, CheckCluster(c, tc.pack), tc.path, tc.frag...)
		})
	}
}

// The pack's min and max bound the networks' prefix lengths.
func TestCheckCluster_prefixBoundsComeFromThePack(t *testing.T) {
	lo, hi := 16.0, 20.0
	pack := kubernetesPack("")
	pack.Parameters["pod_cidr"] = protocol.ParamSpec{Type: "ipv4_cidr", Min: &lo, Max: &hi}
	c := goodCluster()
	c.PodCIDR = "10.244.0.0/22"
	wantProblem(t, CheckCluster(c, pack), "pod_cidr", "it must be between /16 and /20")
	if ps := CheckCluster(c, nil); len(ps) != 0 {
		t.Fatalf("got: %v want: no problems within the default bounds", ps)
	}
}

// Without a version range in the pack only the form is checked.
func TestCheckCluster_versionRangeComesFromThePack(t *testing.T) {
	c := goodCluster()
	c.KubernetesVersion = "1.20.0"
	if ps := CheckCluster(c, kubernetesPack("")); len(ps) != 0 {
		t.Fatalf("got: %v want: no problems without a range", ps)
	}
	if ps := CheckCluster(c, kubernetesPack(">= 1.29.0")); len(ps) != 1 {
		t.Fatalf("got: %v want: 1 problem with the range", ps)
	}
}

// A 100 KB value is quoted to 200 characters.
func TestCheckCluster_largeValueQuotedShort(t *testing.T) {
	c := goodCluster()
	c.RegistryMirrors = []string{"https://" + strings.Repeat("x", 100_000)}
	ps := CheckCluster(c, nil)
	if len(ps) != 1 || len(ps[0].Detail) > 400 || !strings.Contains(ps[0].Detail, "more characters") {
		t.Fatalf("got: %d problems, detail of %d bytes want: 1, under 400 bytes", len(ps), len(ps[0].Detail))
	}
}
