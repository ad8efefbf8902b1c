#!/usr/bin/env bash
# Schedules a nightly pg_dump uploaded to S3 when object storage is bound
# (the S3 artifacts are present), takes one backup now and restores the
# latest backup into a scratch database to prove backups restore; removes
# the schedule, its Jobs and its credentials otherwise.
set -euo pipefail

# Backups get S3 credentials of their own, in the Secret
# postgresql-backup-s3. When the bound storage is a MinIO whose
# credentials artifact names its admin API (S3_ADMIN_API=minio, with
# S3_ADMIN_NAMESPACE and S3_ADMIN_SECRET, the Secret holding rootUser and
# rootPassword), a Job in that namespace creates the backup bucket and a
# MinIO user for this PostgreSQL whose policy allows only listing that
# bucket and reading and writing its objects; the secret key is generated
# here once and kept across runs. The admin credentials never enter
# PostgreSQL's namespace. Otherwise the bound credentials are the ones
# issued for this consumer and go to postgresql-backup-s3 as they are.
#
# mc reaches S3 through MC_HOST_<alias>, which Kubernetes composes from
# Secret keys ($(VAR) expansion of dependent environment variables); the
# new user's secret key reaches mc on its standard input from a mounted
# Secret. No credential is in a manifest or on mc's command line. Every
# value put into a manifest is checked first against a pattern with no
# quote, backslash, space or newline, so it stays one double-quoted YAML
# scalar; the policy is a fixed document around the checked bucket name.

fail() { echo "configure-backups on ${CP_HOST:-?}: $*" >&2; exit 1; }
# refuse NAME VALUE FORM fails quoting at most 200 characters of VALUE.
refuse() { local v=${2:0:200}; fail "$1 \"${v//[[:cntrl:]]/?}\" is not $3"; }
# check NAME VALUE REGEX FORM refuses VALUE unless it matches REGEX: every
# value is checked here before any use, whatever the pack declares.
check() { [[ $2 =~ $3 ]] || refuse "$1" "$2" "$4"; }
# check_key NAME VALUE refuses, without quoting it, a key that is not 1 to
# 128 characters of letters, digits and + / = . _ ~ - (no ':' or '@',
# which would break MC_HOST_<alias>).
check_key() { [[ $2 =~ ^[A-Za-z0-9+/=._~-]{1,128}$ ]] || fail "$1 in object_storage.s3.credentials must be 1 to 128 letters, digits or + / = . _ ~ -"; }

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
  kubectl "${kc[@]}" -n "$ns" delete job postgresql-backup-bucket --ignore-not-found
  kubectl "${kc[@]}" -n "$ns" delete job postgresql-backup-now --ignore-not-found
  kubectl "${kc[@]}" -n "$ns" delete job postgresql-restore-check --ignore-not-found
  kubectl "${kc[@]}" -n "$ns" delete secret postgresql-backup-s3 --ignore-not-found
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
bucket=$CP_PARAM_BACKUP_BUCKET
endpoint=$(tr -d '[:space:]' <"$CP_ARTIFACT_OBJECT_STORAGE_S3_ENDPOINT")
# mc takes an endpoint of scheme, host and port only in MC_HOST_<alias>.
check object_storage.s3.endpoint "$endpoint" '^https?://([A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(:[0-9]{1,5})?/?$' \
  "an http(s) URL of a host and port only, such as http://minio.minio.svc:9000"
scheme=${endpoint%%://*}
hostport=${endpoint#*://}
hostport=${hostport%/}

declare -A cred=()
while IFS= read -r line || [[ -n "$line" ]]; do
  [[ -n "$line" ]] || continue
  key=${line%%=*}
  case $key in
    AWS_ACCESS_KEY_ID | AWS_SECRET_ACCESS_KEY | S3_ADMIN_API | S3_ADMIN_NAMESPACE | S3_ADMIN_SECRET) cred[$key]=${line#*=} ;;
    *) fail "object_storage.s3.credentials may hold only AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, S3_ADMIN_API, S3_ADMIN_NAMESPACE and S3_ADMIN_SECRET lines" ;;
  esac
done <"$CP_ARTIFACT_OBJECT_STORAGE_S3_CREDENTIALS"

admin_api=${cred[S3_ADMIN_API]:-}
admin_ns=${cred[S3_ADMIN_NAMESPACE]:-}
admin_secret=${cred[S3_ADMIN_SECRET]:-}
case $admin_api in
  minio)
    check S3_ADMIN_NAMESPACE "$admin_ns" "$label_re" "a DNS label such as minio"
    check S3_ADMIN_SECRET "$admin_secret" '^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$' "a Secret name such as minio-root"
    ;;
  "")
    check_key AWS_ACCESS_KEY_ID "${cred[AWS_ACCESS_KEY_ID]:-}"
    check_key AWS_SECRET_ACCESS_KEY "${cred[AWS_SECRET_ACCESS_KEY]:-}"
    ;;
  *) fail "S3_ADMIN_API in object_storage.s3.credentials must be minio or absent" ;;
