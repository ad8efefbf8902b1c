#!/usr/bin/env bash
# Cordons and drains the worker CP_HOST before its upgrade, unless its
# kubelet already runs kubernetes_version. Runs on the first master
# (scope.run_on), so the admin kubeconfig never reaches the worker. A
# drain that fails, or is stopped by a signal, uncordons the node again,
# unless it was cordoned before this job; the job still fails.
set -euo pipefail

fail() { echo "drain-node-for-upgrade on ${CP_HOST:-?}: $*" >&2; exit 1; }
# refuse NAME VALUE FORM fails quoting at most 200 characters of VALUE.
refuse() { local v=${2:0:200}; fail "$1 \"${v//[[:cntrl:]]/?}\" is not $3"; }
# check NAME VALUE REGEX FORM refuses VALUE unless it matches REGEX: every
# value is checked here before any use, whatever the pack declares.
check() { [[ $2 =~ $3 ]] || refuse "$1" "$2" "$4"; }

version="${CP_PARAM_KUBERNETES_VERSION:-}"
version=${version#v}
check kubernetes_version "$version" '^1\.[0-9]{1,3}\.[0-9]{1,3}$' "a version such as 1.31.2"
check host "${CP_HOST:-}" '^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$' "a Kubernetes node name"
check drain_timeout "${CP_PARAM_DRAIN_TIMEOUT:-}" '^[+]?(([0-9]{1,15}([.][0-9]{0,15})?|[.][0-9]{1,15})(ns|us|µs|μs|ms|s|m|h)){1,7}$' "a duration such as 5m or 1h30m"

kc=(--kubeconfig "$CP_ARTIFACT_KUBECONFIG_ADMIN")
if [[ "$(kubectl "${kc[@]}" get node "$CP_HOST" -o jsonpath='{.status.nodeInfo.kubeletVersion}')" == "v$version" ]]; then
  echo "drain-node-for-upgrade: $CP_HOST already runs v$version; not drained"
  exit 0
fi
# A node cordoned before this job (by the cordon or drain action) is left
# cordoned when the drain fails or is stopped, as it was found.
was=$(kubectl "${kc[@]}" get node "$CP_HOST" -o jsonpath='{.spec.unschedulable}') ||
  fail "cannot read node $CP_HOST from the API server; not drained: fix the API server's reachability and retry"
# uncordon_again WHY fails with WHY after uncordoning the node, unless it
# was cordoned before this job.
uncordon_again() {
  if [[ "$was" == true ]]; then
    fail "$1. Node $CP_HOST was cordoned before this drain, stays cordoned and is not upgraded (apply the uncordon action to make it schedulable)"
  fi
  if kubectl "${kc[@]}" uncordon "$CP_HOST" >/dev/null 2>&1; then
    fail "$1. Node $CP_HOST was uncordoned again and is not upgraded. Make room (scale the workload, relax the budget; for Longhorn, let its volumes' replicas rebuild elsewhere) and apply again, or raise drain_timeout"
  fi
  fail "$1; uncordoning it again failed too, so it stays cordoned: on ${CP_FIRST_MASTER:-the first master} run kubectl --kubeconfig /etc/kubernetes/admin.conf uncordon $CP_HOST"
}

# shellcheck source=../lib/drain.sh
source "${BASH_SOURCE[0]%/*}/../lib/drain.sh"
run_drain
if ((drain_status == 0)); then
  cat "$drain_log"
  echo "drain-node-for-upgrade: $CP_HOST drained"
  exit 0
fi
tail -n 20 "$drain_log" >&2
# A PodDisruptionBudget (Longhorn's instance managers hold one for the
# last replica of a volume) keeps the drain from finishing: it fails
# after drain_timeout; the node is uncordoned again, not upgraded.
why="the drain of node $CP_HOST did not finish within drain_timeout $CP_PARAM_DRAIN_TIMEOUT"
pdb_why=$(pdb_held_why)
[[ -z "$pdb_why" ]] || why=$pdb_why
uncordon_again "$why"
