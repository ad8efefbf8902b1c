package testhosts

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/hostsim"
)

func TestSimulatorThroughSSH(t *testing.T) {
	c := Require(t, Options{Names: []string{"sim-master", "sim-worker"}, Simulator: true, SimulatorCluster: "demo"})
	m, _ := c.Host("sim-master")
	w, _ := c.Host("sim-worker")
	// containerd is Debian's real package, installed on the machine (so
	// apt-get finds it installed): the host starts its real daemon.
	prep := "command -v kubeadm && exit 9; sudo apt-get install -y containerd kubeadm kubelet kubectl >/dev/null && sudo sysctl -w net.ipv4.ip_forward=1 >/dev/null && sudo systemctl enable --now containerd 2>/dev/null && systemctl is-active containerd"
	for _, h := range []Host{m, w} {
		if out, err := runSSH(t, h, prep); err != nil || strings.TrimSpace(out) != "active" {
			t.Fatalf("prepare %s: %v\n%s", h.Name, err, out)
		}
	}
	out, err := runSSH(t, m, "sudo kubeadm init")
	if err != nil {
		t.Fatalf("kubeadm init: %v\n%s", err, out)
	}
	join := regexp.MustCompile(`kubeadm join (\S+) --token (\S+) \\\s+--discovery-token-ca-cert-hash (\S+)`).FindStringSubmatch(out)
	if join == nil || !strings.HasPrefix(join[1], m.Addr+":") {
		t.Fatalf("no join command for %s in:\n%s", m.Addr, out)
	}
	if out, err := runSSH(t, w, "sudo kubeadm join "+join[1]+" --token "+join[2]+" --discovery-token-ca-cert-hash "+join[3]); err != nil {
		t.Fatalf("kubeadm join: %v\n%s", err, out)
	}
	out, err = runSSH(t, m, "sudo kubectl --kubeconfig /etc/kubernetes/admin.conf get nodes -o name")
	if err != nil || out != "node/sim-master\nnode/sim-worker\n" {
		t.Fatalf("get nodes: %q %v", out, err)
	}
	// admin.conf is root's: the login user is refused like on a real host.
	if out, err := runSSH(t, m, "kubectl --kubeconfig /etc/kubernetes/admin.conf get nodes"); err == nil || !strings.Contains(out, "permission denied") {
		t.Fatalf("non-root kubectl with admin.conf: %q %v; want permission denied", out, err)
	}
	// The kubeconfig landed only on the master.
	if _, err := os.Stat(filepath.Join(m.Upper, "etc/kubernetes/admin.conf")); err != nil {
		t.Fatalf("admin.conf not in master's upper dir: %v", err)
	}
	if _, err := os.Stat(filepath.Join(w.Upper, "etc/kubernetes/admin.conf")); !os.IsNotExist(err) {
		t.Fatalf("admin.conf on the worker: %v", err)
	}
	// A DNS fault is written into the running host's resolv.conf.
	if err := c.SetFault(hostsim.Fault{Kind: hostsim.FaultDNS, Host: "sim-worker"}); err != nil {
		t.Fatal(err)
	}
	if out, _ := runSSH(t, w, "cat /etc/resolv.conf; sudo crictl pull nginx"); !strings.Contains(out, "nameserver "+hostsim.BrokenNameserver) || !strings.Contains(out, "lookup registry") {
		t.Fatalf("dns fault on sim-worker: %q", out)
	}
	if out, err := runSSH(t, w, "echo 'nameserver 10.1.1.1' | sudo tee /etc/resolv.conf >/dev/null && sudo crictl pull nginx"); err != nil {
		t.Fatalf("pull after fixing resolv.conf: %v %s", err, out)
	}
	log, err := c.SimLog("sim-master")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, l := range log {
		if strings.Contains(l, " kubeadm init") {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("kubeadm init logged %d times on sim-master; want 1\n%s", n, strings.Join(log, "\n"))
	}
}
