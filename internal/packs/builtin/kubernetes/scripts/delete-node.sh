#!/usr/bin/env bash
# Deletes this host's node object from the cluster.
set -euo pipefail

kubectl --kubeconfig "$CP_ARTIFACT_KUBECONFIG_ADMIN" delete node "$CP_HOST" --ignore-not-found
echo "delete-node: $CP_HOST deleted"
