package packs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// stub replaces the harness's stub of a command with body, keeping the
// call log.
func (h *scriptHost) stub(name, body string) {
	h.t.Helper()
	// One write per call, as newScriptHost's stubs: commands of one
	// pipeline do not interleave their log lines.
	script := "#!/bin/sh\n__l=" + name + `; for a in "$@"; do __l="$__l $a"; done; printf '%s\n' "$__l" >>"$CP_TEST_CALLS"` + "\n" + body + "\n"
	if err := os.WriteFile(filepath.Join(h.bin, name), []byte(script), 0o755); err != nil {
		h.t.Fatal(err)
	}
}

// callIndex is the line of the first call holding want, -1 when none.
func callIndex(calls, want string) int {
	for i, l := range strings.Split(calls, "\n") {
		if strings.Contains(l, want) {
			return i
		}
	}
	return -1
}

var retryPaths = []string{"/etc/kubernetes", "/var/lib/cp", "/var/lib/kubelet", "/var/lib/etcd", "/etc/cni/net.d"}

// initHost is a first master on which the API server answers /readyz
// only once kubeadm init ran (or from the start when up).
func initHost(t *testing.T, up bool) (*scriptHost, map[string]string) {
	h := newScriptHost(t)
	h.stub("sleep", ``)
	flag := filepath.Join(h.root, ".api-up")
	if up {
		h.write("/.api-up", "")
	}
	h.stub("kubectl", `case " $* " in
  *" --raw=/readyz "*) [ -e "`+flag+`" ] || { echo 'The connection to the server 10.0.0.10:6443 was refused' >&2; exit 1; } ;;
esac`)
	h.stub("kubeadm", `case " $* " in
  *" reset "*) rm -rf "`+h.root+`/etc/kubernetes/manifests" "`+h.root+`/etc/kubernetes/admin.conf" ;;
  *" upload-certs "*) printf '1%.0s' $(seq 64); echo ;;
  *" init "*) : >"`+flag+`"; echo 'apiVersion: v1' >"`+h.root+`/etc/kubernetes/admin.conf" ;;
  *" token create "*) echo "kubeadm join 10.0.0.10:6443 --token abcdef.0123456789abcdef --discovery-token-ca-cert-hash sha256:$(printf '0%.0s' $(seq 64))" ;;
esac`)
	env := h.artifactEnv(packEnv(t, "kubernetes", nil), map[string]string{
		"kubeadm_cluster_config": "apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\n"})
	env["CP_HOST"], env["CP_HOST_ROLE"], env["CP_HOST_ADDRESS"] = "m-1", "master", "10.0.0.10"
	return h, env
}

// TestInitControlPlaneResetsLeftovers: a kubeadm init that failed left
// its manifests and admin.conf; the retry runs kubeadm reset -f and
// removes the CNI configuration before kubeadm init, which would
// otherwise fail preflight on the files it finds.
func TestInitControlPlaneResetsLeftovers(t *testing.T) {
	const script = "kubernetes/scripts/init-control-plane.sh"
	h, env := initHost(t, false)
	h.write("/etc/kubernetes/manifests/kube-apiserver.yaml", "kind: Pod\n")
	h.write("/etc/kubernetes/admin.conf", "apiVersion: v1\n")
	h.write("/etc/cni/net.d/10-calico.conflist", "{}\n")
	succeeded(t, h.run(script, env, retryPaths...))
	calls := h.log(h.calls)
	reset, init := callIndex(calls, "kubeadm reset -f"), callIndex(calls, "kubeadm init --config")
	if reset < 0 || init < 0 || reset > init {
		t.Fatalf("want kubeadm reset -f before kubeadm init:\n%s", calls)
	}
	if h.exists("/etc/cni/net.d/10-calico.conflist") || !h.exists("/etc/cni/net.d") {
		t.Errorf("after the reset: the CNI configuration kept, or its directory removed (containerd 2.x's CRI stops when it goes)")
	}
	if !h.exists("/var/lib/cp/kubernetes/init-completed") {
		t.Errorf("no init-completed marker after a completed init")
	}
}

// TestInitControlPlaneNeverResetsHealthy: a first master whose API
// answers is neither reset nor initialized again; one whose init
// completed before is not reset while its API is down.
func TestInitControlPlaneNeverResetsHealthy(t *testing.T) {
	const script = "kubernetes/scripts/init-control-plane.sh"
	h, env := initHost(t, true)
	h.write("/etc/kubernetes/manifests/kube-apiserver.yaml", "kind: Pod\n")
	h.write("/etc/kubernetes/admin.conf", "apiVersion: v1\n")
	succeeded(t, h.run(script, env, retryPaths...))
	if calls := h.log(h.calls); strings.Contains(calls, "kubeadm reset") || strings.Contains(calls, "kubeadm init --config") {
		t.Errorf("a healthy control plane was reset or initialized again:\n%s", calls)
	}

	h, env = initHost(t, false)
	h.write("/etc/kubernetes/manifests/kube-apiserver.yaml", "kind: Pod\n")
	h.write("/etc/kubernetes/admin.conf", "apiVersion: v1\n")
	h.write("/var/lib/cp/kubernetes/init-completed", "2026-01-01T00:00:00Z\n")
	refused(t, h, h.run(script, env, retryPaths...), "it is not reset")
	if calls := h.log(h.calls); strings.Contains(calls, "kubeadm reset") || strings.Contains(calls, "kubeadm init") {
		t.Errorf("a control plane that completed its init was reset:\n%s", calls)
	}
}

