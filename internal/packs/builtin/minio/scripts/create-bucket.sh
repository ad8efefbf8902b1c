#!/usr/bin/env bash
# Creates the bucket with a MinIO client Job. mc reaches MinIO through
# MC_HOST_s3, which Kubernetes composes from the root Secret's keys
# ($(VAR) expansion of dependent environment variables): no credential is
# in the manifest or on mc's command line. Every value put into the Job
# manifest is checked first against a pattern with no quote, backslash,
# space or newline, so it stays one double-quoted YAML scalar.
set -euo pipefail

fail() { echo "create-bucket on ${CP_HOST:-?}: $*" >&2; exit 1; }
# refuse NAME VALUE FORM fails quoting at most 200 characters of VALUE.
refuse() { local v=${2:0:200}; fail "$1 \"${v//[[:cntrl:]]/?}\" is not $3"; }
# check NAME VALUE REGEX FORM refuses VALUE unless it matches REGEX.
check() { [[ $2 =~ $3 ]] || refuse "$1" "$2" "$4"; }

label_re='^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$'
# An image reference: [host[:port]/]path[:tag][@sha256:digest].
image_re='^(([a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?(\.[a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?)*(:[0-9]{1,5})?)/)?[a-z0-9]+(([._]|__|-+)[a-z0-9]+)*(/[a-z0-9]+(([._]|__|-+)[a-z0-9]+)*)*(:[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?(@sha256:[a-f0-9]{64})?$'
check namespace "${CP_PARAM_NAMESPACE:-}" "$label_re" "a DNS label such as minio"
check release_name "${CP_PARAM_RELEASE_NAME:-}" "$label_re" "a DNS label such as minio"
check bucket "${CP_PARAM_BUCKET:-}" '^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$' "an S3 bucket name: 3 to 63 of a-z, 0-9, '.' and '-'"
check region "${CP_PARAM_REGION:-}" '^[a-z0-9-]{1,32}$' "an S3 region such as us-east-1"
check mc_image "${CP_PARAM_MC_IMAGE:-}" "$image_re" \
  "an image reference such as minio/mc:RELEASE.2024-10-08T09-37-26Z"

check encryption "${CP_PARAM_ENCRYPTION:-}" '^(true|false)$' "true or false"

kc=(--kubeconfig "$CP_ARTIFACT_KUBECONFIG_ADMIN")
ns=$CP_PARAM_NAMESPACE
kubectl "${kc[@]}" -n "$ns" delete job minio-create-bucket --ignore-not-found
kubectl "${kc[@]}" apply -f - <<YAML
apiVersion: batch/v1
kind: Job
metadata:
  name: minio-create-bucket
  namespace: "$ns"
spec:
  backoffLimit: 4
  template:
    spec:
      restartPolicy: OnFailure
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
            - {name: REGION, value: "$CP_PARAM_REGION"}
            - {name: ENCRYPTION, value: "$CP_PARAM_ENCRYPTION"}
          command: ["/bin/sh", "-c"]
          args:
            - >-
              mc mb --ignore-existing --region "\$REGION" "s3/\$BUCKET" &&
              if [ "\$ENCRYPTION" = true ]; then mc encrypt set sse-s3 "s3/\$BUCKET"; else mc encrypt clear "s3/\$BUCKET" || true; fi
YAML
kubectl "${kc[@]}" -n "$ns" wait --for=condition=complete job/minio-create-bucket --timeout=5m
echo "create-bucket: bucket $CP_PARAM_BUCKET ready"
