#!/usr/bin/env bash
# Uninstalls the Tempo release and its S3 credentials Secret; the bucket
# and the traces in it are kept.
set -euo pipefail

kc=(--kubeconfig "$CP_ARTIFACT_KUBECONFIG_ADMIN")
ns=$CP_PARAM_NAMESPACE
if helm status "$CP_PARAM_RELEASE_NAME" --namespace "$ns" "${kc[@]}" >/dev/null 2>&1; then
  helm uninstall "$CP_PARAM_RELEASE_NAME" --namespace "$ns" "${kc[@]}" --wait
fi
kubectl "${kc[@]}" -n "$ns" delete secret tempo-s3 --ignore-not-found
kubectl "${kc[@]}" -n "$ns" delete job tempo-create-bucket tempo-verify --ignore-not-found
echo "uninstall-tempo: release $CP_PARAM_RELEASE_NAME removed from $ns"
