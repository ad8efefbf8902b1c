package packs

import "testing"

// TestVerifyClusterAPIReady: api_health reads the API server's /readyz
// (which includes etcd), not only that nodes are Ready: a /readyz that
// reports a failed check, or no answer, fails it; "ok" holds.
func TestVerifyClusterAPIReady(t *testing.T) {
	const file = "kubernetes/jobs/verify-cluster.yaml"
	env := packEnv(t, "kubernetes", nil)
	for _, c := range []struct {
		name, kubectl string
		ok            bool
	}{
		{"ready", `case " $* " in *" --raw=/readyz "*) printf ok ;; esac`, true},
		{"etcd failing", `case " $* " in *" --raw=/readyz "*) echo 'Error from server (InternalError): an error on the server ("[+]ping ok\n[-]etcd failed: reason withheld\nreadyz check failed") has prevented the request from succeeding' >&2; exit 1 ;; esac`, false},
		{"API server down", apiDown, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newScriptHost(t)
			h.stub("kubectl", c.kubectl)
			if ok, got := h.evidence(file, "api_health", env); ok != c.ok {
				t.Errorf("api_health = %v (%q), want %v", ok, got, c.ok)
			}
		})
	}
	h := newScriptHost(t)
	h.stub("kubectl", apiDown)
	refused(t, h, h.run("kubernetes/scripts/verify-cluster.sh", env), "the API server is not ready")
}
