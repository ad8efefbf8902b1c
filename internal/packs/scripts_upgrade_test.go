package packs

import (
	"path/filepath"
	"strings"
	"testing"
)

const apiserverManifest = "/etc/kubernetes/manifests/kube-apiserver.yaml"

func manifestOf(version string) string {
	return "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - command:\n    - kube-apiserver\n    image: registry.k8s.io/kube-apiserver:" + version + "\n    name: kube-apiserver\n"
}

// upgradeHost is a master whose static Pod manifest names have, whose
// kubelet reports kubelet, and whose cluster the load balancer answers
// for with an API server of lb; kubeadm-config names cluster. kubeadm
// upgrade rewrites the manifest to kubeadm-config's version (upgrade
// node) or its argument (upgrade apply).
func upgradeHost(t *testing.T, host, have, kubelet, lb, cluster string) (*scriptHost, map[string]string) {
	h := newScriptHost(t)
	h.write(apiserverManifest, manifestOf(have))
	h.write("/etc/apt/sources.list.d/.keep", "")
	h.write("/etc/apt/keyrings/.keep", "")
	state := filepath.Join(h.root, ".kubelet-version")
	h.write("/.kubelet-version", kubelet)
	h.stub("kubectl", `case " $* " in
  *"kubeletVersion"*) cat "`+state+`" ;;
  *" --raw=/version "*) printf '{\n  "gitVersion": "%s"\n}\n' "`+lb+`" ;;
  *" configmap kubeadm-config "*) printf 'apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\nkubernetesVersion: %s\n' "`+cluster+`" ;;
esac`)
	m := h.path(apiserverManifest)
	h.stub("kubeadm", `case " $* " in
  *" upgrade apply "*) sed -i "s/kube-apiserver:v[0-9.]*/kube-apiserver:$4/" "`+m+`" ;;
  *" upgrade node "*) sed -i "s/kube-apiserver:v[0-9.]*/kube-apiserver:`+cluster+`/" "`+m+`" ;;
esac`)
	h.stub("apt-get", `case " $* " in *" kubelet="*) printf 'v%s' "${CP_PARAM_KUBERNETES_VERSION#v}" >"`+state+`" ;; esac`)
	env := packEnv(t, "kubernetes", map[string]string{"kubernetes_version": "1.34.2"})
	env["CP_HOST"], env["CP_HOST_ROLE"], env["CP_FIRST_MASTER"] = host, "master", "m-1"
	return h, env
}

var upgradePaths = []string{"/etc/kubernetes/manifests", "/etc/apt"}

// TestUpgradeControlPlaneReadsItsOwnAPIServer: a second master is
// upgraded once kubeadm-config names the version, though the load
// balancer answers from an API server still on the old version; its own
// manifest says what it runs, before and after, and the evidence reads it.
func TestUpgradeControlPlaneReadsItsOwnAPIServer(t *testing.T) {
	const script, file = "kubernetes/scripts/upgrade-control-plane.sh", "kubernetes/jobs/upgrade-control-plane.yaml"
	h, env := upgradeHost(t, "m-2", "v1.33.6", "v1.33.6", "v1.33.6", "v1.34.2")
	if ok, got := h.evidence(file, "local_apiserver_version_matches", env, apiserverManifest); ok {
		t.Errorf("evidence holds (%q) before the upgrade", got)
	}
	succeeded(t, h.run(script, env, upgradePaths...))
	calls := h.log(h.calls)
	if !strings.Contains(calls, "kubeadm upgrade node") || strings.Contains(calls, "upgrade apply") {
		t.Errorf("the second master did not run kubeadm upgrade node:\n%s", calls)
	}
	if ok, got := h.evidence(file, "local_apiserver_version_matches", env, apiserverManifest); !ok {
		t.Errorf("evidence fails (%q) after the upgrade", got)
	}

	// A master whose kubelet the API server reports upgraded, but whose
	// own API server is still old, is not skipped.
	h, env = upgradeHost(t, "m-3", "v1.33.6", "v1.34.2", "v1.34.2", "v1.34.2")
	succeeded(t, h.run(script, env, upgradePaths...))
	if calls := h.log(h.calls); !strings.Contains(calls, "kubeadm upgrade node") {
		t.Errorf("a master with an old API server was skipped:\n%s", calls)
	}

	// The first master runs upgrade apply; the others wait for it.
	h, env = upgradeHost(t, "m-1", "v1.33.6", "v1.33.6", "v1.33.6", "v1.33.6")
	succeeded(t, h.run(script, env, upgradePaths...))
	if calls := h.log(h.calls); !strings.Contains(calls, "kubeadm upgrade apply -y v1.34.2") {
		t.Errorf("the first master did not run kubeadm upgrade apply:\n%s", calls)
	}
	h, env = upgradeHost(t, "m-2", "v1.33.6", "v1.33.6", "v1.34.2", "v1.33.6")
	refused(t, h, h.run(script, env, upgradePaths...), "kubeadm-config says the cluster is at v1.33.6")
}

