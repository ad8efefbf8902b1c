#!/usr/bin/env bash
# Waits until every host of the intent is a Ready node and writes a short
# health report.
set -euo pipefail

fail() { echo "verify-cluster: $*" >&2; exit 1; }

kc=(--kubeconfig /etc/kubernetes/admin.conf)
want=$(grep -c . <<<"${CP_HOSTS:-}" || true)
kubectl "${kc[@]}" get --raw=/readyz >/dev/null || fail "the API server is not ready"
kubectl "${kc[@]}" wait --for=condition=Ready nodes --all --timeout="$CP_PARAM_NODE_READY_TIMEOUT"
got=$(kubectl "${kc[@]}" get nodes -o name | grep -c . || true)
(( got == want )) || fail "$got nodes registered, the intent has $want hosts"
kubectl "${kc[@]}" get nodes -o wide >"$CP_OUTPUT_DIR/cluster_health_report"
echo "verify-cluster: $got of $want nodes Ready"
