package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/engine"
	"github.com/intentops/terraform-provider-cp/internal/planner"
)

// TestRetriedInitAndJoinReset: a kubeadm init and a kubeadm join that
// failed left their files on the hosts (a static Pod manifest and the
// PKI on the master, a kubelet.conf of no registered node on the worker);
// kubeadm's preflight refuses both, so the create completes only because
// init-control-plane and join-workers reset the leftovers first.
func TestRetriedInitAndJoinReset(t *testing.T) {
	const name = "retry-k8s"
	e := startHosts(t, name, "master-1", "worker-1")
	leave := func(host string, files map[string]string) {
		root, err := e.c.RootPath(host)
		if err != nil {
			t.Fatal(err)
		}
		for p, content := range files {
			full := filepath.Join(root, p)
			if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(full, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	leave("master-1", map[string]string{
		"etc/kubernetes/manifests/kube-apiserver.yaml": "apiVersion: v1\nkind: Pod\n",
		"etc/kubernetes/admin.conf":                    "apiVersion: v1\nkind: Config\n",
		"etc/cni/net.d/10-calico.conflist":             "{}\n",
	})
	leave("worker-1", map[string]string{
		"etc/kubernetes/kubelet.conf": "apiVersion: v1\nkind: Config\n",
		"etc/kubernetes/pki/ca.crt":   "not a certificate\n",
	})
	req := e.clusterRequest("create", "1.34.2", e.intentHosts([]string{"master-1"}, []string{"worker-1"}), nil, planner.State{})
	req.PlanID, req.Intent.ID, req.Intent.TargetResource = name+".create", name, name
	req.Intent.Parameters["cluster_name"] = name
	req.Intent.Parameters["storage"] = "none"
	res := e.runCompleted(e.compose(req).Plan, engine.RunInput{})
	for _, id := range []string{"init-control-plane", "join-workers[worker-1]"} {
		found := false
		for _, in := range res.Instances {
			found = found || (in.ID == id || strings.HasPrefix(in.ID, id+"[")) && in.Status == engine.StatusDone
		}
		if !found {
			t.Errorf("%s did not complete", id)
		}
	}
	for _, host := range []string{"master-1", "worker-1"} {
		if log := strings.Join(e.simLogSince(host, 0), "\n"); !strings.Contains(log, "kubeadm reset -f") {
			t.Errorf("no kubeadm reset -f in the simulator's log of %s:\n%s", host, log)
		}
	}
}
