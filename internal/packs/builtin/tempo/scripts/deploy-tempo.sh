#!/usr/bin/env bash
# Installs or upgrades the grafana/tempo chart with S3 trace storage. The
# S3 keys reach Tempo from the Secret tempo-s3 through environment
# expansion; they never enter the Helm values.
set -euo pipefail

kc=(--kubeconfig "$CP_ARTIFACT_KUBECONFIG_ADMIN")
ns=$CP_PARAM_NAMESPACE
release=$CP_PARAM_RELEASE_NAME
endpoint=$(tr -d '[:space:]' <"$CP_ARTIFACT_OBJECT_STORAGE_S3_ENDPOINT")
insecure=false
[[ "$endpoint" == http://* ]] && insecure=true
host=${endpoint#*://}
host=${host%%/*}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/values.yaml" <<YAML
tempo:
  retention: "$CP_PARAM_RETENTION"
  extraArgs:
    config.expand-env: "true"
  extraEnvFrom:
    - secretRef:
        name: tempo-s3
  storage:
    trace:
      backend: s3
      s3:
        bucket: "$CP_PARAM_BUCKET"
        endpoint: "$host"
        insecure: $insecure
        access_key: "\${AWS_ACCESS_KEY_ID}"
        secret_key: "\${AWS_SECRET_ACCESS_KEY}"
YAML
helm upgrade --install "$release" tempo --repo https://grafana.github.io/helm-charts \
  --version "$CP_PARAM_CHART_VERSION" --namespace "$ns" --create-namespace \
  --values "$work/values.yaml" "${kc[@]}" --wait --timeout 10m
{
  echo "otlp_grpc=$release.$ns.svc:4317"
  echo "otlp_http=http://$release.$ns.svc:4318"
  echo "query=http://$release.$ns.svc:3100"
} >"$CP_OUTPUT_DIR/tempo.endpoints"
echo "deploy-tempo: release $release deployed in $ns"
