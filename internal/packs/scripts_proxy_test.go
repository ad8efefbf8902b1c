package packs

import (
	"os"
	"strings"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// proxyPaths are the host paths configure-proxy writes.
var proxyPaths = []string{"/etc/apt/apt.conf.d", "/etc/systemd/system/containerd.service.d", "/etc/cp/kubernetes", "/var/lib/cp/kubernetes"}

const proxyJob = "kubernetes/jobs/configure-proxy.yaml"

func proxyEnv(t *testing.T, set map[string]string) map[string]string {
	env := packEnv(t, "kubernetes", set)
	env[protocol.EnvHosts] = "master-1 10.0.0.11 master,worker-1 10.0.0.21 worker"
	return env
}

// proxyEvidence runs every evidence of configure-proxy and returns the
// ones that fail.
func proxyEvidence(h *scriptHost, env map[string]string) []string {
	var failed []string
	for id, paths := range map[string][]string{
		"proxy_files_unchanged":   {"/var/lib/cp/kubernetes/proxy.sums", "/etc/apt/apt.conf.d/90cp-proxy", "/etc/systemd/system/containerd.service.d/http-proxy.conf"},
		"apt_proxy_configured":    {"/etc/apt/apt.conf.d/90cp-proxy"},
		"no_proxy_covers_cluster": {"/etc/systemd/system/containerd.service.d/http-proxy.conf"},
	} {
		if ok, out := h.evidence(proxyJob, id, env, paths...); !ok {
			failed = append(failed, id+": "+out)
		}
	}
	return failed
}

// configure-proxy writes apt's and containerd's proxy and the jobs'
// environment, with a NO_PROXY holding the user's entries, every host's
// SSH and node address, the endpoint, the networks and the cluster names,
// sorted; its evidence holds, and fails once a file is changed.
func TestConfigureProxyWritesAptContainerdAndJobEnv(t *testing.T) {
	h := newScriptHost(t)
	env := proxyEnv(t, map[string]string{
		"http_proxy": "http://proxy.corp.internal:3128", "https_proxy": "http://proxy.corp.internal:3129/%7Ecp",
		"no_proxy": ".corp.internal,192.168.0.0/16", "node_addresses": "master-1=172.16.0.11",
		"control_plane_endpoint": "api.prod.internal:6443",
	})
	res := h.run("kubernetes/scripts/configure-proxy.sh", env, proxyPaths...)
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	wantNoProxy := ".cluster.local,.corp.internal,.svc,10.0.0.11,10.0.0.21,10.244.0.0/16,10.96.0.0/12,127.0.0.1,172.16.0.11,192.168.0.0/16,::1,api.prod.internal,localhost"
	if got, want := h.read("/etc/apt/apt.conf.d/90cp-proxy"), "// Written by the kubernetes pack (configure-proxy).\n"+
		"Acquire::http::Proxy \"http://proxy.corp.internal:3128\";\nAcquire::https::Proxy \"http://proxy.corp.internal:3129/%7Ecp\";\n"; got != want {
		t.Errorf("apt.conf got:\n%s\nwant:\n%s", got, want)
	}
	if got, want := h.read("/etc/systemd/system/containerd.service.d/http-proxy.conf"), "# Written by the kubernetes pack (configure-proxy).\n[Service]\n"+
		"Environment=\"HTTP_PROXY=http://proxy.corp.internal:3128\"\nEnvironment=\"HTTPS_PROXY=http://proxy.corp.internal:3129/%%7Ecp\"\n"+
		"Environment=\"NO_PROXY="+wantNoProxy+"\"\n"; got != want {
		t.Errorf("containerd drop-in got:\n%s\nwant:\n%s", got, want)
	}
	envFile := h.read("/etc/cp/kubernetes/proxy.env")
	for _, line := range []string{"HTTPS_PROXY=http://proxy.corp.internal:3129/%7Ecp", "https_proxy=http://proxy.corp.internal:3129/%7Ecp",
		"HTTP_PROXY=http://proxy.corp.internal:3128", "NO_PROXY=" + wantNoProxy, "no_proxy=" + wantNoProxy} {
		if !strings.Contains(envFile, line+"\n") {
			t.Errorf("proxy.env lacks %q:\n%s", line, envFile)
		}
	}
	if st, err := os.Stat(h.path("/etc/cp/kubernetes/proxy.env")); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("proxy.env: %v, mode %v; want 0600", err, st.Mode())
	}
	if calls := h.log(h.calls); !strings.Contains(calls, "systemctl daemon-reload\n") || !strings.Contains(calls, "systemctl restart containerd\n") {
		t.Errorf("containerd's new drop-in was not loaded (daemon-reload, restart):\n%s", calls)
	}
	if failed := proxyEvidence(h, env); len(failed) > 0 {
		t.Errorf("evidence failed after the run: %v", failed)
	}
	h.write("/etc/apt/apt.conf.d/90cp-proxy", "Acquire::http::Proxy \"http://other:3128\";\n")
	if failed := proxyEvidence(h, env); len(failed) != 2 {
		t.Errorf("after apt's file changed, got failing evidence %v, want proxy_files_unchanged and apt_proxy_configured", failed)
	}
	// A second run with the same settings rewrites apt's file and leaves
	// containerd alone.
	if err := os.Remove(h.calls); err != nil {
		t.Fatal(err)
	}
	if res := h.run("kubernetes/scripts/configure-proxy.sh", env, proxyPaths...); res.code != 0 {
		t.Fatalf("second run: exit %d: %s", res.code, res.stderr)
	}
	if calls := h.log(h.calls); strings.Contains(calls, "restart containerd") {
		t.Errorf("an unchanged drop-in restarted containerd:\n%s", calls)
	}
	if failed := proxyEvidence(h, env); len(failed) > 0 {
		t.Errorf("evidence failed after the second run: %v", failed)
	}
	// A host missing from NO_PROXY fails the coverage evidence.
	env[protocol.EnvHosts] += ",worker-2 10.0.0.22 worker"
	if ok, out := h.evidence(proxyJob, "no_proxy_covers_cluster", env, "/etc/systemd/system/containerd.service.d/http-proxy.conf"); ok || !strings.Contains(out, "10.0.0.22") {
		t.Errorf("no_proxy_covers_cluster with a host left out: ok %v, %q", ok, out)
	}
}

