#!/usr/bin/env bash
# Cordons and drains the node CP_HOST (kubectl drain cordons it first). A
# drain that fails, or is stopped by a signal, uncordons the node again,
# unless it was cordoned before this job; the job still fails.
set -euo pipefail

# A node the API server says does not exist (NotFound) has nothing to
# drain, while an API server that does not answer fails the job: it proves
# nothing about the node. The engine's timeout or a cancel TERMs the job's
# process group; the trap uncordons the node, so a node that is not removed
# does not stay unschedulable. A node cordoned before this job (by the
# cordon or drain action) is left cordoned, as it was found. Runs on the
# first master (scope.run_on), so the admin kubeconfig never reaches the
# node.

fail() { echo "drain-node on ${CP_HOST:-?}: $*" >&2; exit 1; }
# refuse NAME VALUE FORM fails quoting at most 200 characters of VALUE.
refuse() { local v=${2:0:200}; fail "$1 \"${v//[[:cntrl:]]/?}\" is not $3"; }
# check NAME VALUE REGEX FORM refuses VALUE unless it matches REGEX: every
# value is checked here before any use, whatever the pack declares.
check() { [[ $2 =~ $3 ]] || refuse "$1" "$2" "$4"; }

check host "${CP_HOST:-}" '^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$' "a Kubernetes node name"
check drain_timeout "${CP_PARAM_DRAIN_TIMEOUT:-}" '^[+]?(([0-9]{1,15}([.][0-9]{0,15})?|[.][0-9]{1,15})(ns|us|µs|μs|ms|s|m|h)){1,7}$' "a duration such as 5m or 1h30m"

kc=(--kubeconfig "$CP_ARTIFACT_KUBECONFIG_ADMIN")
if ! was=$(kubectl "${kc[@]}" get node "$CP_HOST" -o jsonpath='{.spec.unschedulable}' 2>&1); then
  if [[ "$was" == *"(NotFound)"* ]]; then
    echo "drain-node: node $CP_HOST is not registered; nothing to drain"
    exit 0
  fi
  was=${was//[[:cntrl:]]/ }
  fail "cannot read node $CP_HOST from the API server (${was:0:200}); not drained: fix the API server's reachability and retry"
fi
# uncordon_again WHY fails with WHY after uncordoning the node, unless it
# was cordoned before this job.
uncordon_again() {
  local out
  if [[ "$was" == true ]]; then
    fail "$1. Node $CP_HOST was cordoned before this drain and stays cordoned (apply the uncordon action to make it schedulable)"
  fi
  if out=$(kubectl "${kc[@]}" uncordon "$CP_HOST" 2>&1); then
    fail "$1. Node $CP_HOST was uncordoned again, takes pods and is not removed"
  fi
  out=${out//[[:cntrl:]]/ }
  fail "$1; uncordoning it again failed too (${out:0:200}), so it stays cordoned: on ${CP_FIRST_MASTER:-the first master} run kubectl --kubeconfig /etc/kubernetes/admin.conf uncordon $CP_HOST, or apply the uncordon action"
}

# shellcheck source=../lib/drain.sh
source "${BASH_SOURCE[0]%/*}/../lib/drain.sh"
run_drain
if ((drain_status == 0)); then
  cat "$drain_log"
  echo "drain-node: $CP_HOST drained"
  exit 0
fi
tail -n 20 "$drain_log" >&2
why="the drain of node $CP_HOST failed (kubectl drain exit $drain_status; drain_timeout $CP_PARAM_DRAIN_TIMEOUT)"
pdb_why=$(pdb_held_why)
[[ -z "$pdb_why" ]] || why=$pdb_why
uncordon_again "$why"
