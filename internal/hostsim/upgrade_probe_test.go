package hostsim

import (
	"strings"
	"testing"
)

// TestUpgradeRewritesStaticPods: kubeadm upgrade apply writes the control
// plane's static Pod manifests of the new version on its host, and
// kubeadm upgrade node does so on another control-plane host (to
// kubeadm-config's version) but not on a worker, so each master's own
// manifest says what its API server runs.
func TestUpgradeRewritesStaticPods(t *testing.T) {
	e := newEnv(t)
	initCluster(t, e, false)
	const manifest = "/etc/kubernetes/manifests/kube-apiserver.yaml"
	contains(t, result{out: e.file("master-1", manifest)}, "image: registry.k8s.io/kube-apiserver:v1.31.2")
	e.must("master-1", "apt-get", "install", "-y", "kubeadm=1.32.0-1.1")
	e.must("master-1", "kubeadm", "upgrade", "apply", "v1.32.0", "-y")
	contains(t, result{out: e.file("master-1", manifest)}, "image: registry.k8s.io/kube-apiserver:v1.32.0")
	contains(t, result{out: e.file("master-1", "/etc/kubernetes/manifests/etcd.yaml")}, "image: registry.k8s.io/etcd:v1.32.0")

	// A control-plane host whose manifest is old follows kubeadm-config.
	e.write("master-1", manifest, strings.Replace(e.file("master-1", manifest), "v1.32.0", "v1.31.2", 1))
	st := e.must("master-1", "kubectl", "--kubeconfig", "/etc/kubernetes/admin.conf", "-n", "kube-system", "get", "configmap", "kubeadm-config",
		"-o", "jsonpath={.data.ClusterConfiguration}")
	contains(t, st, "kubernetesVersion: v1.32.0")
	contains(t, e.must("master-1", "kubeadm", "upgrade", "node"), "control plane instance for this node was successfully updated")
	contains(t, result{out: e.file("master-1", manifest)}, "kube-apiserver:v1.32.0")
}

// TestCurlRegistryProbe: curl of a registry's /v2/ with -o /dev/null and
// -w '%{http_code}' answers 200, exit 6 while DNS is broken; other forms
// of it are not emulated.
func TestCurlRegistryProbe(t *testing.T) {
	e := newEnv(t)
	probe := []string{"curl", "-sS", "--max-time", "10", "-o", "/dev/null", "-w", "%{http_code}", "https://registry.k8s.io/v2/"}
	if r := e.must("w", probe...); r.out != "200" {
		t.Fatalf("registry probe printed %q, want 200", r.out)
	}
	if r := e.must("w", "curl", "-sS", "-o", "/dev/null", "-w", "%{http_code}", "http://10.0.0.5:5000/v2/"); r.out != "200" {
		t.Fatalf("mirror probe printed %q, want 200", r.out)
	}
	e.fails("w", "not emulated: curl", "curl", "-sS", "https://registry.k8s.io/v2/")
	e.write("w", "/etc/resolv.conf", "nameserver 10.0.0.2\n")
	if err := SetFault(e.state, Fault{Kind: FaultDNS}); err != nil {
		t.Fatal(err)
	}
	if r := e.run("w", probe...); r.code != 6 || !strings.Contains(r.err, "Could not resolve host: registry.k8s.io") {
		t.Fatalf("registry probe with dns fault: exit %d %q", r.code, r.err)
	}
}
