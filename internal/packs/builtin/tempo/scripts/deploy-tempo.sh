#!/usr/bin/env bash
# Installs or upgrades the grafana/tempo chart with S3 trace storage. The
# S3 keys reach Tempo from the Secret tempo-s3 through environment
# expansion; they never enter the Helm values. The values file is rendered
# only from values checked here against patterns with no quote, backslash,
# space or newline, each one double-quoted YAML scalar.
set -euo pipefail

fail() { echo "deploy-tempo on ${CP_HOST:-?}: $*" >&2; exit 1; }
# refuse NAME VALUE FORM fails quoting at most 200 characters of VALUE.
refuse() { local v=${2:0:200}; fail "$1 \"${v//[[:cntrl:]]/?}\" is not $3"; }
# check NAME VALUE REGEX FORM refuses VALUE unless it matches REGEX: every
# value is checked here before any use, whatever the pack declares.
check() { [[ $2 =~ $3 ]] || refuse "$1" "$2" "$4"; }

label_re='^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$'
check namespace "${CP_PARAM_NAMESPACE:-}" "$label_re" "a DNS label such as tempo"
check release_name "${CP_PARAM_RELEASE_NAME:-}" "$label_re" "a DNS label such as tempo"
check chart_version "${CP_PARAM_CHART_VERSION:-}" '^v?[0-9]{1,9}\.[0-9]{1,9}\.[0-9]{1,9}(-[0-9A-Za-z.-]{1,64})?$' \
  "a chart version such as 1.10.1"
check bucket "${CP_PARAM_BUCKET:-}" '^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$' "an S3 bucket name: 3 to 63 of a-z, 0-9, '.' and '-'"
check retention "${CP_PARAM_RETENTION:-}" '^[+]?(([0-9]{1,15}([.][0-9]{0,15})?|[.][0-9]{1,15})(ns|us|µs|μs|ms|s|m|h)){1,7}$' "a duration such as 336h"

kc=(--kubeconfig "$CP_ARTIFACT_KUBECONFIG_ADMIN")
ns=$CP_PARAM_NAMESPACE
release=$CP_PARAM_RELEASE_NAME
endpoint=$(tr -d '[:space:]' <"$CP_ARTIFACT_OBJECT_STORAGE_S3_ENDPOINT")
check object_storage.s3.endpoint "$endpoint" '^https?://([A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(:[0-9]{1,5})?(/[A-Za-z0-9._~%/-]*)?$' \
  "an http(s) URL such as http://minio.minio.svc:9000"
insecure=false
[[ "$endpoint" == http://* ]] && insecure=true
host=${endpoint#*://}
host=${host%%/*}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# fullnameOverride: the chart names its Service and StatefulSet after the
# release only when the release name contains "tempo" (else
# RELEASE-tempo); the pack's endpoints, its verify Job and its evidence
# name them after the release.
cat >"$work/values.yaml" <<YAML
fullnameOverride: "$release"
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
