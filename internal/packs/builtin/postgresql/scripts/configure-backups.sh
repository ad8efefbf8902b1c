#!/usr/bin/env bash
# Schedules a nightly pg_dump uploaded to S3 when object storage is bound
# (the S3 artifacts are present); removes the schedule otherwise.
set -euo pipefail

kc=(--kubeconfig "$CP_ARTIFACT_KUBECONFIG_ADMIN")
ns=$CP_PARAM_NAMESPACE
if [[ -z "${CP_ARTIFACT_OBJECT_STORAGE_S3_ENDPOINT:-}" || -z "${CP_ARTIFACT_OBJECT_STORAGE_S3_CREDENTIALS:-}" ]]; then
  kubectl "${kc[@]}" -n "$ns" delete cronjob postgresql-backup --ignore-not-found
  echo "configure-backups: no object storage bound; backups disabled"
  exit 0
fi
endpoint=$(tr -d '[:space:]' <"$CP_ARTIFACT_OBJECT_STORAGE_S3_ENDPOINT")
kubectl "${kc[@]}" -n "$ns" create secret generic postgresql-backup-s3 \
  --from-env-file="$CP_ARTIFACT_OBJECT_STORAGE_S3_CREDENTIALS" --dry-run=client -o yaml | kubectl "${kc[@]}" apply -f -
kubectl "${kc[@]}" apply -f - <<YAML
apiVersion: batch/v1
kind: CronJob
metadata:
  name: postgresql-backup
  namespace: "$ns"
spec:
  schedule: "$CP_PARAM_BACKUP_SCHEDULE"
  concurrencyPolicy: Forbid
  jobTemplate:
    spec:
      backoffLimit: 2
      template:
        spec:
          restartPolicy: OnFailure
          volumes:
            - {name: dump, emptyDir: {}}
          initContainers:
            - name: dump
              image: "$CP_PARAM_POSTGRES_IMAGE"
              env:
                - {name: PGHOST, value: "$CP_PARAM_RELEASE_NAME.$ns.svc"}
                - {name: PGUSER, value: postgres}
                - {name: PGDATABASE, value: "$CP_PARAM_DATABASE"}
                - name: PGPASSWORD
                  valueFrom: {secretKeyRef: {name: postgresql-auth, key: postgres-password}}
              command: ["/bin/sh", "-c", "pg_dump -Fc -f /dump/db.dump"]
              volumeMounts:
                - {name: dump, mountPath: /dump}
          containers:
            - name: upload
              image: "$CP_PARAM_MC_IMAGE"
              envFrom:
                - secretRef: {name: postgresql-backup-s3}
              env:
                - {name: S3_ENDPOINT, value: "$endpoint"}
                - {name: BUCKET, value: "$CP_PARAM_BACKUP_BUCKET"}
              command: ["/bin/sh", "-c"]
              args:
                - >-
                  mc alias set s3 "\$S3_ENDPOINT" "\$AWS_ACCESS_KEY_ID" "\$AWS_SECRET_ACCESS_KEY" &&
                  mc mb --ignore-existing "s3/\$BUCKET" &&
                  mc cp /dump/db.dump "s3/\$BUCKET/\$(date +%Y%m%dT%H%M%S).dump"
              volumeMounts:
                - {name: dump, mountPath: /dump}
YAML
echo "configure-backups: pg_dump to $endpoint/$CP_PARAM_BACKUP_BUCKET on \"$CP_PARAM_BACKUP_SCHEDULE\""
