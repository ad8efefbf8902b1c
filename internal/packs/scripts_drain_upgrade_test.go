package packs

import (
	"strings"
	"testing"
)

// drain-node-for-upgrade: a drain a PodDisruptionBudget blocks (Longhorn's
// instance managers hold one) fails after drain_timeout naming the node
// and the pod, and uncordons the node again; a drain that succeeds
// uncordons nothing (uncordon-node follows the upgrade).
func TestDrainNodeForUpgradeBlocked(t *testing.T) {
	const script = "kubernetes/scripts/drain-node-for-upgrade.sh"
	env := map[string]string{"CP_ARTIFACT_KUBECONFIG_ADMIN": "/kc", "CP_FIRST_MASTER": "master-1", "CP_PARAM_DRAIN_TIMEOUT": "2m",
		"CP_PARAM_KUBERNETES_VERSION": "1.34.2"}
	h := newScriptHost(t)
	h.stub("kubectl", `case " $* " in
  *"kubeletVersion"*) printf v1.33.6 ;;
  *" drain "*) echo 'evicting pod longhorn-system/instance-manager-abc'
    echo 'error when evicting pods/"instance-manager-abc" -n "longhorn-system" (will retry after 5s): Cannot evict pod as it would violate the pod'"'"'s disruption budget.' >&2
    exit 1 ;;
esac`)
	res := h.run(script, env)
	refused(t, h, res, "a PodDisruptionBudget allows no eviction of longhorn-system/instance-manager-abc from node node-1 within drain_timeout 2m")
	if !strings.Contains(res.stderr, "Node node-1 was uncordoned again and is not upgraded") || !strings.Contains(h.log(h.calls), "kubectl --kubeconfig /kc uncordon node-1\n") {
		t.Errorf("the blocked drain did not uncordon node-1:\n%s\n%s", res.stderr, h.log(h.calls))
	}

	h = newScriptHost(t)
	h.stub("kubectl", `case " $* " in *"kubeletVersion"*) printf v1.33.6 ;; esac`)
	succeeded(t, h.run(script, env))
	if calls := h.log(h.calls); strings.Contains(calls, "uncordon") || !strings.Contains(calls, "drain node-1 --ignore-daemonsets --delete-emptydir-data --timeout=2m") {
		t.Errorf("a successful drain: calls\n%s", calls)
	}
}
