package hostsim

import (
	"strings"
	"testing"
)

// curl -fsSL -o FILE of calico's or flannel's release manifest writes the
// manifest the simulator knows (CNIManifest) into the host's file, which
// kubectl apply -f FILE applies as that CNI (the node becomes Ready);
// without -o it is not emulated, and a host that cannot resolve names
// gets curl's exit 6.
func TestCurlCNIManifest(t *testing.T) {
	e := newEnv(t)
	initCluster(t, e, false)
	const calico = "https://raw.githubusercontent.com/projectcalico/calico/v3.28.2/manifests/calico.yaml"
	e.must("master-1", "curl", "-fsSL", "-o", "/tmp/m/calico.yaml", calico)
	if got := e.file("master-1", "/tmp/m/calico.yaml"); got != string(CNIManifest("calico")) || !strings.Contains(got, "name: calico-node") {
		t.Fatalf("downloaded manifest:\n%s", got)
	}
	if CNIManifest("cilium") != nil || !strings.Contains(string(CNIManifest("flannel")), "kube-flannel-ds") {
		t.Errorf("CNIManifest serves cilium, or not flannel")
	}
	e.must("master-1", "kubectl", "--kubeconfig", "/etc/kubernetes/admin.conf", "apply", "-f", "/tmp/m/calico.yaml")
	if r := e.must("master-1", "kubectl", "--kubeconfig", "/etc/kubernetes/admin.conf", "get", "node", "master-1", "-o",
		`jsonpath={.status.conditions[?(@.type=="Ready")].status}`); r.out != "True" {
		t.Errorf("master-1 Ready = %q after applying the downloaded calico manifest", r.out)
	}
	// The release the kubernetes pack pins: its real bytes, which apply
	// as calico.
	e2 := newEnv(t)
	initCluster(t, e2, false)
	e2.must("master-1", "curl", "-fsSL", "-o", "/tmp/m/calico.yaml", PinnedCalicoURL)
	if got := e2.file("master-1", "/tmp/m/calico.yaml"); got != string(pinnedCalico) || !strings.Contains(got, "image: quay.io/calico/node:v3.31.7") {
		t.Fatalf("the pinned release's manifest is not its real bytes (%d bytes)", len(got))
	}
	e2.must("master-1", "kubectl", "--kubeconfig", "/etc/kubernetes/admin.conf", "apply", "-f", "/tmp/m/calico.yaml")
	if r := e2.must("master-1", "kubectl", "--kubeconfig", "/etc/kubernetes/admin.conf", "get", "node", "master-1", "-o",
		`jsonpath={.status.conditions[?(@.type=="Ready")].status}`); r.out != "True" {
		t.Errorf("master-1 Ready = %q after applying the pinned calico manifest", r.out)
	}
	if r := e.run("master-1", "curl", "-fsSL", calico); r.code != 2 || !strings.Contains(r.err, "not emulated") {
		t.Errorf("curl of the manifest to stdout: exit %d %s", r.code, r.err)
	}
	if err := SetFault(e.state, Fault{Kind: FaultDNS}); err != nil {
		t.Fatal(err)
	}
	if r := e.run("master-1", "curl", "-fsSL", "-o", "/tmp/m/again.yaml", calico); r.code != 6 || !strings.Contains(r.err, "Could not resolve host: raw.githubusercontent.com") {
		t.Errorf("curl with the dns fault: exit %d %q", r.code, r.err)
	}
}
