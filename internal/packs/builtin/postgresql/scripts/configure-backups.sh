#!/usr/bin/env bash
# Schedules a nightly pg_dump uploaded to S3 when object storage is bound
# (the S3 artifacts are present); removes the schedule otherwise. Every
# value put into the CronJob manifest is checked first against a pattern
# with no quote, backslash or newline, so it stays one double-quoted YAML
# scalar.
set -euo pipefail

fail() { echo "configure-backups on ${CP_HOST:-?}: $*" >&2; exit 1; }
# refuse NAME VALUE FORM fails quoting at most 200 characters of VALUE.
refuse() { local v=${2:0:200}; fail "$1 \"${v//[[:cntrl:]]/?}\" is not $3"; }
# check NAME VALUE REGEX FORM refuses VALUE unless it matches REGEX: every
# value is checked here before any use, whatever the pack declares.
check() { [[ $2 =~ $3 ]] || refuse "$1" "$2" "$4"; }

label_re='^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$'
# An image reference: [host[:port]/]path[:tag][@sha256:digest].
image_re='^(([a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?(\.[a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?)*(:[0-9]{1,5})?)/)?[a-z0-9]+(([._]|__|-+)[a-z0-9]+)*(/[a-z0-9]+(([._]|__|-+)[a-z0-9]+)*)*(:[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?(@sha256:[a-f0-9]{64})?$'
# A PostgreSQL identifier that needs no quoting.
ident_re='^[a-z_][a-z0-9_]{0,62}$'
check namespace "${CP_PARAM_NAMESPACE:-}" "$label_re" "a DNS label such as postgresql"
check release_name "${CP_PARAM_RELEASE_NAME:-}" "$label_re" "a DNS label such as postgresql"

kc=(--kubeconfig "$CP_ARTIFACT_KUBECONFIG_ADMIN")
ns=$CP_PARAM_NAMESPACE
if [[ -z "${CP_ARTIFACT_OBJECT_STORAGE_S3_ENDPOINT:-}" || -z "${CP_ARTIFACT_OBJECT_STORAGE_S3_CREDENTIALS:-}" ]]; then
  kubectl "${kc[@]}" -n "$ns" delete cronjob postgresql-backup --ignore-not-found
  echo "configure-backups: no object storage bound; backups disabled"
  exit 0
fi
check database "${CP_PARAM_DATABASE:-}" "$ident_re" "a PostgreSQL name: a-z, 0-9 and _, not starting with a digit, at most 63"
check postgres_image "${CP_PARAM_POSTGRES_IMAGE:-}" "$image_re" "an image reference such as postgres:16"
check mc_image "${CP_PARAM_MC_IMAGE:-}" "$image_re" "an image reference such as minio/mc:RELEASE.2024-10-08T09-37-26Z"
check backup_bucket "${CP_PARAM_BACKUP_BUCKET:-}" '^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$' \
  "an S3 bucket name: 3 to 63 of a-z, 0-9, '.' and '-'"
check backup_schedule "${CP_PARAM_BACKUP_SCHEDULE:-}" \
  '^(@(annually|yearly|monthly|weekly|daily|midnight|hourly)|[0-9*/,-]{1,64}( [0-9*/,-]{1,64}){4})$' \
  "a five-field cron schedule such as \"0 3 * * *\" or a macro such as @daily"
endpoint=$(tr -d '[:space:]' <"$CP_ARTIFACT_OBJECT_STORAGE_S3_ENDPOINT")
check object_storage.s3.endpoint "$endpoint" '^https?://([A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(:[0-9]{1,5})?(/[A-Za-z0-9._~%/-]*)?$' \
  "an http(s) URL such as http://minio.minio.svc:9000"
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
