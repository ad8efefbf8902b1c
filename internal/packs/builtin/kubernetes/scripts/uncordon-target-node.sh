#!/usr/bin/env bash
# Makes the node CP_HOST schedulable again, after a drain or a cordon, and
# waits for it to be Ready. Runs on the first master (scope.run_on).
set -euo pipefail

fail() { echo "uncordon-target-node on ${CP_HOST:-?}: $*" >&2; exit 1; }
# refuse NAME VALUE FORM fails quoting at most 200 characters of VALUE.
refuse() { local v=${2:0:200}; fail "$1 \"${v//[[:cntrl:]]/?}\" is not $3"; }
# check NAME VALUE REGEX FORM refuses VALUE unless it matches REGEX.
check() { [[ $2 =~ $3 ]] || refuse "$1" "$2" "$4"; }

check host "${CP_HOST:-}" '^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$' "a Kubernetes node name"
check node_ready_timeout "${CP_PARAM_NODE_READY_TIMEOUT:-}" '^[+]?(([0-9]{1,15}([.][0-9]{0,15})?|[.][0-9]{1,15})(ns|us|µs|μs|ms|s|m|h)){1,7}$' "a duration such as 5m or 1h30m"
kc=(--kubeconfig "$CP_ARTIFACT_KUBECONFIG_ADMIN")
kubectl "${kc[@]}" get node "$CP_HOST" -o name >/dev/null || fail "node $CP_HOST is not registered in the cluster; nothing to uncordon"
kubectl "${kc[@]}" uncordon "$CP_HOST"
kubectl "${kc[@]}" wait --for=condition=Ready "node/$CP_HOST" --timeout="$CP_PARAM_NODE_READY_TIMEOUT"
echo "uncordon-target-node: $CP_HOST schedulable and Ready"
