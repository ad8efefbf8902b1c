#!/usr/bin/env bash
# Writes an object, reads it back and checks that it is stored encrypted,
# from a MinIO client Job inside the cluster. mc reaches MinIO through
# MC_HOST_s3, which Kubernetes composes from the root Secret's keys, so no
# credential is on its command line. Every value put into the Job
# manifest is checked first against a pattern with no quote, backslash,
# space or newline, so it stays one double-quoted YAML scalar.
set -euo pipefail

fail() { echo "verify-minio on ${CP_HOST:-?}: $*" >&2; exit 1; }
# refuse NAME VALUE FORM fails quoting at most 200 characters of VALUE.
refuse() { local v=${2:0:200}; fail "$1 \"${v//[[:cntrl:]]/?}\" is not $3"; }
# check NAME VALUE REGEX FORM refuses VALUE unless it matches REGEX: every
# value is checked here before any use, whatever the pack declares.
check() { [[ $2 =~ $3 ]] || refuse "$1" "$2" "$4"; }

label_re='^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$'
# An image reference: [host[:port]/]path[:tag][@sha256:digest].
image_re='^(([a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?(\.[a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?)*(:[0-9]{1,5})?)/)?[a-z0-9]+(([._]|__|-+)[a-z0-9]+)*(/[a-z0-9]+(([._]|__|-+)[a-z0-9]+)*)*(:[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?(@sha256:[a-f0-9]{64})?$'
check namespace "${CP_PARAM_NAMESPACE:-}" "$label_re" "a DNS label such as minio"
check release_name "${CP_PARAM_RELEASE_NAME:-}" "$label_re" "a DNS label such as minio"
check bucket "${CP_PARAM_BUCKET:-}" '^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$' "an S3 bucket name: 3 to 63 of a-z, 0-9, '.' and '-'"
check mc_image "${CP_PARAM_MC_IMAGE:-}" "$image_re" \
  "an image reference such as minio/mc:RELEASE.2024-10-08T09-37-26Z"

check encryption "${CP_PARAM_ENCRYPTION:-}" '^(true|false)$' "true or false"

check region "${CP_PARAM_REGION:-}" '^[a-z0-9-]{1,32}$' "an S3 region such as us-east-1"

kc=(--kubeconfig "$CP_ARTIFACT_KUBECONFIG_ADMIN")
ns=$CP_PARAM_NAMESPACE

# mc_job NAME SCRIPT runs SCRIPT (a constant of this file; values reach it
# only through the environment) with sh in a MinIO client Job and waits
# for it to complete.
mc_job() {
  kubectl "${kc[@]}" -n "$ns" delete job "$1" --ignore-not-found
  kubectl "${kc[@]}" apply -f - <<YAML
apiVersion: batch/v1
kind: Job
metadata:
  name: $1
  namespace: "$ns"
spec:
  backoffLimit: 2
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: mc
          image: "$CP_PARAM_MC_IMAGE"
          env:
            - name: ROOT_USER
              valueFrom: {secretKeyRef: {name: minio-root, key: rootUser}}
            - name: ROOT_PASSWORD
              valueFrom: {secretKeyRef: {name: minio-root, key: rootPassword}}
            - {name: MC_HOST_s3, value: "http://\$(ROOT_USER):\$(ROOT_PASSWORD)@$CP_PARAM_RELEASE_NAME.$ns.svc:9000"}
            - {name: BUCKET, value: "$CP_PARAM_BUCKET"}
            - {name: ENCRYPTION, value: "$CP_PARAM_ENCRYPTION"}
            - {name: REGION, value: "$CP_PARAM_REGION"}
          command: ["/bin/sh", "-c"]
          args:
            - |
              ${2//$'\n'/$'\n'              }
YAML
  kubectl "${kc[@]}" -n "$ns" wait --for=condition=complete "job/$1" --timeout=5m
}

# The Job scripts are single-quoted: they expand in the Job's shell.
# shellcheck disable=SC2016
# An object written, read back and, with encryption, stored encrypted.
mc_job minio-verify '
echo cp-verify | mc pipe "s3/$BUCKET/.cp-verify"
[ "$(mc cat "s3/$BUCKET/.cp-verify")" = cp-verify ] || exit 1
if [ "$ENCRYPTION" = true ]; then mc stat "s3/$BUCKET/.cp-verify" | grep -qi encrypt || exit 1; fi
mc rm "s3/$BUCKET/.cp-verify"'

# The bucket'"'"'s default encryption as mc encrypt info --json reads it
# (encryption.algorithm, empty without a configuration) against the
# encryption parameter: evidence bucket_encryption.
# shellcheck disable=SC2016
mc_job minio-verify-encryption '
algo=$(mc encrypt info --json "s3/$BUCKET" | sed -n "s/.*\"algorithm\": *\"\\([^\"]*\\)\".*/\\1/p")
echo "bucket $BUCKET encryption: ${algo:-none}, wanted: $ENCRYPTION"
case "$ENCRYPTION:$algo" in true:?*|false:) ;; *) exit 1 ;; esac'

# The server'"'"'s region as mc admin info --json reports it against the
# region parameter: evidence region_set.
# shellcheck disable=SC2016
mc_job minio-verify-region '
got=$(mc admin info --json s3 | sed -n "s/.*\"region\": *\"\\([^\"]*\\)\".*/\\1/p" | head -n 1)
echo "region: ${got:-none}, wanted: $REGION"
[ "$got" = "$REGION" ]'
echo "verify-minio: object written and read in $CP_PARAM_BUCKET; encryption $CP_PARAM_ENCRYPTION and region $CP_PARAM_REGION as asked"
