#!/usr/bin/env bash
# Drains the cordoned node CP_HOST with kubectl drain, which evicts pods
# through the eviction API and so respects PodDisruptionBudgets. A drain
# that does not finish within drain_timeout (a PDB that allows no
# disruption keeps retrying its eviction) uncordons the node again, so it
# is never left unschedulable by a failed operation, and fails naming the
# node, the pods and the budgets in its way (read from the API server:
# those of the blocked pods' namespaces that allow no disruption). Runs on
# the first master (scope.run_on).
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
why="the drain of node $CP_HOST did not finish within drain_timeout $CP_PARAM_DRAIN_TIMEOUT"
# The pods whose eviction a budget refused, as NAMESPACE/NAME.
mapfile -t held < <(grep -o 'error when evicting pods/"[a-z0-9.-]*" -n "[a-z0-9-]*"' "$log" |
  sed -E 's|.*pods/"([^"]*)" -n "([^"]*)"|\2/\1|' | sort -u | head -n 10)
if ((${#held[@]} > 0)); then
  budgets=()
  for ns in $(printf '%s\n' "${held[@]%%/*}" | sort -u); do
    [[ $ns =~ ^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$ ]] || continue
    while read -r name allowed; do
      [[ $name =~ ^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$ && $allowed == 0 ]] && budgets+=("$ns/$name")
    done < <(kubectl "${kc[@]}" get pdb -n "$ns" -o jsonpath='{range .items[*]}{.metadata.name}{" "}{.status.disruptionsAllowed}{"\n"}{end}' 2>/dev/null || true)
  done
  printf -v pods '%s, ' "${held[@]}"
  names="of the pods"
  if ((${#budgets[@]} > 0)); then
    printf -v names '%s, ' "${budgets[@]}"
    names=${names%, }
  fi
  why="PodDisruptionBudget $names allows no eviction of ${pods%, } from node $CP_HOST within drain_timeout $CP_PARAM_DRAIN_TIMEOUT (kubectl get pdb -A shows ALLOWED DISRUPTIONS 0)"
fi
if out=$(kubectl "${kc[@]}" uncordon "$CP_HOST" 2>&1); then
  fail "$why. Node $CP_HOST was uncordoned again and takes pods. Make room (scale the workload or relax the budget) and apply again, or raise drain_timeout"
fi
out=${out//[[:cntrl:]]/ }
fail "$why; uncordoning it again failed too (${out:0:200}), so it stays cordoned: on $CP_FIRST_MASTER run kubectl --kubeconfig /etc/kubernetes/admin.conf uncordon $CP_HOST, or apply the uncordon action (resource \"cp_scenario\" with pack = \"kubernetes\", action = \"uncordon\", targets = [\"$CP_HOST\"])"