esac

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
umask 077
rand() { head -c "$1" /dev/urandom | od -An -tx1 | tr -d ' \n'; }
# secret_value NAME KEY prints key KEY of Secret NAME in PostgreSQL's namespace.
secret_value() { kubectl "${kc[@]}" -n "$ns" get secret "$1" -o "jsonpath={.data.$2}" | base64 -d; }

case $admin_api in
  minio)
    # One user and policy per PostgreSQL namespace and backup bucket.
    id=$(printf 'postgresql/%s/%s' "$ns" "$bucket" | sha256sum | cut -c1-12)
    user=postgresql-backup-$id
    obj=s3-user-$user
    secret=""
    if kubectl "${kc[@]}" -n "$ns" get secret postgresql-backup-s3 -o name >/dev/null 2>&1 &&
      [[ "$(secret_value postgresql-backup-s3 AWS_ACCESS_KEY_ID)" == "$user" ]]; then
      secret=$(secret_value postgresql-backup-s3 AWS_SECRET_ACCESS_KEY)
    fi
    [[ "$secret" =~ ^[0-9a-f]{48}$ ]] || secret=$(rand 24)
    printf '%s' "$user" >"$work/access_key"
    printf '%s' "$secret" >"$work/secret_key"
    # Listing the bucket (and its location, which the client asks for)
    # and reading and writing its objects; nothing else, and no other
    # bucket. The admin Job creates the bucket.
    cat >"$work/policy.json" <<JSON
{
  "Version": "2012-10-17",
  "Statement": [
    {
      "Effect": "Allow",
      "Action": ["s3:GetBucketLocation", "s3:ListBucket"],
      "Resource": ["arn:aws:s3:::$bucket"]
    },
    {
      "Effect": "Allow",
      "Action": ["s3:GetObject", "s3:PutObject"],
      "Resource": ["arn:aws:s3:::$bucket/*"]
    }
  ]
}
JSON
    # The new user's secret key and policy, in the storage's namespace for
    # the Job that creates the user there; the copy of the secret key is
    # removed once the user exists.
    kubectl "${kc[@]}" -n "$admin_ns" create secret generic "$obj" --from-file=secret_key="$work/secret_key" \
      --dry-run=client -o yaml | kubectl "${kc[@]}" apply -f -
    trap 'kubectl "${kc[@]}" -n "$admin_ns" delete secret "$obj" --ignore-not-found >/dev/null || true; rm -rf "$work"' EXIT
    kubectl "${kc[@]}" -n "$admin_ns" create configmap "$obj" --from-file=policy.json="$work/policy.json" \
      --dry-run=client -o yaml | kubectl "${kc[@]}" apply -f -
    kubectl "${kc[@]}" -n "$admin_ns" delete job "$obj" --ignore-not-found
    kubectl "${kc[@]}" apply -f - <<YAML
apiVersion: batch/v1
kind: Job
metadata:
  name: "$obj"
  namespace: "$admin_ns"
