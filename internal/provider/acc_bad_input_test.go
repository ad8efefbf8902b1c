package provider

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"golang.org/x/crypto/ssh"

	"github.com/intentops/terraform-provider-cp/internal/testhosts"
)

// errAt builds an ExpectError pattern: the summary, then the attribute
// path and the start of the detail as addAttrError writes them ("path:
// detail"). Spaces match any run of whitespace, since the CLI wraps
// diagnostics.
func errAt(summary, path, detail string) *regexp.Regexp {
	lit := func(s string) string { return strings.ReplaceAll(regexp.QuoteMeta(s), " ", `\s+`) }
	return regexp.MustCompile(`(?s)` + lit(summary) + `.*` + lit(path+": "+detail))
}

// badInputHosts are the test hosts every bad-input plan points at; none
// of them may see a connection.
var badInputHosts = []string{"master-1", "master-2", "master-3", "worker-1"}

// sshdConnections reads every host's sshd connection count.
func sshdConnections(t *testing.T, c *testhosts.Cluster) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, n := range badInputHosts {
		k, err := c.Connections(n)
		must(t, err)
		out[n] = k
	}
	return out
}

// settle waits until the harness's readiness probes are in every sshd
// log (sshd logs them from the connection's process, a little later).
func settle(t *testing.T, c *testhosts.Cluster) {
	t.Helper()
	prev := sshdConnections(t, c)
	for i := 0; i < 100; i++ {
		time.Sleep(100 * time.Millisecond)
		cur := sshdConnections(t, c)
		ready := fmt.Sprint(cur) == fmt.Sprint(prev)
		for _, n := range cur {
			ready = ready && n > 0
		}
		if ready {
			return
		}
		prev = cur
	}
	t.Fatalf("got: sshd connection counts still changing (%v) want: settled after the hosts started", prev)
}

