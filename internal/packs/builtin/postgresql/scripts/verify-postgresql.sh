#!/usr/bin/env bash
# Connects as the application user from a Job inside the cluster and runs
# SELECT 1.
set -euo pipefail

kc=(--kubeconfig "$CP_ARTIFACT_KUBECONFIG_ADMIN")
ns=$CP_PARAM_NAMESPACE
kubectl "${kc[@]}" -n "$ns" delete job postgresql-verify --ignore-not-found
kubectl "${kc[@]}" apply -f - <<YAML
apiVersion: batch/v1
kind: Job
metadata:
  name: postgresql-verify
  namespace: "$ns"
spec:
  backoffLimit: 3
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: psql
          image: "$CP_PARAM_POSTGRES_IMAGE"
          env:
            - {name: PGHOST, value: "$CP_PARAM_RELEASE_NAME.$ns.svc"}
            - {name: PGUSER, value: "$CP_PARAM_USERNAME"}
            - {name: PGDATABASE, value: "$CP_PARAM_DATABASE"}
            - name: PGPASSWORD
              valueFrom: {secretKeyRef: {name: postgresql-auth, key: password}}
          command: ["/bin/sh", "-c", "pg_isready && psql -v ON_ERROR_STOP=1 -tAc 'SELECT 1' | grep -qx 1"]
YAML
kubectl "${kc[@]}" -n "$ns" wait --for=condition=complete job/postgresql-verify --timeout=5m
echo "verify-postgresql: $CP_PARAM_USERNAME connected to $CP_PARAM_DATABASE"