spec:
  backoffLimit: 4
  ttlSecondsAfterFinished: 3600
  template:
    spec:
      restartPolicy: OnFailure
      volumes:
        - name: user
          secret: {secretName: "$obj", defaultMode: 0400}
        - name: policy
          configMap: {name: "$obj"}
      containers:
        - name: mc
          image: "$CP_PARAM_MC_IMAGE"
          env:
            - name: ADMIN_USER
              valueFrom: {secretKeyRef: {name: "$admin_secret", key: rootUser}}
            - name: ADMIN_PASSWORD
              valueFrom: {secretKeyRef: {name: "$admin_secret", key: rootPassword}}
            - {name: MC_HOST_admin, value: "$scheme://\$(ADMIN_USER):\$(ADMIN_PASSWORD)@$hostport"}
            - {name: USER_NAME, value: "$user"}
            - {name: POLICY, value: "$user"}
            - {name: BUCKET, value: "$bucket"}
          volumeMounts:
            - {name: user, mountPath: /run/cp/user, readOnly: true}
            - {name: policy, mountPath: /run/cp/policy, readOnly: true}
          command: ["/bin/sh", "-c"]
          args:
            - >-
              mc mb --ignore-existing "admin/\$BUCKET" &&
              mc admin user add admin "\$USER_NAME" </run/cp/user/secret_key >/dev/null &&
              mc admin policy create admin "\$POLICY" /run/cp/policy/policy.json &&
              { mc admin policy attach admin "\$POLICY" --user "\$USER_NAME" ||
              mc admin user info admin "\$USER_NAME" --json | grep -q "\"policyName\": *\"\$POLICY\""; }
YAML
    kubectl "${kc[@]}" -n "$admin_ns" wait --for=condition=complete "job/$obj" --timeout=5m
    kubectl "${kc[@]}" -n "$admin_ns" delete secret "$obj" --ignore-not-found
    how="user $user limited to bucket $bucket"
    ;;
  *)
    # Credentials issued for this consumer by a storage without an admin
    # API known here: backups use them as they are.
    printf '%s' "${cred[AWS_ACCESS_KEY_ID]}" >"$work/access_key"
    printf '%s' "${cred[AWS_SECRET_ACCESS_KEY]}" >"$work/secret_key"
    how="the bound credentials"
    ;;
esac

kubectl "${kc[@]}" -n "$ns" create secret generic postgresql-backup-s3 \
  --from-file=AWS_ACCESS_KEY_ID="$work/access_key" --from-file=AWS_SECRET_ACCESS_KEY="$work/secret_key" \
  --dry-run=client -o yaml | kubectl "${kc[@]}" apply -f -

# The backup credentials reach the bucket before a backup is scheduled:
# listing it succeeds, or (storage without an admin API, bucket absent)
# it is created with them.
kubectl "${kc[@]}" -n "$ns" delete job postgresql-backup-bucket --ignore-not-found
kubectl "${kc[@]}" apply -f - <<YAML
apiVersion: batch/v1
kind: Job
metadata:
  name: postgresql-backup-bucket
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
            - name: AWS_ACCESS_KEY_ID
              valueFrom: {secretKeyRef: {name: postgresql-backup-s3, key: AWS_ACCESS_KEY_ID}}
            - name: AWS_SECRET_ACCESS_KEY
              valueFrom: {secretKeyRef: {name: postgresql-backup-s3, key: AWS_SECRET_ACCESS_KEY}}
            - {name: MC_HOST_s3, value: "$scheme://\$(AWS_ACCESS_KEY_ID):\$(AWS_SECRET_ACCESS_KEY)@$hostport"}
            - {name: BUCKET, value: "$bucket"}
          command: ["/bin/sh", "-c"]
          args:
            - mc ls "s3/\$BUCKET" >/dev/null || mc mb "s3/\$BUCKET"
YAML
kubectl "${kc[@]}" -n "$ns" wait --for=condition=complete job/postgresql-backup-bucket --timeout=5m

# The backup Pod: pg_dump of the server's own image (postgres_image, the
# server's major version: pg_dump refuses a newer server), then an upload
# named by its UTC time, so the latest dump sorts last.
# With DUMP set (the backup now), the upload is named DUMP instead.
backup_pod() {
  local indent=$1 dump_env=""
  [[ -z "${2:-}" ]] || dump_env=$'\n'"      - {name: DUMP, value: \"$2\"}"
  sed "s/^/$indent/" <<YAML
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
    env:
      - name: AWS_ACCESS_KEY_ID
        valueFrom: {secretKeyRef: {name: postgresql-backup-s3, key: AWS_ACCESS_KEY_ID}}
      - name: AWS_SECRET_ACCESS_KEY
        valueFrom: {secretKeyRef: {name: postgresql-backup-s3, key: AWS_SECRET_ACCESS_KEY}}
      - {name: MC_HOST_s3, value: "$scheme://\$(AWS_ACCESS_KEY_ID):\$(AWS_SECRET_ACCESS_KEY)@$hostport"}
      - {name: BUCKET, value: "$bucket"}$dump_env
    command: ["/bin/sh", "-c"]
    args:
      - mc cp /dump/db.dump "s3/\$BUCKET/\${DUMP:-\$(date -u +%Y%m%dT%H%M%SZ).dump}"
    volumeMounts:
      - {name: dump, mountPath: /dump}
YAML
}

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
$(backup_pod "          ")
YAML

