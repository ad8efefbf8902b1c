package hostsim

import (
	"fmt"
	"strings"
	"time"
)

// evictRetry is how long kubectl drain waits before retrying an eviction
// a PodDisruptionBudget refused (kubectl's own 5s).
const evictRetry = 5 * time.Second

// kubectlDrain cordons a node and evicts the pods the simulator places on
// it (podsOnNode). Like kubectl it refuses when DaemonSet pods run on the
// node without --ignore-daemonsets, or pods with emptyDir volumes may run
// without --delete-emptydir-data. An eviction a PodDisruptionBudget
// refuses (it allows no more disruption, pdbStatus: each eviction uses
// one; the simulator reschedules no evicted pod) is retried every 5s, as
// kubectl does, until --timeout; then the drain fails with kubectl's
// "global timeout reached" and the node stays cordoned. Without --timeout
// kubectl would retry forever: the simulator refuses that case (exit 2)
// rather than hang.
func (s *sim) kubectlDrain(st *State, p flags) int {
	n, code := s.node(st, p.arg(1))
	if n == nil {
		return code
	}
	var timeout time.Duration
	if t := p.get("timeout"); t != "" {
		d, err := time.ParseDuration(t)
		if err != nil {
			return s.fail(1, "error: invalid argument %q for \"--timeout\" flag: %v", t, err)
		}
		timeout = d
	}
	var daemons, local []string
	for _, o := range s.objects(st) {
		if s.podBlocker(st, o) != "" {
			continue
		}
		ref := o.Namespace + "/" + o.Name
		switch {
		case o.Kind == "DaemonSet":
			daemons = append(daemons, ref)
		case (o.Kind == "Deployment" || o.Kind == "StatefulSet" || o.Kind == "Job") && hasEmptyDir(podTemplate(o)):
			local = append(local, ref)
		}
	}
	if n.Unschedulable {
		s.printf("node/%s already cordoned\n", n.Name)
	} else {
		s.printf("node/%s cordoned\n", n.Name)
	}
	n.Unschedulable = true
	if len(daemons) > 0 && !p.has("ignore-daemonsets") {
		return s.fail(1, "error: unable to drain node %q due to error: cannot delete DaemonSet-managed Pods (use --ignore-daemonsets to ignore): %s, continuing command...", n.Name, strings.Join(daemons, ", "))
	}
	if len(local) > 0 && !p.has("delete-emptydir-data") {
		return s.fail(1, "error: unable to drain node %q due to error: cannot delete Pods with local storage (use --delete-emptydir-data to override): %s, continuing command...", n.Name, strings.Join(local, ", "))
	}
	var free, held []simPod
	budgets := s.budgets(st)
	for _, pod := range s.podsOnNode(st, n) {
		if budgets.evict(pod) {
			free = append(free, pod)
		} else {
			held = append(held, pod)
		}
	}
	for _, pod := range free {
		s.printf("evicting pod %s/%s\n", pod.Namespace, pod.Name)
	}
	for _, pod := range free {
		s.printf("pod/%s evicted\n", pod.Name)
	}
	if len(held) == 0 {
		s.printf("node/%s drained\n", n.Name)
		return 0
	}
	if timeout <= 0 {
		return s.fail(2, "cp-hostsim: not emulated: kubectl drain of %s without --timeout, whose evictions a PodDisruptionBudget refuses, retries forever (see internal/hostsim/README.md)", n.Name)
	}
	deadline := s.now().Add(timeout)
	for {
		for _, pod := range held {
			s.printf("evicting pod %s/%s\n", pod.Namespace, pod.Name)
			fmt.Fprintf(s.err, "error when evicting pods/%q -n %q (will retry after 5s): Cannot evict pod as it would violate the pod's disruption budget.\n", pod.Name, pod.Namespace)
		}
		left := time.Until(deadline)
		if left <= 0 {
			break
		}
		time.Sleep(min(evictRetry, left))
	}
	var errs []string
	for _, pod := range held {
		errs = append(errs, fmt.Sprintf("error when evicting pods/%q -n %q: global timeout reached: %s", pod.Name, pod.Namespace, timeout))
	}
	fmt.Fprintf(s.err, "There are pending pods in node %q when an error occurred: [%s]\n", n.Name, strings.Join(errs, ", "))
	for _, pod := range held {
		fmt.Fprintf(s.err, "pod/%s\n", pod.Name)
	}
	return s.fail(1, "error: unable to drain node %q due to error: [%s], continuing command...\nThere are pending nodes to be drained:\n %s", n.Name, strings.Join(errs, ", "), n.Name)
}
