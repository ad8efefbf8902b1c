#!/usr/bin/env bash
# Cordons and drains the node CP_HOST; a node the API server says does not
# exist (NotFound) has nothing to drain, while an API server that does not
# answer fails the job: it proves nothing about the node. Runs on the first
# master (scope.run_on), so the admin kubeconfig never reaches the node.
set -euo pipefail

fail() { echo "drain-node on ${CP_HOST:-?}: $*" >&2; exit 1; }
# refuse NAME VALUE FORM fails quoting at most 200 characters of VALUE.
refuse() { local v=${2:0:200}; fail "$1 \"${v//[[:cntrl:]]/?}\" is not $3"; }
# check NAME VALUE REGEX FORM refuses VALUE unless it matches REGEX: every
# value is checked here before any use, whatever the pack declares.
check() { [[ $2 =~ $3 ]] || refuse "$1" "$2" "$4"; }

check host "${CP_HOST:-}" '^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$' "a Kubernetes node name"
check drain_timeout "${CP_PARAM_DRAIN_TIMEOUT:-}" '^[+]?(([0-9]{1,15}([.][0-9]{0,15})?|[.][0-9]{1,15})(ns|us|µs|μs|ms|s|m|h)){1,7}$' "a duration such as 5m or 1h30m"

kc=(--kubeconfig "$CP_ARTIFACT_KUBECONFIG_ADMIN")
if ! out=$(kubectl "${kc[@]}" get node "$CP_HOST" -o name 2>&1); then
  if [[ "$out" == *"(NotFound)"* ]]; then
    echo "drain-node: node $CP_HOST is not registered; nothing to drain"
    exit 0
  fi
  out=${out//[[:cntrl:]]/ }
  fail "cannot read node $CP_HOST from the API server (${out:0:200}); not drained: fix the API server's reachability and retry"
fi
kubectl "${kc[@]}" drain "$CP_HOST" --ignore-daemonsets --delete-emptydir-data --timeout="$CP_PARAM_DRAIN_TIMEOUT"
echo "drain-node: $CP_HOST drained"