// https_proxy defaults to http_proxy; without either, the files are
// removed and the evidence holds on their absence.
func TestConfigureProxyDefaultsAndRemoval(t *testing.T) {
	h := newScriptHost(t)
	env := proxyEnv(t, map[string]string{"http_proxy": "http://10.1.2.3:8080"})
	if res := h.run("kubernetes/scripts/configure-proxy.sh", env, proxyPaths...); res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	if got := h.read("/etc/apt/apt.conf.d/90cp-proxy"); !strings.Contains(got, "Acquire::https::Proxy \"http://10.1.2.3:8080\";") {
		t.Errorf("https_proxy did not default to http_proxy:\n%s", got)
	}
	off := proxyEnv(t, nil)
	if failed := proxyEvidence(h, off); len(failed) == 0 {
		t.Error("with the proxy taken out of the parameters, the evidence still holds on the old files")
	}
	if res := h.run("kubernetes/scripts/configure-proxy.sh", off, proxyPaths...); res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	for _, p := range []string{"/etc/apt/apt.conf.d/90cp-proxy", "/etc/systemd/system/containerd.service.d/http-proxy.conf", "/etc/cp/kubernetes/proxy.env"} {
		if h.exists(p) {
			t.Errorf("%s kept without a proxy", p)
		}
	}
	if failed := proxyEvidence(h, off); len(failed) > 0 {
		t.Errorf("evidence without a proxy: %v", failed)
	}
}

// A value that would break out of a quoted string, an Environment= line
// or a list entry is refused before anything is written.
func TestConfigureProxyRefusesUnsafeValues(t *testing.T) {
	for name, set := range map[string]map[string]string{
		"quote in url":      {"http_proxy": `http://p:3128/"x`},
		"newline in url":    {"https_proxy": "http://p:3128\nEnvironment=LD_PRELOAD=/x"},
		"space in url":      {"http_proxy": "http://p:3128 x"},
		"backslash in url":  {"http_proxy": `http://p:3128\x`},
		"not http":          {"http_proxy": "socks5://p:1080"},
		"comma in url":      {"http_proxy": "http://p:3128,x"},
		"bad no_proxy":      {"http_proxy": "http://p:3128", "no_proxy": `a"b`},
		"space in no_proxy": {"http_proxy": "http://p:3128", "no_proxy": "a b"},
		"newline in list":   {"http_proxy": "http://p:3128", "no_proxy": ".x\n[Service]"},
	} {
		t.Run(name, func(t *testing.T) {
			h := newScriptHost(t)
			res := h.run("kubernetes/scripts/configure-proxy.sh", proxyEnv(t, set), proxyPaths...)
			if res.code == 0 {
				t.Fatal("accepted")
			}
			for _, p := range []string{"/etc/apt/apt.conf.d/90cp-proxy", "/etc/systemd/system/containerd.service.d/http-proxy.conf", "/etc/cp/kubernetes/proxy.env"} {
				if h.exists(p) {
					t.Errorf("%s written", p)
				}
			}
		})
	}
}