// Each class of bad input is refused at plan with the attribute path of
// the value at fault and the allowed form, and the plan makes no SSH
// connection to any host (counted in the hosts' sshd logs). Without the
// check each of these plans would succeed (and the apply would connect).
func TestAccBadConfigInputs(t *testing.T) {
	testAccPreCheck(t)
	c := accHosts(t, "badinput", badInputHosts...)
	addr := func(n string) string {
		h, err := c.Host(n)
		must(t, err)
		return h.Addr
	}
	node := func(name, host, extra string) string {
		return fmt.Sprintf("{ name = %q, address = %q %s }", name, addr(host), extra)
	}
	masters := "[" + node("master-1", "master-1", "") + ", " + node("master-2", "master-2", "") + ", " + node("master-3", "master-3", "") + "]"
	workers := "[" + node("worker-1", "worker-1", "") + "]"
	// Several masters need the control-plane endpoint: the first
	// master's address, in the parameters a case sets or on its own.
	endpoint := fmt.Sprintf("control_plane_endpoint = %q", addr("master-1")+":6443")
	cluster := func(name, ms, ws, extra string) string {
		if strings.Count(ms, "name =") > 1 {
			if strings.Contains(extra, "parameters = { ") {
				extra = strings.Replace(extra, "parameters = { ", "parameters = { "+endpoint+", ", 1)
			} else {
				extra = "parameters = { " + endpoint + " }\n  " + extra
			}
		}
		return fmt.Sprintf(`
resource "cp_kubernetes_cluster" "c" {
  name    = %q
  storage = "none"
  masters = %s
  workers = %s
  %s
}
`, name, ms, ws, extra)
	}
	withWorker := func(extra string) string {
		return cluster("prod-k8s", masters, "["+node("worker-1", "worker-1", ", "+extra)+"]", "")
	}
	scenarioHosts := func(hosts, extra string) string {
		return fmt.Sprintf(`
resource "cp_scenario" "s" {
  pack  = "kubernetes"
  name  = "lab"
  hosts = %s
  %s
}
`, hosts, extra)
	}
	scenario := func(extra string) string {
		return scenarioHosts(fmt.Sprintf(`[{ name = "master-1", address = %q, role = "master" }]`, addr("master-1")), extra)
	}
	// provider logs in to the test hosts; ssh goes inside its ssh block,
	// extra after it. actor_roles is set unless extra sets it.
	provider := func(ssh, extra string) string {
		h := c.Hosts()[0]
		if !strings.Contains(extra, "actor_roles") {
			extra = `actor_roles = ["sre", "platform_admin"]` + "\n  " + extra
		}
		return fmt.Sprintf(`
provider "cp" {
  environment = "prod"
  actor       = "ci"
  ssh = {
    user             = %q
    private_key_file = %q
    known_hosts_file = %q
    %s
  }
  %s
}
`, h.User, c.KeyPath(), c.KnownHostsPath(), ssh, extra)
	}
	handle := fmt.Sprintf(`jsonencode({ kind = "kubernetes.cluster", name = "prod-k8s", environment = "prod", kubernetes_version = "1.31.2",
    api_endpoint = "https://%s:6443", hosts = [{ name = "master-1", address = %q, port = 22, role = "master" }], artifacts = [] })`, addr("master-1"), addr("master-1"))
	long := strings.Repeat("k", 100_000)
	cases := []struct {
		name     string
		ssh      string // inside the provider's ssh block
		provider string // inside the provider block
		config   string
		want     *regexp.Regexp
	}{
		// Names: DNS-1123 labels of at most 63 characters.
		{"node name with a space", "", "", cluster("prod-k8s", "["+node("master 1", "master-1", "")+"]", workers, ""),
			errAt("Invalid node name", "masters[0].name", `"master 1" is not a DNS-1123 label`)},
		{"node name with capitals", "", "", cluster("prod-k8s", masters, "["+node("Worker-1", "worker-1", "")+"]", ""),
			errAt("Invalid node name", "workers[0].name", `"Worker-1" is not a DNS-1123 label`)},
		{"cluster name of 300 characters", "", "", cluster(strings.Repeat("k", 300), masters, workers, ""),
			errAt("Invalid cluster name", "name", `"`+strings.Repeat("k", 200)+`"… (100 more characters) is not a DNS-1123 label`)},
		{"value of 100 KB quoted to 200 characters", "", "", cluster(long, masters, workers, ""),
			errAt("Invalid cluster name", "name", `"`+strings.Repeat("k", 200)+`"… (99800 more characters)`)},
		// Addresses and ports.
		{"two hosts on one address", "", "", cluster("prod-k8s", "["+node("master-1", "master-1", "")+", "+node("master-2", "master-1", "")+", "+node("master-3", "master-3", "")+"]", workers, ""),
			errAt("Duplicate node address", "masters[1].address", `node "master-2" is on `+addr("master-1")+`:22 like masters[0]`)},
		{"host port 0", "", "", cluster("prod-k8s", masters, "["+node("worker-1", "worker-1", ", port = 0")+"]", ""),
			errAt("Invalid port", "workers[0].port", "0 is not a port")},
		{"host port 70000", "", "", cluster("prod-k8s", masters, "["+node("worker-1", "worker-1", ", port = 70000")+"]", ""),
			errAt("Invalid port", "workers[0].port", "70000 is not a port")},
		{"resource ssh port 0", "", "", cluster("prod-k8s", masters, workers, "ssh = { port = 0 }"),
			errAt("Invalid port", "ssh.port", "0 is not a port")},
		{"provider ssh port 0", "port = 0", "", cluster("prod-k8s", masters, workers, ""),
			errAt("Invalid SSH port", "ssh.port", "0 is not between 1 and 65535")},
		{"bastion port 70000", `bastion = { address = "127.0.0.1", port = 70000 }`, "", cluster("prod-k8s", masters, workers, ""),
			errAt("Invalid port", "ssh.bastion.port", "70000 is not a port")},
		// Networks.
		{"IPv6 pod network", "", "", cluster("prod-k8s", masters, workers, `pod_cidr = "fd00:10:244::/56"`),
			errAt("Invalid network", "pod_cidr", `"fd00:10:244::/56" is not an IPv4 network`)},
		{"pod network /31", "", "", cluster("prod-k8s", masters, workers, `pod_cidr = "10.244.0.0/31"`),
			errAt("Invalid network size", "pod_cidr", "10.244.0.0/31 is a /31")},
		{"service network overlapping the pods'", "", "", cluster("prod-k8s", masters, workers, `service_cidr = "10.244.0.0/20"`),
			errAt("Overlapping networks", "service_cidr", "service_cidr 10.244.0.0/20 overlaps pod_cidr 10.244.0.0/16")},
		{"mesh overlapping the pods'", "", "", cluster("prod-k8s", masters, workers, `parameters = { wireguard_cidr = "10.244.7.0/24" }`),
			errAt("Overlapping networks", `parameters["wireguard_cidr"]`, "wireguard_cidr 10.244.7.0/24 overlaps pod_cidr")},
		// Version against the pack's range.
		{"Kubernetes version below the pack's minimum", "", "", cluster("prod-k8s", masters, workers, `kubernetes_version = "1.20.0"`),
			errAt("Unsupported Kubernetes version", "kubernetes_version", `"1.20.0" is outside the versions the kubernetes@`)},
		// Mirrors.
		{"comma inside one registry mirror", "", "", cluster("prod-k8s", masters, workers, `registry_mirrors = ["https://a.internal,https://b.internal"]`),
			errAt("Invalid registry mirror", "registry_mirrors[0]", `"https://a.internal,https://b.internal" holds a comma`)},
		// Labels and taints.
		{"label key not in Kubernetes syntax", "", "", withWorker(`labels = { "bad key" = "x" }`),
			errAt("Invalid label key", `workers[0].labels["bad key"]`, `key "bad key" is not a Kubernetes label key`)},
		{"label value with a newline", "", "", withWorker(`labels = { inj = "x\nnode-role.kubernetes.io/control-plane=yes" }`),
			errAt("Invalid label value", `workers[0].labels["inj"]`, `"x\nnode-role.kubernetes.io/control-plane=yes" is not a Kubernetes label value`)},
		{"taint not in Kubernetes syntax", "", "", withWorker(`taints = ["dedicated=infra"]`),
			errAt("Invalid taint", "workers[0].taints[0]", `"dedicated=infra" is not a taint`)},
		// Durations.
		{"unparsable provider ssh timeout", `timeout = "soon"`, "", cluster("prod-k8s", masters, workers, ""),
			errAt("Invalid SSH timeout", "ssh.timeout", `"soon" is not a positive duration`)},
		{"negative timeouts block", "", "", cluster("prod-k8s", masters, workers, `timeouts = { create = "-5m" }`),
			errAt("Invalid timeout", "timeouts.create", `"-5m" is not a positive duration`)},
		{"several masters without a control-plane endpoint", "", "", strings.Replace(cluster("prod-k8s", masters, workers, ""), "parameters = { "+endpoint+" }", "", 1),
			errAt("Control-plane endpoint required", `parameters["control_plane_endpoint"]`, "3 masters are listed")},
		{"control-plane endpoint with port 0", "", "", strings.Replace(cluster("prod-k8s", masters, workers, ""), addr("master-1")+":6443", "lb.internal:0", 1),
			errAt("Invalid control-plane endpoint", `parameters["control_plane_endpoint"]`, `"lb.internal:0" is not a host name or IP address with an optional port (1-65535)`)},
		{"parameter typed duration", "", "", cluster("prod-k8s", masters, workers, `parameters = { drain_timeout = "soon" }`),
			errAt("Invalid parameter value", `parameters["drain_timeout"]`, `"soon"`)},
		{"parameter typed integer", "", "", cluster("prod-k8s", masters, workers, `parameters = { min_cpus = "BASH_VERSINFO[$(touch /tmp/x)]*0" }`),
			errAt("Invalid parameter value", `parameters["min_cpus"]`, `"BASH_VERSINFO[$(touch /tmp/x)]*0"`)},
		{"air-gap image repository with a scheme", "", "", cluster("prod-k8s", masters, workers, `parameters = { image_repository = "https://registry.mirror.internal" }`),
			errAt("Invalid parameter value", `parameters["image_repository"]`, `"https://registry.mirror.internal"`)},
		{"air-gap apt repository without its trailing slash", "", "", cluster("prod-k8s", masters, workers, `parameters = { kubernetes_apt_repository = "https://apt.mirror.internal/k8s/v{minor}/deb" }`),
			errAt("Invalid parameter value", `parameters["kubernetes_apt_repository"]`, `"https://apt.mirror.internal/k8s/v{minor}/deb"`)},
		{"air-gap chart digest not hex", "", "", cluster("prod-k8s", masters, workers, `parameters = { longhorn_chart_sha256 = "sha256:abc" }`),
			errAt("Invalid parameter value", `parameters["longhorn_chart_sha256"]`, `"sha256:abc"`)},
		{"containerd below the minimum for its Kubernetes", "", "", cluster("prod-k8s", masters, workers, `kubernetes_version = "1.34.2"
  parameters = { containerd_source = "distribution", containerd_version = "1.6.20" }`),
			errAt("containerd too old for this Kubernetes", `parameters["containerd_version"]`, `containerd "1.6.20" is below what containerd's RELEASES.md recommends for Kubernetes 1.34 (2.1.3+, 2.0.6+, 1.7.28+, 1.6.39+)`)},
		{"containerd version not a release", "", "", cluster("prod-k8s", masters, workers, `parameters = { containerd_version = "latest" }`),
			errAt("Invalid parameter value", `parameters["containerd_version"]`, `"latest"`)},
		{"containerd source unknown", "", "", cluster("prod-k8s", masters, workers, `parameters = { containerd_source = "snap" }`),
			errAt("Invalid parameter value", `parameters["containerd_source"]`, `"snap"`)},
		// Roles.
		{"unknown host role", "", "", scenarioHosts(`[{ name = "master-1", address = "`+addr("master-1")+`", role = "boss" }]`, ""),
			errAt("Unknown role", "hosts[0].role", `"boss" is not a role`)},
		{"unknown node role", "", "", fmt.Sprintf(`
resource "cp_node" "n" {
  cluster_handle = %s
  node = { name = "worker-1", address = %q, role = "boss" }
}
`, handle, addr("worker-1")), errAt("Unknown role", "node.role", `"boss" is not a role`)},
		{"unknown actor role", "", `actor_roles = ["boss"]`, cluster("prod-k8s", masters, workers, ""),
			errAt("Unknown role", "actor_roles[0]", `"boss" is a role no gate asks for`)},
		// Policy, diagnosis, environment.
		{"policy key that is no capability", "", `capability_policy = { "object_storage.S3" = { environments = { prod = { allowed_providers = ["aws_s3"] } } } }`,
			cluster("prod-k8s", masters, workers, ""),
			errAt("Unknown capability", `capability_policy["object_storage.S3"]`, `"object_storage.S3" is not a capability any scenario pack requires`)},
		{"diagnosis endpoint that is not a URL", "", `diagnosis = { http = { endpoint = "127.0.0.1:8080", model = "m" } }`, cluster("prod-k8s", masters, workers, ""),
			errAt("Invalid analyzer endpoint", "diagnosis.http.endpoint", `"127.0.0.1:8080" is not an http(s) URL`)},
		{"diagnosis command that does not exist", "", `diagnosis = { command = { path = "/nonexistent/analyze" } }`, cluster("prod-k8s", masters, workers, ""),
			errAt("Analyzer command not found", "diagnosis.command.path", `"/nonexistent/analyze" is not an executable file`)},
		{"become_password_env naming an unset variable", `become_password_env = "CP_TEST_UNSET_SUDO_PASSWORD"`, "", cluster("prod-k8s", masters, workers, ""),
			errAt("Environment variable not set", "ssh.become_password_env", `"CP_TEST_UNSET_SUDO_PASSWORD" names the environment variable that holds the sudo password, but it is not set`)},
		// Pack references on their own attributes.
		{"destroy_action with no template", "", "", scenario(`action = "create"
  destroy_action = "uninstall"`),
			errAt("Unknown action", "destroy_action", `pack kubernetes@`)},
		{"action with no template", "", "", scenario(`action = "explode"`), errAt("Unknown action", "action", `pack kubernetes@`)},
		{"pack version that does not exist", "", "", scenario(`version = ">= 9.0.0"`),
			errAt("No matching pack version", "version", `">= 9.0.0": no version of pack kubernetes satisfies it`)},
		{"duplicate scenario host names", "", "", scenarioHosts(`[{ name = "master-1", address = "`+addr("master-1")+`", role = "master" }, { name = "master-1", address = "`+addr("master-2")+`", role = "master" }]`, ""),
			errAt("Duplicate host name", "hosts[1].name", `"master-1" is also used by hosts[0]`)},
		{"object storage the policy refuses", "", `capability_policy = { "object_storage.s3" = { environments = { prod = { allowed_providers = ["shared_minio"] } } } }`, fmt.Sprintf(`
resource "cp_tempo" "t" {
  name           = "tracing"
  cluster_handle = %s
  object_storage = { name = "s3", provider = "aws_s3" }
}
`, handle), errAt("Unsatisfiable requirement", "object_storage", "pack tempo@")},
	}
	settle(t, c)
	for _, tc := range cases {
		t.Run(strings.ReplaceAll(tc.name, " ", "_"), func(t *testing.T) {
			before := sshdConnections(t, c)
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps: []resource.TestStep{{
					Config:             provider(tc.ssh, tc.provider) + tc.config,
					PlanOnly:           true,
					ExpectNonEmptyPlan: true,
					ExpectError:        tc.want,
				}},
			})
			if after := sshdConnections(t, c); fmt.Sprint(after) != fmt.Sprint(before) {
				t.Fatalf("got: sshd connections %v after the plan want: %v as before it (plan must not connect)", after, before)
			}
		})
	}
	// The count sees a connection: one login to a host moves it.
	before := sshdConnections(t, c)
	h := c.Hosts()[0]
	cfg, err := h.ClientConfig()
	must(t, err)
	cl, err := ssh.Dial("tcp", h.Target(), cfg)
	must(t, err)
	must(t, cl.Close())
	if after := sshdConnections(t, c); after[h.Name] != before[h.Name]+1 {
		t.Fatalf("got: %d connections to %s after one login want: %d", after[h.Name], h.Name, before[h.Name]+1)
	}
}
