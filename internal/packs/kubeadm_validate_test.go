package packs

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// kubeadmCluster is one cluster shape whose kubeadm configurations the
// kubernetes pack's scripts render.
type kubeadmCluster struct {
	params           map[string]string // pack parameters over the defaults
	masters, workers int
	server           string // the API server address every kubeconfig and join uses
}

var kubeadmClusters = map[string]kubeadmCluster{
	"single-master":    {masters: 1, workers: 2, server: "10.0.0.11:6443"},
	"ha-load-balancer": {params: map[string]string{"control_plane_endpoint": "api.prod.example.internal:6443", "kubernetes_version": "1.34.2"}, masters: 3, workers: 1, server: "api.prod.example.internal:6443"},
	"ha-ip-endpoint": {params: map[string]string{"control_plane_endpoint": "10.0.0.100:8443", "kubernetes_version": "1.33.5",
		"pod_cidr": "192.168.0.0/16", "service_cidr": "172.20.0.0/16", "cluster_name": "edge-1"}, masters: 2, workers: 1, server: "10.0.0.100:8443"},
	"widest-networks":    {params: map[string]string{"pod_cidr": "10.0.0.0/8", "service_cidr": "172.16.0.0/12"}, masters: 1, workers: 1, server: "10.0.0.11:6443"},
	"narrowest-networks": {params: map[string]string{"pod_cidr": "10.244.0.0/24", "service_cidr": "10.96.0.0/28"}, masters: 1, workers: 1, server: "10.0.0.11:6443"},
	"newest-version":     {params: map[string]string{"kubernetes_version": "1.35.0"}, masters: 1, workers: 1, server: "10.0.0.11:6443"},
	"ha-ipv6-endpoint": {params: map[string]string{"control_plane_endpoint": "[fd00::10]:6443", "kubernetes_version": "1.34.2"},
		masters: 2, workers: 1, server: "[fd00::10]:6443"},
	"image-repository": {params: map[string]string{"image_repository": "registry.mirror.internal:5000/k8s"}, masters: 1, workers: 1, server: "10.0.0.11:6443"},
	"v1beta3":          {params: map[string]string{"kubernetes_version": "1.30.5", "control_plane_endpoint": "api.old.example.internal:6443"}, masters: 3, workers: 1, server: "api.old.example.internal:6443"},
}

// kubeadmDeploys tells whether the real kubeadm deploys a control plane of
// version (1.minor.patch): its own minor version, the one before it, or the
// next. For an older version a configuration holding it must fail
// validation on that alone and pass with kubeadm's own version.
func kubeadmDeploys(t *testing.T, version string) bool {
	t.Helper()
	minor := func(v string) int {
		m := regexp.MustCompile(`^v?1\.([0-9]+)\.[0-9]+$`).FindStringSubmatch(v)
		if m == nil {
			t.Fatalf("%q is not a version 1.minor.patch", v)
		}
		n, _ := strconv.Atoi(m[1])
		return n
	}
	own, v := minor(kubeadmRequired(t)), minor(version)
	return v >= own-1 && v <= own+1
}

// renderedConfig is one kubeadm configuration file a script wrote.
type renderedConfig struct {
	name string // script and host
	file string
}

// hostAddress is the address of m-i (10.0.0.1i) or w-i (10.0.0.2i).
func hostAddress(host string) string {
	role, n, _ := strings.Cut(host, "-")
	base := map[string]int{"m": 10, "w": 20}[role]
	i, err := strconv.Atoi(n)
	if base == 0 || err != nil || i < 1 || i > 9 {
		panic("no address for host " + host)
	}
	return fmt.Sprintf("10.0.0.%d", base+i)
}

