package hostsim

import (
	"strings"
	"testing"
)

// The pinned Cilium chart: helm pull from Cilium's repository writes the
// release's real archive (its Chart.yaml names cilium 1.19.6), and helm
// upgrade of that archive installs Cilium, whose agents make the node
// Ready. Another version gets the simulator's own archive.
func TestHelmPullPinnedCilium(t *testing.T) {
	e := newEnv(t)
	initCluster(t, e, false)
	e.must("master-1", "helm", "pull", "cilium", "--repo", PinnedCiliumRepo, "--version", PinnedCiliumVersion, "--destination", "/root/c")
	got := e.file("master-1", "/root/c/cilium-"+PinnedCiliumVersion+".tgz")
	if got != string(PinnedCiliumChart()) {
		t.Fatalf("helm pull of the pinned chart wrote %d bytes, not the release's %d", len(got), len(PinnedCiliumChart()))
	}
	if n, v, err := chartMeta([]byte(got)); err != nil || n != "cilium" || v != PinnedCiliumVersion {
		t.Fatalf("pinned archive: chart %q version %q (%v)", n, v, err)
	}
	e.must("master-1", "helm", "upgrade", "--install", "cilium", "/root/c/cilium-"+PinnedCiliumVersion+".tgz", "--namespace", "kube-system",
		"--kubeconfig", "/etc/kubernetes/admin.conf", "--set", "ipam.mode=kubernetes", "--wait", "--timeout", "10m")
	if r := e.must("master-1", "kubectl", "--kubeconfig", "/etc/kubernetes/admin.conf", "get", "node", "master-1", "-o",
		`jsonpath={.status.conditions[?(@.type=="Ready")].status}`); r.out != "True" {
		t.Errorf("master-1 Ready = %q after installing the pinned cilium chart", r.out)
	}
	e.must("master-1", "helm", "pull", "cilium", "--repo", PinnedCiliumRepo, "--version", "1.18.0", "--destination", "/root/d")
	if other := e.file("master-1", "/root/d/cilium-1.18.0.tgz"); other == string(PinnedCiliumChart()) || other == "" {
		t.Errorf("another cilium version got the pinned archive (or none)")
	}
}

// The pinned flannel release: curl serves the tag's real
// Documentation/kube-flannel.yml, which kubectl apply applies as flannel.
func TestCurlPinnedFlannel(t *testing.T) {
	e := newEnv(t)
	initCluster(t, e, false)
	e.must("master-1", "curl", "-fsSL", "-o", "/tmp/m/kube-flannel.yml", PinnedFlannelURL)
	got := e.file("master-1", "/tmp/m/kube-flannel.yml")
	if got != string(pinnedFlannel) || !strings.Contains(got, "image: ghcr.io/flannel-io/flannel:v0.28.9") {
		t.Fatalf("the pinned flannel manifest is not the release's bytes (%d bytes)", len(got))
	}
	e.must("master-1", "kubectl", "--kubeconfig", "/etc/kubernetes/admin.conf", "apply", "-f", "/tmp/m/kube-flannel.yml")
	if r := e.must("master-1", "kubectl", "--kubeconfig", "/etc/kubernetes/admin.conf", "get", "node", "master-1", "-o",
		`jsonpath={.status.conditions[?(@.type=="Ready")].status}`); r.out != "True" {
		t.Errorf("master-1 Ready = %q after applying the pinned flannel manifest", r.out)
	}
}
