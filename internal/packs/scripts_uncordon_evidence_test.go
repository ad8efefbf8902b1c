package packs

import "testing"

// TestUncordonNodeEvidence: upgrade-node's former node_schedulable held
// whenever kubectl exited 0, cordoned or not. The worker upgrade's
// uncordon-node evidence, node_schedulable_and_upgraded, holds only for
// a schedulable node whose kubelet runs kubernetes_version: a node left
// cordoned, one on the old version and an API server that does not answer
// fail it.
func TestUncordonNodeEvidence(t *testing.T) {
	const file = "kubernetes/jobs/uncordon-node.yaml"
	for _, c := range []struct {
		name, kubectl string
		ok            bool
	}{
		{"schedulable and upgraded", `printf '/v1.31.2'`, true},
		{"still cordoned", `printf 'true/v1.31.2'`, false},
		{"old kubelet", `printf '/v1.30.5'`, false},
		{"API server down", apiDown, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newScriptHost(t)
			h.stub("kubectl", c.kubectl)
			env := h.artifactEnv(packEnv(t, "kubernetes", map[string]string{"kubernetes_version": "1.31.2"}), map[string]string{"kubeconfig.admin": "apiVersion: v1\n"})
			if ok, got := h.evidence(file, "node_schedulable_and_upgraded", env); ok != c.ok {
				t.Errorf("node_schedulable_and_upgraded = %v (%q), want %v", ok, got, c.ok)
			}
		})
	}
}