// renderCluster runs the scripts that write kubeadm configurations for c,
// in the order a create runs them: render-kubeadm-config, init-control-plane
// on the first master, generate-join-token there, and join-node on every
// other master and worker with the artifacts init produced. It checks what
// the scripts rely on from kubeadm's real outputs along the way and returns
// every configuration written.
func renderCluster(t *testing.T, bin string, c kubeadmCluster) (configs []renderedConfig, lifted bool) {
	t.Helper()
	masters, workers := fmtHosts("m", c.masters), fmtHosts("w", c.workers)
	first := masters[0]
	base := func(host, role string) map[string]string {
		env := packEnv(t, "kubernetes", c.params)
		env[protocol.EnvCluster] = "prod"
		env[protocol.EnvFirstMaster] = first
		env[protocol.EnvFirstMasterAddress] = hostAddress(first)
		env[protocol.EnvHost] = host
		env[protocol.EnvHostAddress] = hostAddress(host)
		env[protocol.EnvHostRole] = role
		return env
	}
	ok := func(h *kubeadmHost, script string, res scriptResult) {
		t.Helper()
		if res.code != 0 {
			t.Fatalf("%s exited %d\nstderr:\n%s\nstdout:\n%s\nkubeadm calls:\n%s", script, res.code, res.stderr, res.stdout, h.log(h.calls))
		}
	}
	var out []renderedConfig

	// The cluster configuration, rendered once.
	r := newKubeadmHost(t, bin)
	ok(r, "render-kubeadm-config", r.run("kubernetes/scripts/render-kubeadm-config.sh", r.env(base(first, "master")), "/var/lib/cp/kubernetes"))
	cluster := r.read("/.out/kubeadm_cluster_config")
	out = append(out, renderedConfig{"render-kubeadm-config", r.path("/.out/kubeadm_cluster_config")})

	// init-control-plane on the first master: real PKI and admin.conf.
	m := newKubeadmHost(t, bin)
	env := m.env(m.artifactEnv(base(first, "master"), map[string]string{"kubeadm_cluster_config": cluster}))
	lifted = !kubeadmDeploys(t, env[protocol.EnvParamPrefix+"KUBERNETES_VERSION"])
	if lifted {
		env["CP_TEST_KUBEADM_PHASE_VERSION"] = kubeadmRequired(t)
	}
	started := time.Now()
	ok(m, "init-control-plane", m.run("kubernetes/scripts/init-control-plane.sh", env, "/etc/kubernetes/admin.conf", "/etc/kubernetes/kubelet.conf",
		"/etc/kubernetes/manifests", "/var/lib/cp/kubernetes", "/var/lib/kubelet", "/var/lib/etcd", "/etc/cni/net.d"))
	inits := m.captured()
	if len(inits) != 1 || !strings.HasSuffix(inits[0], "-init.yaml") {
		t.Fatalf("init-control-plane gave kubeadm %v, want one init configuration", inits)
	}
	out = append(out, renderedConfig{"init-control-plane on " + first, inits[0]})
	checkInitOutputs(t, m, first, c.server, started)

	// generate-join-token on the first master: a fresh token, the same CA.
	tokOut := filepath.Join(m.root, ".out")
	for _, f := range []string{"kubeadm.join_token", "kubeadm.ca_cert_hash"} {
		if err := os.Remove(filepath.Join(tokOut, f)); err != nil {
			t.Fatal(err)
		}
	}
	firstToken := m.read("/var/lib/cp/kubernetes/join-token-id")
	ok(m, "generate-join-token", m.run("kubernetes/scripts/generate-join-token.sh", env, "/var/lib/cp/kubernetes"))
	if m.read("/var/lib/cp/kubernetes/join-token-id") == firstToken {
		t.Errorf("generate-join-token kept the token id %s", firstToken)
	}
	checkJoinArtifacts(t, m, c.server)

	arts := map[string]string{}
	for _, id := range []string{"kubeadm.join_token", "kubeadm.ca_cert_hash", "kubeadm.certificate_key"} {
		arts[id] = m.read("/.out/" + id)
	}
	// join-node on every other host.
	join := func(host, role string) {
		j := newKubeadmHost(t, bin)
		ok(j, "join-node on "+host, j.run("kubernetes/scripts/join-node.sh", j.env(j.artifactEnv(base(host, role), arts)), retryPaths...))
		files := j.captured()
		if len(files) != 1 || !strings.HasSuffix(files[0], "-join.yaml") {
			t.Fatalf("join-node on %s gave kubeadm %v, want one join configuration", host, files)
		}
		out = append(out, renderedConfig{"join-node on " + host + " (" + role + ")", files[0]})
	}
	for _, h := range masters[1:] {
		join(h, "master")
	}
	for _, h := range workers {
		join(h, "worker")
	}
	return out, lifted
}

