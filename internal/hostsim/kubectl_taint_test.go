package hostsim

import (
	"strings"
	"testing"
)

// kubectl taint identifies a taint by key and effect: a new value for the
// same key and effect needs --overwrite and replaces the old one;
// "key:Effect-" removes just that taint, "key-" every taint of the key,
// and removing a taint the node does not have is an error. Labels and
// taints read back through jsonpath as the provider's evidence reads them.
func TestKubectlTaintKeyAndEffect(t *testing.T) {
	e := newEnv(t)
	join := initCluster(t, e, true)
	e.prepareNode("worker-1")
	e.must("worker-1", join...)
	taints := func() string {
		return e.must("master-1", "kubectl", "get", "node", "worker-1", "-o", `jsonpath={range .spec.taints[*]}{.key}={.value}:{.effect}{","}{end}`).out
	}
	e.must("master-1", "kubectl", "taint", "node", "worker-1", "dedicated=db:NoSchedule", "gpu:NoExecute")
	if got := taints(); got != "dedicated=db:NoSchedule,gpu=:NoExecute," {
		t.Fatalf("taints = %q", got)
	}
	e.fails("master-1", "already has dedicated taint(s) with same effect(s) and --overwrite is false", "kubectl", "taint", "node", "worker-1", "dedicated=web:NoSchedule")
	e.must("master-1", "kubectl", "taint", "node", "worker-1", "dedicated=web:NoSchedule", "--overwrite")
	e.must("master-1", "kubectl", "taint", "node", "worker-1", "dedicated=web:PreferNoSchedule")
	if got := taints(); got != "gpu=:NoExecute,dedicated=web:NoSchedule,dedicated=web:PreferNoSchedule," {
		t.Fatalf("after overwrite and a second effect: taints = %q", got)
	}
	e.must("master-1", "kubectl", "taint", "node", "worker-1", "dedicated:NoSchedule-")
	if got := taints(); got != "gpu=:NoExecute,dedicated=web:PreferNoSchedule," {
		t.Fatalf("after removing dedicated:NoSchedule: taints = %q", got)
	}
	e.fails("master-1", `taint "dedicated:NoSchedule" not found`, "kubectl", "taint", "node", "worker-1", "dedicated:NoSchedule-")
	e.must("master-1", "kubectl", "taint", "node", "worker-1", "dedicated-", "gpu-")
	if got := taints(); got != "" {
		t.Fatalf("after removing every taint: taints = %q", got)
	}
	e.fails("master-1", "unknown taint effect", "kubectl", "taint", "node", "worker-1", "a=b:Sometimes")

	e.must("master-1", "kubectl", "label", "node", "worker-1", "--overwrite", "tier=app", "example.com/team=")
	e.must("master-1", "kubectl", "label", "node", "worker-1", "--overwrite", "tier=db", "example.com/team-")
	labels := e.must("master-1", "kubectl", "get", "node", "worker-1", "-o", "jsonpath={.metadata.labels}").out
	contains(t, result{out: labels}, `"tier":"db"`, `"kubernetes.io/hostname":"worker-1"`)
	if strings.Contains(labels, `"example.com/team":`) {
		t.Fatalf("removed label still there: %s", labels)
	}
}
