#!/usr/bin/env bash
# Waits until every host of the intent is a Ready node and writes a short
# health report.
set -euo pipefail

fail() { echo "verify-cluster: $*" >&2; exit 1; }
# refuse NAME VALUE FORM fails quoting at most 200 characters of VALUE.
refuse() { local v=${2:0:200}; fail "$1 \"${v//[[:cntrl:]]/?}\" is not $3"; }
# check NAME VALUE REGEX FORM refuses VALUE unless it matches REGEX: every
# value is checked here before any use, whatever the pack declares.
check() { [[ $2 =~ $3 ]] || refuse "$1" "$2" "$4"; }

check node_ready_timeout "${CP_PARAM_NODE_READY_TIMEOUT:-}" '^[+]?(([0-9]{1,15}([.][0-9]{0,15})?|[.][0-9]{1,15})(ns|us|µs|μs|ms|s|m|h)){1,7}$' "a duration such as 5m or 1h30m"

kc=(--kubeconfig /etc/kubernetes/admin.conf)
want=$(tr , '\n' <<<"${CP_HOSTS:-}" | grep -c . || true)
kubectl "${kc[@]}" get --raw=/readyz >/dev/null || fail "the API server is not ready"
kubectl "${kc[@]}" wait --for=condition=Ready nodes --all --timeout="$CP_PARAM_NODE_READY_TIMEOUT"
got=$(kubectl "${kc[@]}" get nodes -o name | grep -c . || true)
[[ "$got" == "$want" ]] || fail "$got nodes registered, the intent has $want hosts"
kubectl "${kc[@]}" get nodes -o wide >"$CP_OUTPUT_DIR/cluster_health_report"
echo "verify-cluster: $got of $want nodes Ready"