// checkInitOutputs: the artifacts init-control-plane wrote come from the
// PKI and kubeconfig kubeadm wrote.
func checkInitOutputs(t *testing.T, m *kubeadmHost, host, server string, started time.Time) {
	t.Helper()
	if !m.exists("/etc/kubernetes/admin.conf") || !m.exists("/etc/kubernetes/pki/ca.crt") {
		t.Fatal("kubeadm wrote no /etc/kubernetes/admin.conf or /etc/kubernetes/pki/ca.crt, which init-control-plane's evidence tests")
	}
	ca := m.read("/etc/kubernetes/pki/ca.crt")
	admin := m.read("/.out/kubeconfig.admin")
	if admin != m.read("/etc/kubernetes/admin.conf") {
		t.Error("kubeconfig.admin is not /etc/kubernetes/admin.conf")
	}
	checkAdminKubeconfig(t, admin, ca, "https://"+server)
	h, _, err := net.SplitHostPort(server)
	if err != nil {
		t.Fatal(err)
	}
	checkServingNames(t, m.read("/etc/kubernetes/pki/apiserver.crt"), h, hostAddress(host), host, "kubernetes.default.svc")
	if got, want := m.read("/.out/cluster_ca_certificate_ref"), host+":/etc/kubernetes/pki/ca.crt\n"; got != want {
		t.Errorf("cluster_ca_certificate_ref = %q, want %q", got, want)
	}
	key := strings.TrimSpace(m.read("/.out/kubeadm.certificate_key"))
	if !regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(key) {
		t.Errorf("kubeadm.certificate_key = %q, want kubeadm's 64 hex digits", key)
	}
	checkJoinArtifacts(t, m, server)
	if exp := tokenExpiry(t, m.read("/.kubeadm/token-create.out")); exp.Before(started.Add(24*time.Hour-time.Minute)) || exp.After(time.Now().Add(24*time.Hour+time.Minute)) {
		t.Errorf("the join token expires at %s, want 24h after %s", exp, started)
	}
}

// checkJoinArtifacts: the token and CA hash a script wrote are the ones
// kubeadm printed, and the hash is that of ca.crt.
func checkJoinArtifacts(t *testing.T, m *kubeadmHost, server string) {
	t.Helper()
	token := strings.TrimSpace(m.read("/.out/kubeadm.join_token"))
	hash := strings.TrimSpace(m.read("/.out/kubeadm.ca_cert_hash"))
	if want := caCertHash(t, m.read("/etc/kubernetes/pki/ca.crt")); hash != want {
		t.Errorf("kubeadm.ca_cert_hash = %s, want %s (SHA-256 of ca.crt's public key)", hash, want)
	}
	id := strings.TrimSpace(m.read("/var/lib/cp/kubernetes/join-token-id"))
	if tid, _, _ := strings.Cut(token, "."); tid != id || len(id) != 6 {
		t.Errorf("join-token-id = %q, want the id of token %s", id, token)
	}
	printed := m.read("/.kubeadm/token-create.out")
	if want := fmt.Sprintf("kubeadm join %s --token %s --discovery-token-ca-cert-hash %s", server, token, hash); !strings.Contains(printed, want) {
		t.Errorf("kubeadm printed no %q:\n%s", want, printed)
	}
}

