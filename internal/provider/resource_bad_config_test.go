package provider

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// badConfigProvider points SSH at files that exist and at addresses where
// nothing listens: a plan that tried to connect would fail with an SSH
// error, not with the validation error each case expects.
func badConfigProvider(t *testing.T) string {
	dir := t.TempDir()
	key := filepath.Join(dir, "id_ed25519")
	kh := filepath.Join(dir, "known_hosts")
	must(t, os.WriteFile(key, []byte("not used at plan time\n"), 0o600))
	must(t, os.WriteFile(kh, []byte(""), 0o600))
	return sprintf(`
provider "cp" {
  environment = "prod"
  ssh = { user = "cp", private_key_file = %q, known_hosts_file = %q }
}
`, key, kh)
}

// goodCluster has one master, so the cases that set parameters need no
// control-plane endpoint (which several masters require).
const goodCluster = `
resource "cp_kubernetes_cluster" "c" {
  name    = "prod-k8s"
  masters = [{ name = "master-1", address = "127.0.0.251" }]
  workers = [{ name = "worker-1", address = "127.0.0.254" }]
  %s
}
`

func TestAccBadConfigurations(t *testing.T) {
	cluster := func(extra string) string { return sprintf(goodCluster, extra) }
	cases := []struct {
		name   string
		config string
		want   string
	}{
		{"wrong cni", cluster(`cni = "weave"`), `(?s)cni.*value must be one of`},
		{"wrong runtime", cluster(`container_runtime = "docker"`), `(?s)container_runtime.*value must be one of`},
		{"wrong storage", cluster(`storage = "ceph"`), `(?s)storage.*value must be one of`},
		{"even masters with HA", `
resource "cp_kubernetes_cluster" "c" {
  name = "k"
  require_ha_control_plane = true
  masters = [{ name = "m1", address = "127.0.0.251" }, { name = "m2", address = "127.0.0.252" }]
}`, `(?s)HA control plane needs an odd number.*masters: require_ha_control_plane is true but 2`},
		{"four masters with HA", `
resource "cp_kubernetes_cluster" "c" {
  name = "k"
  require_ha_control_plane = true
  masters = [for i in range(1, 5) : { name = "m${i}", address = "127.0.0.25${i}" }]
}`, `(?s)odd number.*but 4`},
		{"no masters", `
resource "cp_kubernetes_cluster" "c" {
  name    = "k"
  masters = []
}`, `(?s)No masters`},
		{"duplicate host names", `
resource "cp_kubernetes_cluster" "c" {
  name    = "k"
  masters = [{ name = "node-1", address = "127.0.0.251" }]
  workers = [{ name = "node-1", address = "127.0.0.252" }]
}`, `(?s)Duplicate node name.*workers\[0\].name: "node-1" is also used by masters\[0\]`},
		{"empty node name", `
resource "cp_kubernetes_cluster" "c" {
  name    = "k"
  masters = [{ name = "", address = "127.0.0.251" }]
}`, `(?s)Missing node name`},
		{"bad port", `
resource "cp_kubernetes_cluster" "c" {
  name    = "k"
  masters = [{ name = "m1", address = "127.0.0.251", port = 70000 }]
}`, `(?s)masters\[0\].port: 70000 is not a port`},
		{"bad version", cluster(`kubernetes_version = "latest"`), `(?s)kubernetes_version: "latest" is not a version`},
		{"bad pod cidr", cluster(`pod_cidr = "10.244.0.0"`), `(?s)pod_cidr: "10.244.0.0" is not an IPv4 network`},
		{"overlapping cidrs", cluster(`
  pod_cidr     = "10.0.0.0/8"
  service_cidr = "10.96.0.0/12"`), `(?s)service_cidr: service_cidr 10.96.0.0/12 overlaps`},
		{"bad mirror", cluster(`registry_mirrors = ["mirror.local"]`), `(?s)registry_mirrors\[0\]: "mirror.local" is not an http\(s\) URL`},
		{"own-attribute parameter", cluster(`parameters = { cni = "cilium" }`), `(?s)parameters\["cni"\]: set cni with the resource's own attribute`},
		{"unknown parameter", cluster(`parameters = { colour = "blue" }`), `(?s)Invalid parameter value.*parameters\["colour"\]: unknown`},
		{"unknown gate", cluster(`approvals = [{ gate = "approve-everything", option = "yes" }]`), `(?s)approvals\[0\].gate: neither the plan nor the pack has a gate\s+"approve-everything"`},
		{"patch on unknown job", cluster(`plan_patches = [{
    author  = "alice"
    reason  = "r"
    changes = [{ insert_after = "make-coffee", jobs = ["restart-containerd"] }]
  }]`), `(?s)Invalid plan edit.*plan_patches\[0\]: .*make-coffee`},
		{"unapproved patch", cluster(`plan_patches = [{
    author   = "ai-agent:sre"
    reason   = "r"
    changes  = [{ retry = "init-control-plane" }]
    approval = { required = true, roles = ["sre"] }
  }]`), `(?s)Plan patch not approved.*plan_patches\[0\]: `},
		{"customization inserts unknown job", cluster(`customizations = { changes = [{ inserted = "make-coffee", after = "install-container-runtime" }] }`),
			`(?s)customizations.changes\[0\]: .*make-coffee`},
		{"customization removes a producer", cluster(`customizations = { changes = [{ removed = "init-control-plane" }] }`),
			`(?s)customizations.changes\[0\]: .*init-control-plane`},
		{"customization makes a cycle", cluster(`customizations = { changes = [{ inserted = "generate-join-token", after = "join-workers" }] }`),
			`(?s)The plan has a cycle.*customizations.changes\[0\]: .*cycle:`},
		{"customization against another template", cluster(`customizations = { base_template = "kubernetes.create@0.9.0", changes = [{ removed = "install-storage" }] }`),
			`(?s)customizations.*0\.9\.0`},
		{"intervention on unknown job", cluster(`interventions = [{ job = "fix-everything", node = "worker-1" }]`), `(?s)interventions\[0\].job: the plan has no job "fix-everything"`},
		{"missing ssh key", `
resource "cp_kubernetes_cluster" "c" {
  name    = "k"
  masters = [{ name = "m1", address = "127.0.0.251" }]
  ssh     = { private_key_file = "/nonexistent/id_ed25519" }
}`, `(?s)SSH file not found.*ssh.private_key_file: private_key_file "/nonexistent/id_ed25519"`},
		{"missing known_hosts", `
resource "cp_kubernetes_cluster" "c" {
  name    = "k"
  masters = [{ name = "m1", address = "127.0.0.251" }]
  ssh     = { known_hosts_file = "/nonexistent/known_hosts" }
}`, `(?s)SSH file not found.*known_hosts_file`},
		{"bad timeout", cluster(`timeouts = { create = "soon" }`), `(?is)Invalid Attribute Value Time Duration.*"soon" must be a string`},
		{"tempo with a bad handle", `
resource "cp_tempo" "t" {
  name           = "tracing"
  cluster_handle = "not-a-handle"
}`, `(?s)Invalid cluster handle.*cluster_handle: not a cluster handle`},
		{"scenario of an unknown pack", `
resource "cp_scenario" "s" {
  pack  = "nope"
  name  = "x"
  hosts = [{ name = "h1", address = "127.0.0.251" }]
}`, `(?s)nope`},
		{"scenario action the pack lacks", `
resource "cp_scenario" "s" {
  pack   = "kubernetes"
  action = "explode"
  name   = "x"
  hosts  = [{ name = "h1", address = "127.0.0.251" }]
}`, `(?s)explode`},
	}
	if len(cases) < 25 {
		t.Fatalf("got: %d cases want: at least 25", len(cases))
	}
	for _, tc := range cases {
		t.Run(strings.ReplaceAll(tc.name, " ", "_"), func(t *testing.T) {
			resource.Test(t, resource.TestCase{
				PreCheck:                 func() { testAccPreCheck(t) },
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps: []resource.TestStep{{
					Config:             badConfigProvider(t) + tc.config,
					PlanOnly:           true,
					ExpectNonEmptyPlan: true,
					ExpectError:        regexp.MustCompile(tc.want),
				}},
			})
		})
	}
}
