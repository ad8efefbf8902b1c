#!/usr/bin/env bash
# Waits until this host's node reports Ready, using the kubelet's own
# credentials.
set -euo pipefail

fail() { echo "verify-node-ready on ${CP_HOST:-?}: $*" >&2; exit 1; }
# refuse NAME VALUE FORM fails quoting at most 200 characters of VALUE.
refuse() { local v=${2:0:200}; fail "$1 \"${v//[[:cntrl:]]/?}\" is not $3"; }
# check NAME VALUE REGEX FORM refuses VALUE unless it matches REGEX: every
# value is checked here before any use, whatever the pack declares.
check() { [[ $2 =~ $3 ]] || refuse "$1" "$2" "$4"; }

check host "${CP_HOST:-}" '^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$' "a Kubernetes node name"
check node_ready_timeout "${CP_PARAM_NODE_READY_TIMEOUT:-}" '^[+]?(([0-9]{1,15}([.][0-9]{0,15})?|[.][0-9]{1,15})(ns|us|µs|μs|ms|s|m|h)){1,7}$' "a duration such as 5m or 1h30m"

systemctl is-active --quiet kubelet || systemctl restart kubelet
kubectl --kubeconfig /etc/kubernetes/kubelet.conf wait --for=condition=Ready "node/$CP_HOST" \
  --timeout="$CP_PARAM_NODE_READY_TIMEOUT"
echo "verify-node-ready: $CP_HOST is Ready"
