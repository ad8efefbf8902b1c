#!/usr/bin/env bash
# Installs MinIO (standalone) with Helm. Root credentials and the KMS key
# for automatic SSE-S3 encryption are generated once into Secrets and
# reused on every later run.
set -euo pipefail

# The credentials artifact holds no key: it says where the root
# credentials live (S3_ADMIN_NAMESPACE, S3_ADMIN_SECRET with keys rootUser
# and rootPassword) and that the MinIO admin API is there
# (S3_ADMIN_API=minio). Consumers (Tempo, PostgreSQL backups) create their
# own user limited to their bucket from a Job in this namespace that reads
# the root Secret, and store only that user's keys. Every value rendered
# into the Helm values is checked first against a pattern with no quote,
# backslash or newline.

fail() { echo "install-minio on ${CP_HOST:-?}: $*" >&2; exit 1; }
# refuse NAME VALUE FORM fails quoting at most 200 characters of VALUE.
refuse() { local v=${2:0:200}; fail "$1 \"${v//[[:cntrl:]]/?}\" is not $3"; }
# check NAME VALUE REGEX FORM refuses VALUE unless it matches REGEX.
check() { [[ $2 =~ $3 ]] || refuse "$1" "$2" "$4"; }

label_re='^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$'
check namespace "${CP_PARAM_NAMESPACE:-}" "$label_re" "a DNS label such as minio"
check release_name "${CP_PARAM_RELEASE_NAME:-}" '^[a-z0-9]([a-z0-9-]{0,51}[a-z0-9])?$' "a DNS label of at most 53 characters such as minio"
check chart_version "${CP_PARAM_CHART_VERSION:-}" '^v?[0-9]{1,9}\.[0-9]{1,9}\.[0-9]{1,9}(-[0-9A-Za-z.-]{1,64})?$' \
  "a chart version such as 5.3.0"
check region "${CP_PARAM_REGION:-}" '^[a-z0-9-]{1,32}$' "an S3 region such as us-east-1"
check storage_size "${CP_PARAM_STORAGE_SIZE:-}" '^[0-9]{1,12}(\.[0-9]{1,6})?(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?$' \
  "a Kubernetes quantity such as 10Gi"
check encryption "${CP_PARAM_ENCRYPTION:-}" '^(true|false)$' "true or false"
storage_class=${CP_PARAM_STORAGE_CLASS:-}
[[ -z "$storage_class" ]] || check storage_class "$storage_class" '^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$' "a StorageClass name such as longhorn"

kc=(--kubeconfig "$CP_ARTIFACT_KUBECONFIG_ADMIN")
ns=$CP_PARAM_NAMESPACE
# A volume claim naming no StorageClass binds only through the cluster's
# default one; without it, or with a named one that does not exist, the
# claim stays Pending and MinIO never starts: say so before installing.
if [[ -n "$storage_class" ]]; then
  kubectl "${kc[@]}" get storageclass "$storage_class" -o name >/dev/null ||
    fail "StorageClass $storage_class (storage_class) does not exist; name one of kubectl get storageclass"
fi
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
# Encryption: MinIO's single KMS key (MINIO_KMS_SECRET_KEY, name:base64
# of 32 random bytes) lives only in the minio-kms Secret, which the chart
# sources as extraSecret; create-bucket sets SSE-S3 on the bucket.
if [[ "$CP_PARAM_ENCRYPTION" == true ]] && ! kubectl "${kc[@]}" -n "$ns" get secret minio-kms -o name >/dev/null 2>&1; then
  {
    echo "export MINIO_KMS_SECRET_KEY=minio-kms:$(head -c 32 /dev/urandom | base64)"
  } >"$work/config.env"
  kubectl "${kc[@]}" -n "$ns" create secret generic minio-kms --from-file=config.env="$work/config.env"
fi

cat >"$work/values.yaml" <<YAML
mode: standalone
replicas: 1
fullnameOverride: "$release"
existingSecret: minio-root
persistence:
  size: "$CP_PARAM_STORAGE_SIZE"
YAML
[[ -z "$storage_class" ]] || printf '  storageClass: "%s"\n' "$storage_class" >>"$work/values.yaml"
[[ "$CP_PARAM_ENCRYPTION" != true ]] || echo 'extraSecret: minio-kms' >>"$work/values.yaml"
cat >>"$work/values.yaml" <<YAML
resources:
  requests:
    memory: 1Gi
environment:
  MINIO_REGION: "$CP_PARAM_REGION"
YAML
helm upgrade --install "$release" minio --repo https://charts.min.io/ --version "$CP_PARAM_CHART_VERSION" \
  --namespace "$ns" --values "$work/values.yaml" "${kc[@]}" --wait --timeout 10m

phase=$(kubectl "${kc[@]}" -n "$ns" get persistentvolumeclaim "$release" -o jsonpath='{.status.phase}')
[[ "$phase" == Bound ]] ||
  fail "the data volume claim $ns/$release is ${phase:-absent}, not Bound; set storage_class to an existing StorageClass or give the cluster a default one"

printf 'S3_ADMIN_API=minio\nS3_ADMIN_NAMESPACE=%s\nS3_ADMIN_SECRET=minio-root\n' "$ns" \
  >"$CP_OUTPUT_DIR/object_storage.s3.credentials"
echo "http://$release.$ns.svc:9000" >"$CP_OUTPUT_DIR/object_storage.s3.endpoint"
echo "install-minio: release $release ready at http://$release.$ns.svc:9000"
