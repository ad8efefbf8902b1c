#!/usr/bin/env bash
# Installs MinIO (standalone) with Helm. Root credentials and the KMS key
# for automatic SSE-S3 encryption are generated once into Secrets and
# reused on every later run.
set -euo pipefail

kc=(--kubeconfig "$CP_ARTIFACT_KUBECONFIG_ADMIN")
ns=$CP_PARAM_NAMESPACE
release=$CP_PARAM_RELEASE_NAME
rand() { head -c "$1" /dev/urandom | od -An -tx1 | tr -d ' \n'; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
umask 077
kubectl "${kc[@]}" create namespace "$ns" --dry-run=client -o yaml | kubectl "${kc[@]}" apply -f -
if ! kubectl "${kc[@]}" -n "$ns" get secret minio-root -o name >/dev/null 2>&1; then
  printf 'rootUser=cp-%s\nrootPassword=%s\n' "$(rand 6)" "$(rand 24)" >"$work/root.env"
  kubectl "${kc[@]}" -n "$ns" create secret generic minio-root --from-env-file="$work/root.env"
fi
if ! kubectl "${kc[@]}" -n "$ns" get secret minio-kms -o name >/dev/null 2>&1; then
  {
    echo "export MINIO_KMS_SECRET_KEY=minio-kms:$(head -c 32 /dev/urandom | base64)"
    echo "export MINIO_KMS_AUTO_ENCRYPTION=on"
  } >"$work/config.env"
  kubectl "${kc[@]}" -n "$ns" create secret generic minio-kms --from-file=config.env="$work/config.env"
fi

cat >"$work/values.yaml" <<YAML
mode: standalone
replicas: 1
existingSecret: minio-root
extraSecret: minio-kms
persistence:
  size: "$CP_PARAM_STORAGE_SIZE"
resources:
  requests:
    memory: 1Gi
environment:
  MINIO_REGION: "$CP_PARAM_REGION"
YAML
helm upgrade --install "$release" minio --repo https://charts.min.io/ --version "$CP_PARAM_CHART_VERSION" \
  --namespace "$ns" --values "$work/values.yaml" "${kc[@]}" --wait --timeout 10m

user=$(kubectl "${kc[@]}" -n "$ns" get secret minio-root -o jsonpath='{.data.rootUser}' | base64 -d)
pass=$(kubectl "${kc[@]}" -n "$ns" get secret minio-root -o jsonpath='{.data.rootPassword}' | base64 -d)
printf 'AWS_ACCESS_KEY_ID=%s\nAWS_SECRET_ACCESS_KEY=%s\n' "$user" "$pass" >"$CP_OUTPUT_DIR/object_storage.s3.credentials"
echo "http://$release.$ns.svc:9000" >"$CP_OUTPUT_DIR/object_storage.s3.endpoint"
echo "install-minio: release $release ready at http://$release.$ns.svc:9000"
