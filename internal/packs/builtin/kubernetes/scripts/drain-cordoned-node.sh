#!/usr/bin/env bash
# Drains the cordoned node CP_HOST with kubectl drain, which evicts pods
# through the eviction API and so respects PodDisruptionBudgets. A drain
# that does not finish within drain_timeout (a PDB that allows no
# disruption keeps retrying its eviction) fails naming the pods and
# budgets in its way and how to make the node schedulable again: the
# engine runs no job after a failure, so the uncordon is the user's
# action. Runs on the first master (scope.run_on).
set -euo pipefail

fail() { echo "drain-cordoned-node on ${CP_HOST:-?}: $*" >&2; exit 1; }
# refuse NAME VALUE FORM fails quoting at most 200 characters of VALUE.
refuse() { local v=${2:0:200}; fail "$1 \"${v//[[:cntrl:]]/?}\" is not $3"; }
# check NAME VALUE REGEX FORM refuses VALUE unless it matches REGEX.
check() { [[ $2 =~ $3 ]] || refuse "$1" "$2" "$4"; }

check host "${CP_HOST:-}" '^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$' "a Kubernetes node name"
check drain_timeout "${CP_PARAM_DRAIN_TIMEOUT:-}" '^[+]?(([0-9]{1,15}([.][0-9]{0,15})?|[.][0-9]{1,15})(ns|us|µs|μs|ms|s|m|h)){1,7}$' "a duration such as 5m or 1h30m"

kc=(--kubeconfig "$CP_ARTIFACT_KUBECONFIG_ADMIN")
[[ "$(kubectl "${kc[@]}" get node "$CP_HOST" -o jsonpath='{.spec.unschedulable}')" == true ]] ||
  fail "node $CP_HOST is not cordoned; run cordon-node first"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if kubectl "${kc[@]}" drain "$CP_HOST" --ignore-daemonsets --delete-emptydir-data --timeout="$CP_PARAM_DRAIN_TIMEOUT" >"$log" 2>&1; then
  cat "$log"
  echo "drain-cordoned-node: $CP_HOST drained"
  exit 0
fi
tail -n 20 "$log" >&2
why="the drain did not finish within drain_timeout $CP_PARAM_DRAIN_TIMEOUT"
if grep -q "violate the pod's disruption budget" "$log"; then
  pods=$(grep -o 'evicting pod [A-Za-z0-9._/-]*' "$log" | awk '{print $3}' | sort -u | head -n 10 | tr '\n' ' ')
  why="a PodDisruptionBudget allows no eviction of ${pods:-its pods}within drain_timeout $CP_PARAM_DRAIN_TIMEOUT (kubectl get pdb -A shows ALLOWED DISRUPTIONS 0)"
fi
fail "$why. The node stays cordoned. Make room (scale the workload or relax the budget) and apply again, or make it schedulable again: on $CP_FIRST_MASTER run kubectl --kubeconfig /etc/kubernetes/admin.conf uncordon $CP_HOST, or apply resource \"cp_scenario\" \"uncordon\" { pack = \"kubernetes\", name = \"$CP_CLUSTER-uncordon\", action = \"uncordon\", cluster_handle = <the cluster's handle> } (every host of the cluster is uncordoned)"
