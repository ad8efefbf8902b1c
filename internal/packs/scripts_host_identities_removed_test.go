package packs

import (
	"strings"
	"testing"
)

// TestCheckHostIdentitiesOnlyIntentHosts: check-host-identities compares
// the identities of the intent's hosts (CP_HOSTS) only: worker-2, removed
// since, keeps its host.identity in state, and the same machine re-added
// as worker-9 is unique; while worker-2 is a host of the intent, the
// shared machine id fails naming both.
func TestCheckHostIdentitiesOnlyIntentHosts(t *testing.T) {
	const script = "kubernetes/scripts/check-host-identities.sh"
	id := func(c string) string { return strings.Repeat(c, 32) }
	idents := "master-1 " + id("a") + " master-1\nworker-2 " + id("b") + " worker-2\nworker-9 " + id("b") + " worker-9\n"
	h := newScriptHost(t)
	env := h.artifactEnv(map[string]string{"CP_HOSTS": "master-1 10.0.0.1 master,worker-9 10.0.0.9 worker"}, map[string]string{"host.identity": idents})
	succeeded(t, h.run(script, env, "/var/lib/cp"))
	if got := h.read("/var/lib/cp/kubernetes/host-identities"); got != "unique\n" {
		t.Errorf("host-identities = %q, want unique", got)
	}
	h = newScriptHost(t)
	env = h.artifactEnv(map[string]string{"CP_HOSTS": "master-1 10.0.0.1 master,worker-2 10.0.0.2 worker,worker-9 10.0.0.9 worker"}, map[string]string{"host.identity": idents})
	refused(t, h, h.run(script, env, "/var/lib/cp"), "worker-9 and worker-2 share the machine id "+id("b"))
}