// joinHost is a worker with a kubelet.conf left by a join; the API
// server answers get node with answer ("registered", "notfound",
// "down").
func joinHost(t *testing.T, answer string) (*scriptHost, map[string]string) {
	h := newScriptHost(t)
	h.write("/etc/kubernetes/kubelet.conf", "apiVersion: v1\n")
	h.write("/etc/cni/net.d/10-calico.conflist", "{}\n")
	get := map[string]string{
		"registered": `echo node/node-1`,
		"notfound":   `echo 'Error from server (NotFound): nodes "node-1" not found' >&2; exit 1`,
		"down":       `echo 'Unable to connect to the server: dial tcp 10.0.0.10:6443: connect: connection refused' >&2; exit 1`,
		"unloadable": `echo 'error: error loading config file "/etc/kubernetes/kubelet.conf": yaml: line 2: mapping values are not allowed in this context' >&2; exit 1`,
	}[answer]
	h.stub("kubectl", `case " $* " in *" get node "*) `+get+` ;; esac`)
	h.stub("kubeadm", `case " $* " in *" reset "*) rm -f "`+h.root+`/etc/kubernetes/kubelet.conf" ;; esac`)
	env := h.artifactEnv(packEnv(t, "kubernetes", nil), map[string]string{
		"kubeadm.join_token": "abcdef.0123456789abcdef\n", "kubeadm.ca_cert_hash": "sha256:" + strings.Repeat("0", 64) + "\n"})
	env["CP_FIRST_MASTER_ADDRESS"] = "10.0.0.10"
	return h, env
}

// TestJoinNodeRetry: after a failed join whose node the API server does
// not know, the retry resets before joining; a registered node is left
// as it is; when the API server does not answer, or the join completed
// before, nothing is reset.
func TestJoinNodeRetry(t *testing.T) {
	const script = "kubernetes/scripts/join-node.sh"
	h, env := joinHost(t, "notfound")
	succeeded(t, h.run(script, env, retryPaths...))
	calls := h.log(h.calls)
	reset, join := callIndex(calls, "kubeadm reset -f"), callIndex(calls, "kubeadm join --config")
	if reset < 0 || join < 0 || reset > join {
		t.Fatalf("want kubeadm reset -f before kubeadm join:\n%s", calls)
	}
	if h.exists("/etc/cni/net.d/10-calico.conflist") || !h.exists("/etc/cni/net.d") || !h.exists("/var/lib/cp/kubernetes/joined") {
		t.Errorf("after the retry: CNI configuration kept (%v), its directory removed (%v), or no joined marker (%v)",
			h.exists("/etc/cni/net.d/10-calico.conflist"), !h.exists("/etc/cni/net.d"), h.exists("/var/lib/cp/kubernetes/joined"))
	}

	// A kubelet.conf that kubectl (and so the kubelet) cannot load is a
	// leftover, not a joined node.
	h, env = joinHost(t, "unloadable")
	succeeded(t, h.run(script, env, retryPaths...))
	if calls := h.log(h.calls); callIndex(calls, "kubeadm reset -f") < 0 || callIndex(calls, "kubeadm join --config") < 0 {
		t.Errorf("an unloadable kubelet.conf was not reset before the join:\n%s", calls)
	}

	h, env = joinHost(t, "registered")
	succeeded(t, h.run(script, env, retryPaths...))
	if calls := h.log(h.calls); strings.Contains(calls, "kubeadm") {
		t.Errorf("a registered node was reset or joined again:\n%s", calls)
	}

	h, env = joinHost(t, "down")
	refused(t, h, h.run(script, env, retryPaths...), "cannot tell whether node-1 joined")
	if calls := h.log(h.calls); strings.Contains(calls, "kubeadm") {
		t.Errorf("a node was reset while the API server did not answer:\n%s", calls)
	}

	h, env = joinHost(t, "notfound")
	h.write("/var/lib/cp/kubernetes/joined", "2026-01-01T00:00:00Z\n")
	refused(t, h, h.run(script, env, retryPaths...), "it is not reset")
	if calls := h.log(h.calls); strings.Contains(calls, "kubeadm") {
		t.Errorf("a node whose join completed was reset:\n%s", calls)
	}
}
