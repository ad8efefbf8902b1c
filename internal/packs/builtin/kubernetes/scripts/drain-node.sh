#!/usr/bin/env bash
# Cordons and drains this host's node; a node that no longer exists has
# nothing to drain.
set -euo pipefail

kc=(--kubeconfig "$CP_ARTIFACT_KUBECONFIG_ADMIN")
if ! kubectl "${kc[@]}" get node "$CP_HOST" -o name >/dev/null 2>&1; then
  echo "drain-node: node $CP_HOST is not registered; nothing to drain"
  exit 0
fi
kubectl "${kc[@]}" drain "$CP_HOST" --ignore-daemonsets --delete-emptydir-data --timeout="$CP_PARAM_DRAIN_TIMEOUT"
echo "drain-node: $CP_HOST drained"
