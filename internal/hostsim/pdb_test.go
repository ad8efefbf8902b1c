package hostsim

import (
	"strings"
	"testing"
)

const webManifest = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      nodeSelector: {kubernetes.io/hostname: worker-1}
      containers: [{name: web, image: nginx}]
`

// A PodDisruptionBudget's status counts the pods it selects and the
// disruptions it allows; kubectl drain evicts the pods placed on the node
// unless a budget allowing no disruption selects them: then it retries
// until --timeout and fails with kubectl's messages, the node cordoned.
// Relaxing the budget lets the same drain through; a node the pods do not
// run on drains at once; without --timeout the blocked drain is refused.
func TestKubectlDrainBlockedByPDB(t *testing.T) {
	e := newEnv(t)
	join := initCluster(t, e, true)
	e.prepareNode("worker-1")
	e.must("worker-1", join...)
	kc := []string{"kubectl", "--kubeconfig", "/etc/kubernetes/admin.conf"}
	kubectl := func(args ...string) []string { return append(append([]string(nil), kc...), args...) }
	e.write("master-1", "/tmp/web.yaml", webManifest)
	e.must("master-1", kubectl("apply", "-f", "/tmp/web.yaml")...)
	e.write("master-1", "/tmp/pdb.yaml", "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: web-pdb, namespace: default}\nspec:\n  minAvailable: 100%\n  selector: {matchLabels: {app: web}}\n")
	e.must("master-1", kubectl("apply", "-f", "/tmp/pdb.yaml")...)
	status := func() string {
		return e.must("master-1", kubectl("get", "pdb", "-n", "default", "-o",
			`jsonpath={range .items[*]}{.metadata.name} {.status.expectedPods} {.status.disruptionsAllowed}{"\n"}{end}`)...).out
	}
	if got := status(); got != "web-pdb 2 0\n" {
		t.Fatalf("pdb status = %q, want web-pdb with 2 expected pods and 0 disruptions allowed", got)
	}
	r := e.fails("master-1", `error: unable to drain node "worker-1"`, kubectl("drain", "worker-1", "--ignore-daemonsets", "--timeout=100ms")...)
	contains(t, r, "node/worker-1 cordoned", "evicting pod default/web-",
		"(will retry after 5s): Cannot evict pod as it would violate the pod's disruption budget.",
		`There are pending pods in node "worker-1" when an error occurred: [error when evicting pods/"web-`, "global timeout reached: 100ms",
		"There are pending nodes to be drained:\n worker-1")
	if n := strings.Count(r.err, "pod/web-"); n != 2 || strings.Contains(r.out, "pod/web-") {
		t.Errorf("want both replicas of web pending on worker-1 and none evicted:\n%s%s", r.out, r.err)
	}
	if got := e.must("master-1", kubectl("get", "node", "worker-1", "-o", "jsonpath={.spec.unschedulable}")...).out; got != "true" {
		t.Errorf("after the blocked drain worker-1 unschedulable = %q, want true", got)
	}
	// No pod of web runs on master-1: its drain evicts only coredns.
	contains(t, e.must("master-1", kubectl("drain", "master-1", "--ignore-daemonsets", "--timeout=100ms")...), "node/master-1 drained")
	e.must("master-1", kubectl("uncordon", "master-1")...)
	// Without --timeout kubectl would retry forever.
	if r := e.run("master-1", kubectl("drain", "worker-1", "--ignore-daemonsets")...); r.code != 2 || !strings.Contains(r.err, "not emulated") {
		t.Errorf("blocked drain without --timeout: exit %d, %s; want 2, not emulated", r.code, r.err)
	}
	// maxUnavailable 50% of 2 allows one disruption: one pod is evicted,
	// the other still held; maxUnavailable 2 lets the drain through.
	pdb := func(max string) {
		e.write("master-1", "/tmp/pdb.yaml", "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: web-pdb, namespace: default}\nspec:\n  maxUnavailable: "+max+"\n  selector: {matchLabels: {app: web}}\n")
		e.must("master-1", kubectl("apply", "-f", "/tmp/pdb.yaml")...)
	}
	pdb(`"50%"`)
	if got := status(); got != "web-pdb 2 1\n" {
		t.Fatalf("pdb status with maxUnavailable 50%% = %q, want 1 disruption allowed", got)
	}
	r = e.fails("master-1", "global timeout reached", kubectl("drain", "worker-1", "--ignore-daemonsets", "--timeout=100ms")...)
	if countWeb(r.out, " evicted") != 1 || countWeb(r.err, "") != 1 {
		t.Errorf("maxUnavailable 50%%: want one pod evicted and one refused:\n%s%s", r.out, r.err)
	}
	pdb("2")
	r = e.must("master-1", kubectl("drain", "worker-1", "--ignore-daemonsets", "--timeout=100ms")...)
	contains(t, r, "node/worker-1 already cordoned", "node/worker-1 drained")
	if countWeb(r.out, " evicted") != 2 {
		t.Errorf("maxUnavailable 2: want both pods evicted:\n%s", r.out)
	}
}

// countWeb counts the lines "pod/web-...SUFFIX" in out.
func countWeb(out, suffix string) int {
	n := 0
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "pod/web-") && strings.HasSuffix(l, suffix) {
			n++
		}
	}
	return n
}
