package engine

import (
	"io"
	"sync"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// Every instance's script sees what the intent says of its own host and
// of every host, and the bound cluster, though the engine builds the
// shared part once per run.
func TestRunEnvCarriesTheIntentOfEachInstancesHost(t *testing.T) {
	workers := []string{"w1", "w2"}
	n := clusterNet(workers...)
	inner := n.script
	var mu sync.Mutex
	seen := map[string]map[string]string{}
	n.script = func(h *memHost, content string, env map[string]string, out io.Writer) int {
		mu.Lock()
		seen[env[protocol.EnvInstance]] = env
		mu.Unlock()
		return inner(h, content, env, out)
	}
	p := clusterPlan(workers...)
	p.Bindings = []protocol.Binding{{Requirement: protocol.CapabilityRequirement{Key: "kubernetes.cluster"}, Decision: "bind",
		Capability: &protocol.Capability{Key: "kubernetes.cluster", Attributes: map[string]string{"name": "prod-k8s"}}}}
	e, _ := newTestEngine(n, nil)
	res := mustRun(t, e, p, RunInput{})
	if res.Operation.Status != protocol.StatusCompleted {
		t.Fatalf("got: %s want: Completed\n%s%v", res.Operation.Status, statuses(res), res.Err())
	}
	for id, host := range map[string]string{"runtime[m1]": "m1", "runtime[w1]": "w1", "join[w2]": "w2"} {
		env := seen[id]
		want := hostEnv(&p.Intent, host)
		want[protocol.EnvBoundCluster] = "prod-k8s"
		for k, v := range want {
			if env[k] != v {
				t.Errorf("%s: %s=%q want %q", id, k, env[k], v)
			}
		}
		if env[protocol.EnvHostAddress] == "" || env[protocol.EnvHosts] == "" {
			t.Errorf("%s: no host address or host list in %v", id, env)
		}
	}
}
