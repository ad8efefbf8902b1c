#!/usr/bin/env bash
# Deletes the node object CP_HOST from the cluster, and checks that the API
# server then says it does not exist (NotFound): an API server that does
# not answer fails the job. Runs on the first master (scope.run_on), so the
# admin kubeconfig never reaches the node.
set -euo pipefail

fail() { echo "delete-node on ${CP_HOST:-?}: $*" >&2; exit 1; }
# refuse NAME VALUE FORM fails quoting at most 200 characters of VALUE.
refuse() { local v=${2:0:200}; fail "$1 \"${v//[[:cntrl:]]/?}\" is not $3"; }
# check NAME VALUE REGEX FORM refuses VALUE unless it matches REGEX: every
# value is checked here before any use, whatever the pack declares.
check() { [[ $2 =~ $3 ]] || refuse "$1" "$2" "$4"; }

check host "${CP_HOST:-}" '^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$' "a Kubernetes node name"

kc=(--kubeconfig "$CP_ARTIFACT_KUBECONFIG_ADMIN")
kubectl "${kc[@]}" delete node "$CP_HOST" --ignore-not-found
if out=$(kubectl "${kc[@]}" get node "$CP_HOST" -o name 2>&1); then
  fail "node $CP_HOST is still registered after kubectl delete node"
elif [[ "$out" != *"(NotFound)"* ]]; then
  out=${out//[[:cntrl:]]/ }
  fail "cannot confirm node $CP_HOST is gone: the API server did not answer (${out:0:200})"
fi
echo "delete-node: $CP_HOST deleted"
