#!/usr/bin/env bash
# Stores the bound S3 credentials as the Secret tempo-s3 and creates the
# trace bucket with a MinIO client Job (works against any S3 API).
set -euo pipefail

fail() { echo "create-bucket-and-credentials: $*" >&2; exit 1; }

kc=(--kubeconfig "$CP_ARTIFACT_KUBECONFIG_ADMIN")
ns=$CP_PARAM_NAMESPACE
creds=$CP_ARTIFACT_OBJECT_STORAGE_S3_CREDENTIALS
endpoint=$(tr -d '[:space:]' <"$CP_ARTIFACT_OBJECT_STORAGE_S3_ENDPOINT")
[[ "$endpoint" =~ ^https?:// ]] || fail "object_storage.s3.endpoint \"$endpoint\" is not an http(s) URL"
grep -q '^AWS_ACCESS_KEY_ID=.' "$creds" && grep -q '^AWS_SECRET_ACCESS_KEY=.' "$creds" ||
  fail "object_storage.s3.credentials must hold AWS_ACCESS_KEY_ID= and AWS_SECRET_ACCESS_KEY= lines"

kubectl "${kc[@]}" create namespace "$ns" --dry-run=client -o yaml | kubectl "${kc[@]}" apply -f -
kubectl "${kc[@]}" -n "$ns" create secret generic tempo-s3 --from-env-file="$creds" --dry-run=client -o yaml |
  kubectl "${kc[@]}" apply -f -

kubectl "${kc[@]}" -n "$ns" delete job tempo-create-bucket --ignore-not-found
kubectl "${kc[@]}" apply -f - <<YAML
apiVersion: batch/v1
kind: Job
metadata:
  name: tempo-create-bucket
  namespace: "$ns"
spec:
  backoffLimit: 4
  template:
    spec:
      restartPolicy: OnFailure
      containers:
        - name: mc
          image: "$CP_PARAM_MC_IMAGE"
          envFrom:
            - secretRef:
                name: tempo-s3
          env:
            - name: S3_ENDPOINT
              value: "$endpoint"
            - name: BUCKET
              value: "$CP_PARAM_BUCKET"
          command: ["/bin/sh", "-c"]
          args:
            - mc alias set s3 "\$S3_ENDPOINT" "\$AWS_ACCESS_KEY_ID" "\$AWS_SECRET_ACCESS_KEY" && mc mb --ignore-existing "s3/\$BUCKET"
YAML
kubectl "${kc[@]}" -n "$ns" wait --for=condition=complete job/tempo-create-bucket --timeout=5m
echo "$ns/tempo-s3" >"$CP_OUTPUT_DIR/tempo.s3_secret_ref"
echo "create-bucket-and-credentials: bucket $CP_PARAM_BUCKET ready at $endpoint"
