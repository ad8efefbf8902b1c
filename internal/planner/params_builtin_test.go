package planner

import (
	"strings"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// TestBuiltinParamsRefusedAtPlan: the values of the security findings
// against the builtin kubernetes pack are refused at plan, each by the
// parameter that carried it.
func TestBuiltinParamsRefusedAtPlan(t *testing.T) {
	k := builtinPack(t, "kubernetes")
	cases := []struct{ param, value, msg string }{
		{"min_cpus", "BASH_VERSINFO[$(touch /tmp/x)]*0", "is not a whole number"},
		{"min_memory_mb", "lots", "is not a whole number"},
		{"min_disk_gb", "08", "is not a whole number"},
		{"wireguard_port", "51820\nPostUp = touch /tmp/x", "control character"},
		{"wireguard_port", "0", "below the smallest allowed 1"},
		{"wireguard_port", "70000", "above the largest allowed 65535"},
		{"wireguard_cidr", "10.200.0.0/16", "below the smallest allowed a prefix length 24"},
		{"mirrored_registries", "docker.io,../../../tmp/X", "item 2"},
		{"registry_mirrors", `https://m.example/"x`, `holds '"'`},
		{"cluster_name", "Prod Cluster", "not a DNS label"},
		{"cluster_name", strings.Repeat("a", 300), "more characters"},
		{"kubernetes_version", "1.29.9", "outside the supported versions >= 1.30.0, < 1.36.0"},
		{"kubernetes_version", "latest", "not a version"},
		{"pod_cidr", "fd00::/64", "not an IPv4 network"},
		{"pod_cidr", "10.244.0.0/31", "above the largest allowed a prefix length 24"},
		{"service_cidr", "10.96.0.1/12", "host bits set"},
		{"control_plane_endpoint", "lb.internal:0", "port between 1 and 65535"},
		{"drain_timeout", "-5m", "positive duration"},
		{"node_ready_timeout", "soon", "positive duration"},
		{"cni", "weave", "not one of calico, cilium, flannel"},
		{"cni_manifest", "https://x.example/a b", "does not match the pattern"},
		{"longhorn_version", "v1.7.2", "no leading v"},
	}
	for _, c := range cases {
		t.Run(c.param, func(t *testing.T) {
			in := createInput(k)
			in.Intent.Parameters = map[string]string{"cluster_name": "prod-k8s", c.param: c.value}
			_, err := Build(in)
			pes := paramErrs(t, err)
			if len(pes) != 1 || pes[0].Name != c.param || pes[0].Value != c.value || !strings.Contains(pes[0].Msg, c.msg) {
				t.Fatalf("got: %v want: one error for %s containing %q", err, c.param, c.msg)
			}
			if len(pes[0].Msg) > 700 {
				t.Errorf("got: a %d-byte message want: the value quoted to 200 characters", len(pes[0].Msg))
			}
		})
	}
}

// TestBuiltinParamsAccepted: the defaults and typical values plan.
func TestBuiltinParamsAccepted(t *testing.T) {
	k := builtinPack(t, "kubernetes")
	in := createInput(k)
	in.Intent.Parameters = map[string]string{
		"cluster_name": "prod-k8s", "kubernetes_version": "1.33.4", "cni": "cilium", "pod_cidr": "10.32.0.0/16", "service_cidr": "10.96.0.0/16",
		"wireguard_port": "51821", "mirrored_registries": "docker.io,registry.local:5000", "min_cpus": "4", "min_disk_gb": "0",
		"control_plane_endpoint": "[fd00::10]:6443", "cni_manifest": "/srv/cni/calico.yaml", "drain_timeout": "90s",
	}
	p, err := Build(in)
	if err != nil {
		t.Fatal(err)
	}
	ji, _ := p.Instance("validate-inputs")
	if ji == nil || ji.Params["kubernetes_version"] != "1.33.4" || ji.Params["wireguard_cidr"] != "10.200.0.0/24" {
		t.Errorf("got: %+v want: validate-inputs with the intent's and the pack's values", ji)
	}
}

// TestBuiltinPatchOverrideTyped: a patch's value for a job whose
// declaration is {} is checked against the pack's spec.
func TestBuiltinPatchOverrideTyped(t *testing.T) {
	k := builtinPack(t, "kubernetes")
	in := createInput(k)
	in.Intent.Parameters = map[string]string{"cluster_name": "prod-k8s"}
	patch := registryPatch("ana (sre)")
	patch.Changes[0].Jobs[0].Parameters = map[string]string{"registry_mirrors": "https://a.example,https://b.example/'x"}
	in.Patches = []protocol.PlanPatch{patch}
	_, err := Build(in)
	pes := paramErrs(t, err)
	if len(pes) != 1 || pes[0].Name != "registry_mirrors" || pes[0].Job == "" || !strings.Contains(pes[0].Msg, "the patch's value") {
		t.Fatalf("got: %v want: the patch's registry_mirrors refused for its job", err)
	}
}
