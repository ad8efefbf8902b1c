#!/usr/bin/env bash
# Writes an object, reads it back and checks that it is stored encrypted,
# from a MinIO client Job inside the cluster.
set -euo pipefail

kc=(--kubeconfig "$CP_ARTIFACT_KUBECONFIG_ADMIN")
ns=$CP_PARAM_NAMESPACE
kubectl "${kc[@]}" -n "$ns" delete job minio-verify --ignore-not-found
kubectl "${kc[@]}" apply -f - <<YAML
apiVersion: batch/v1
kind: Job
metadata:
  name: minio-verify
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
            - {name: ENDPOINT, value: "http://$CP_PARAM_RELEASE_NAME.$ns.svc:9000"}
            - {name: BUCKET, value: "$CP_PARAM_BUCKET"}
            - name: ROOT_USER
              valueFrom: {secretKeyRef: {name: minio-root, key: rootUser}}
            - name: ROOT_PASSWORD
              valueFrom: {secretKeyRef: {name: minio-root, key: rootPassword}}
          command: ["/bin/sh", "-c"]
          args:
            - >-
              mc alias set s3 "\$ENDPOINT" "\$ROOT_USER" "\$ROOT_PASSWORD" &&
              echo cp-verify | mc pipe "s3/\$BUCKET/.cp-verify" &&
              [ "\$(mc cat "s3/\$BUCKET/.cp-verify")" = cp-verify ] &&
              mc stat "s3/\$BUCKET/.cp-verify" | grep -qi encrypt &&
              mc rm "s3/\$BUCKET/.cp-verify"
YAML
kubectl "${kc[@]}" -n "$ns" wait --for=condition=complete job/minio-verify --timeout=5m
echo "verify-minio: object written, read and found encrypted in $CP_PARAM_BUCKET"