// validateConfig runs `kubeadm config validate` on a rendered file. A
// lifted configuration holding a kubernetesVersion must be refused for
// that version alone, and accepted with kubeadm's own version. It tells
// whether the configuration passed.
func validateConfig(t *testing.T, bin string, rc renderedConfig, lifted bool) bool {
	t.Helper()
	body := readFile(t, rc.file)
	out, err := kubeadmOut(t, bin, "config", "validate", "--config", rc.file)
	versionRE := regexp.MustCompile(`(?m)^kubernetesVersion: ".*"$`)
	if !lifted || !versionRE.MatchString(body) {
		if err != nil || !strings.Contains(out, "ok") {
			t.Errorf("kubeadm config validate refuses the configuration of %s (%v):\n%s\n--- %s\n%s", rc.name, err, out, filepath.Base(rc.file), body)
			return false
		}
		return true
	}
	const tooOld = "this version of kubeadm only supports deploying clusters with the control plane version >= "
	if err == nil || !strings.Contains(out, tooOld) || len(regexp.MustCompile(`(?m)^error: `).FindAllString(out, -1)) != 1 {
		t.Errorf("kubeadm config validate on %s: %v, want only %q:\n%s", rc.name, err, tooOld, out)
		return false
	}
	own := filepath.Join(t.TempDir(), "own-version.yaml")
	if err := os.WriteFile(own, []byte(versionRE.ReplaceAllString(body, `kubernetesVersion: "`+kubeadmRequired(t)+`"`)), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := kubeadmOut(t, bin, "config", "validate", "--config", own); err != nil || !strings.Contains(out, "ok") {
		t.Errorf("kubeadm config validate refuses the configuration of %s with kubernetesVersion %s (%v):\n%s\n%s", rc.name, kubeadmRequired(t), err, out, body)
		return false
	}
	return true
}

// TestKubeadmValidateRendered: every kubeadm configuration the kubernetes
// pack's scripts render, for every cluster shape, passes the real
// `kubeadm config validate`.
func TestKubeadmValidateRendered(t *testing.T) {
	bin := kubeadmBinary(t)
	for _, name := range protocol.SortedKeys(kubeadmClusters) {
		c := kubeadmClusters[name]
		t.Run(name, func(t *testing.T) {
			configs, lifted := renderCluster(t, bin, c)
			if want := 2 + c.masters - 1 + c.workers; len(configs) != want {
				t.Fatalf("%d configurations rendered, want %d", len(configs), want)
			}
			for _, rc := range configs {
				if validateConfig(t, bin, rc, lifted) {
					t.Logf("valid: %s: %s", rc.name, apiKinds(t, rc.file))
				}
			}
		})
	}
}

// apiKinds lists a file's documents as apiVersion/kind.
func apiKinds(t *testing.T, file string) string {
	t.Helper()
	var kinds []string
	for _, d := range yamlDocs(t, readFile(t, file)) {
		kinds = append(kinds, fmt.Sprintf("%v %v", d["apiVersion"], d["kind"]))
	}
	return strings.Join(kinds, " + ")
}

// TestKubeadmValidateRefusesWrongField: the validation above has teeth; a
// misspelt field in any rendered configuration (init, join as worker and
// as control plane, v1beta3 and v1beta4) is refused.
func TestKubeadmValidateRefusesWrongField(t *testing.T) {
	bin := kubeadmBinary(t)
	for _, name := range []string{"ha-load-balancer", "v1beta3"} {
		c := kubeadmClusters[name]
		configs, _ := renderCluster(t, bin, c)
		for _, rc := range configs {
			body := readFile(t, rc.file)
			field := "nodeRegistration:"
			if !strings.Contains(body, field) {
				field = "networking:" // the ClusterConfiguration alone
			}
			bad := strings.Replace(body, field, strings.TrimSuffix(field, ":")+"X:", 1)
			file := filepath.Join(t.TempDir(), "wrong-field.yaml")
			if err := os.WriteFile(file, []byte(bad), 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := kubeadmOut(t, bin, "config", "validate", "--config", file)
			if want := `unknown field "` + strings.TrimSuffix(field, ":") + `X"`; err == nil || !strings.Contains(out, want) {
				t.Errorf("%s %s with %sX: kubeadm config validate: %v, want %s:\n%s", name, rc.name, field, err, want, out)
			}
		}
	}
}
