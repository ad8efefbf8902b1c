#!/usr/bin/env bash
# Cordons and drains the worker CP_HOST before its upgrade, unless its
# kubelet already runs kubernetes_version. Runs on the first master
# (scope.run_on), so the admin kubeconfig never reaches the worker.
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
kubectl "${kc[@]}" drain "$CP_HOST" --ignore-daemonsets --delete-emptydir-data --timeout="$CP_PARAM_DRAIN_TIMEOUT"
echo "drain-node-for-upgrade: $CP_HOST drained"
