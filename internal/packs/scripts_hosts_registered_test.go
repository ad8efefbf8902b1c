package packs

import (
	"strings"
	"testing"
)

// TestVerifyClusterAllHostsRegistered: the evidence holds when every host
// of the intent is a registered node, also with a node added beside the
// intent (by cp_node), and fails naming a host that is not registered.
func TestVerifyClusterAllHostsRegistered(t *testing.T) {
	const file = "kubernetes/jobs/verify-cluster.yaml"
	hosts := "master-1 10.0.0.1 master,worker-1 10.0.0.2 worker,worker-2 10.0.0.3 worker"
	for _, c := range []struct {
		name, nodes string
		ok          bool
		says        string
	}{
		{"every host", `node/master-1\nnode/worker-1\nnode/worker-2\n`, true, "all-registered"},
		{"and a node cp_node added", `node/master-1\nnode/worker-1\nnode/worker-2\nnode/worker-3\n`, true, "all-registered"},
		{"a host missing", `node/master-1\nnode/worker-1\nnode/worker-3\n`, false, "not registered: worker-2"},
		{"none", ``, false, "not registered: master-1 worker-1 worker-2"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newScriptHost(t)
			h.stub("kubectl", `case " $* " in *" get nodes -o name "*) printf '`+c.nodes+`' ;; esac`)
			ok, got := h.evidence(file, "all_hosts_registered", map[string]string{"CP_HOSTS": hosts})
			if ok != c.ok || !strings.Contains(got, c.says) {
				t.Errorf("all_hosts_registered = %v (%q), want %v saying %q", ok, got, c.ok, c.says)
			}
		})
	}
}
