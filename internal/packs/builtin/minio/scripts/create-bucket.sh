#!/usr/bin/env bash
# Creates the bucket with a MinIO client Job using the root Secret.
set -euo pipefail

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
            - {name: ENDPOINT, value: "http://$CP_PARAM_RELEASE_NAME.$ns.svc:9000"}
            - {name: BUCKET, value: "$CP_PARAM_BUCKET"}
            - {name: REGION, value: "$CP_PARAM_REGION"}
            - name: ROOT_USER
              valueFrom: {secretKeyRef: {name: minio-root, key: rootUser}}
            - name: ROOT_PASSWORD
              valueFrom: {secretKeyRef: {name: minio-root, key: rootPassword}}
          command: ["/bin/sh", "-c"]
          args:
            - mc alias set s3 "\$ENDPOINT" "\$ROOT_USER" "\$ROOT_PASSWORD" && mc mb --ignore-existing --region "\$REGION" "s3/\$BUCKET"
YAML
kubectl "${kc[@]}" -n "$ns" wait --for=condition=complete job/minio-create-bucket --timeout=5m
echo "create-bucket: bucket $CP_PARAM_BUCKET ready"