// TestUpgradeSkewRefused: kubeadm upgrades one minor at a time and never
// down; a master or worker further away is refused before any package
// changes, and a worker waits for its control plane.
func TestUpgradeSkewRefused(t *testing.T) {
	const cp, node = "kubernetes/scripts/upgrade-control-plane.sh", "kubernetes/scripts/upgrade-node.sh"
	for _, c := range []struct{ have, want string }{
		{"v1.32.4", "one minor version at a time, so upgrade to 1.33.x first"},
		{"v1.35.0", "is a downgrade"},
	} {
		h, env := upgradeHost(t, "m-1", c.have, c.have, c.have, c.have)
		refused(t, h, h.run(cp, env, upgradePaths...), c.want)
		if calls := h.log(h.calls); strings.Contains(calls, "apt-get") || strings.Contains(calls, "kubeadm upgrade") {
			t.Errorf("master on %s: packages or kubeadm touched:\n%s", c.have, calls)
		}
		h, env = upgradeHost(t, "node-1", c.have, c.have, "v1.34.2", "v1.34.2")
		env["CP_HOST_ROLE"] = "worker"
		refused(t, h, h.run(node, env, "/etc/apt"), c.want)
		if calls := h.log(h.calls); strings.Contains(calls, "apt-get") {
			t.Errorf("worker on %s: packages touched:\n%s", c.have, calls)
		}
	}
	h, env := upgradeHost(t, "node-1", "v1.33.6", "v1.33.6", "v1.33.6", "v1.33.6")
	env["CP_HOST_ROLE"] = "worker"
	refused(t, h, h.run(node, env, "/etc/apt"), "upgrade the masters first")
	h, env = upgradeHost(t, "node-1", "v1.33.6", "v1.33.6", "v1.34.2", "v1.34.2")
	env["CP_HOST_ROLE"] = "worker"
	succeeded(t, h.run(node, env, "/etc/apt"))
}

// TestUpgradeNodeEvidenceNeedsReady: a worker whose kubelet reports the
// version but is not Ready is not upgraded.
func TestUpgradeNodeEvidenceNeedsReady(t *testing.T) {
	const file = "kubernetes/jobs/upgrade-node.yaml"
	env := packEnv(t, "kubernetes", nil)
	for _, c := range []struct {
		ready string
		ok    bool
	}{{"True", true}, {"False", false}, {"Unknown", false}} {
		h := newScriptHost(t)
		h.stub("kubectl", `printf '`+c.ready+`'`)
		if ok, got := h.evidence(file, "node_ready", env, "/etc/kubernetes/kubelet.conf"); ok != c.ok {
			t.Errorf("node_ready with Ready=%s: %v (%q), want %v", c.ready, ok, got, c.ok)
		}
	}
}