# A backup now, so there is one to restore; then the restore check: the
# latest dump in the bucket is restored into a scratch database with
# pg_restore (the server's image), which is dropped again. Its Job's
# success is the evidence that backups restore, not that a schedule exists.
# The backup now is named by this host's UTC time and a random suffix, so
# the restore check reads back exactly the dump this run's Job wrote,
# never an older one that happens to sort last.
dump="$(date -u +%Y%m%dT%H%M%SZ)-$(rand 4).dump"
[[ "$dump" =~ ^[0-9]{8}T[0-9]{6}Z-[0-9a-f]{8}\.dump$ ]] || fail "cannot name the backup dump"
kubectl "${kc[@]}" -n "$ns" delete job postgresql-backup-now --ignore-not-found
kubectl "${kc[@]}" apply -f - <<YAML
apiVersion: batch/v1
kind: Job
metadata:
  name: postgresql-backup-now
  namespace: "$ns"
spec:
  backoffLimit: 2
  template:
    spec:
$(backup_pod "      " "$dump")
YAML
kubectl "${kc[@]}" -n "$ns" wait --for=condition=complete job/postgresql-backup-now --timeout=10m
kubectl "${kc[@]}" -n "$ns" delete job postgresql-restore-check --ignore-not-found
kubectl "${kc[@]}" apply -f - <<YAML
apiVersion: batch/v1
kind: Job
metadata:
  name: postgresql-restore-check
  namespace: "$ns"
spec:
  backoffLimit: 2
  template:
    spec:
      restartPolicy: OnFailure
      volumes:
        - {name: dump, emptyDir: {}}
      initContainers:
        - name: fetch-latest
          image: "$CP_PARAM_MC_IMAGE"
          env:
            - name: AWS_ACCESS_KEY_ID
              valueFrom: {secretKeyRef: {name: postgresql-backup-s3, key: AWS_ACCESS_KEY_ID}}
            - name: AWS_SECRET_ACCESS_KEY
              valueFrom: {secretKeyRef: {name: postgresql-backup-s3, key: AWS_SECRET_ACCESS_KEY}}
            - {name: MC_HOST_s3, value: "$scheme://\$(AWS_ACCESS_KEY_ID):\$(AWS_SECRET_ACCESS_KEY)@$hostport"}
            - {name: BUCKET, value: "$bucket"}
            - {name: DUMP, value: "$dump"}
          command: ["/bin/sh", "-c"]
          args:
            - mc cp "s3/\$BUCKET/\$DUMP" /dump/latest.dump
          volumeMounts:
            - {name: dump, mountPath: /dump}
      containers:
        - name: restore
          image: "$CP_PARAM_POSTGRES_IMAGE"
          env:
            - {name: PGHOST, value: "$CP_PARAM_RELEASE_NAME.$ns.svc"}
            - {name: PGUSER, value: postgres}
            - {name: PGDATABASE, value: postgres}
            - name: PGPASSWORD
              valueFrom: {secretKeyRef: {name: postgresql-auth, key: postgres-password}}
          command: ["/bin/sh", "-c"]
          args:
            - >-
              pg_restore --list /dump/latest.dump >/dev/null &&
              dropdb --if-exists cp_restore_check && createdb cp_restore_check &&
              pg_restore --exit-on-error --no-owner --no-privileges -d cp_restore_check /dump/latest.dump &&
              dropdb cp_restore_check
          volumeMounts:
            - {name: dump, mountPath: /dump}
YAML
kubectl "${kc[@]}" -n "$ns" wait --for=condition=complete job/postgresql-restore-check --timeout=10m
echo "configure-backups: pg_dump to $endpoint/$bucket on \"$CP_PARAM_BACKUP_SCHEDULE\" with $how"