// The scripts that run curl, helm and kubectl export the proxy
// configure-proxy wrote, and refuse a tampered value.
func TestProxyEnvReachesCurlHelmKubectl(t *testing.T) {
	for _, script := range []string{"install-kubernetes-packages.sh", "install-cni.sh", "install-storage.sh", "validate-credentials.sh", "prepare-kubernetes-prerequisites.sh"} {
		body := readScript(t, "kubernetes/scripts/"+script)
		if !strings.Contains(body, "done </etc/cp/kubernetes/proxy.env") || !strings.Contains(body, `export "${k?}=$v"`) {
			t.Errorf("%s does not read /etc/cp/kubernetes/proxy.env", script)
		}
	}
	h := newScriptHost(t)
	h.write("/etc/cp/kubernetes/proxy.env", "HTTPS_PROXY=http://proxy.internal:3128\nNO_PROXY=.svc,10.0.0.11\nLD_PRELOAD=/tmp/x\n")
	stub := "#!/bin/sh\necho \"helm HTTPS_PROXY=$HTTPS_PROXY NO_PROXY=$NO_PROXY LD_PRELOAD=${LD_PRELOAD:-}\" >>\"$CP_TEST_CALLS\"\n"
	if err := os.WriteFile(h.bin+"/helm", []byte(stub), 0o755); err != nil {
		t.Fatal(err)
	}
	env := packEnv(t, "kubernetes", map[string]string{"storage": "longhorn"})
	res := h.run("kubernetes/scripts/install-storage.sh", env, "/etc/cp/kubernetes/proxy.env")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	if calls := h.log(h.calls); !strings.Contains(calls, "helm HTTPS_PROXY=http://proxy.internal:3128 NO_PROXY=.svc,10.0.0.11 LD_PRELOAD=\n") {
		t.Errorf("helm ran with:\n%s", calls)
	}
	h.write("/etc/cp/kubernetes/proxy.env", "HTTPS_PROXY=http://p\"x\n")
	if res := h.run("kubernetes/scripts/install-storage.sh", env, "/etc/cp/kubernetes/proxy.env"); res.code == 0 {
		t.Error("a quote in proxy.env was exported")
	}
}

// A peer's WireGuard endpoint is its wireguard_endpoints entry, the other
// peers keep their inventory address; an entry that is not name=IPv4 is
// refused before wg0.conf is written.
func TestWireGuardMeshEndpoints(t *testing.T) {
	const script = "kubernetes/scripts/wireguard-mesh.sh"
	h, arts := meshHost(t)
	env := h.artifactEnv(packEnv(t, "kubernetes", map[string]string{"wireguard_endpoints": "node-2=192.168.50.12"}), arts)
	succeeded(t, h.run(script, env, "/etc/wireguard"))
	conf := h.read("/etc/wireguard/wg0.conf")
	if !strings.Contains(conf, "AllowedIPs = 10.200.0.2/32\nEndpoint = 192.168.50.12:51820\n") ||
		!strings.Contains(conf, "Endpoint = [fd00::13]:51820\n") || strings.Contains(conf, "10.0.0.12") {
		t.Errorf("wg0.conf:\n%s\nwant node-2 at 192.168.50.12, node-3 at its inventory address", conf)
	}
	for _, bad := range []string{"node-2=192.168.50.12\nPostUp = x", "node-2=wg.example", "node-2"} {
		h, arts := meshHost(t)
		env := h.artifactEnv(packEnv(t, "kubernetes", map[string]string{"wireguard_endpoints": bad}), arts)
		refused(t, h, h.run(script, env, "/etc/wireguard"), "wireguard_endpoints entry")
		if h.exists("/etc/wireguard/wg0.conf") {
			t.Errorf("%q: wg0.conf written", bad)
		}
	}
}
