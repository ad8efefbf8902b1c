#!/usr/bin/env bash
# Marks the node CP_HOST unschedulable. Runs on the first master
# (scope.run_on), so the admin kubeconfig never reaches the node.
set -euo pipefail

fail() { echo "cordon-node on ${CP_HOST:-?}: $*" >&2; exit 1; }
# refuse NAME VALUE FORM fails quoting at most 200 characters of VALUE.
refuse() { local v=${2:0:200}; fail "$1 \"${v//[[:cntrl:]]/?}\" is not $3"; }
# check NAME VALUE REGEX FORM refuses VALUE unless it matches REGEX.
check() { [[ $2 =~ $3 ]] || refuse "$1" "$2" "$4"; }

check host "${CP_HOST:-}" '^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$' "a Kubernetes node name"
kc=(--kubeconfig "$CP_ARTIFACT_KUBECONFIG_ADMIN")
kubectl "${kc[@]}" get node "$CP_HOST" -o name >/dev/null || fail "node $CP_HOST is not registered in the cluster; nothing to cordon"
kubectl "${kc[@]}" cordon "$CP_HOST"
echo "cordon-node: $CP_HOST cordoned; the uncordon action makes it schedulable again"
