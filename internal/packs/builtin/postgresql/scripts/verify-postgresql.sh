#!/usr/bin/env bash
# Connects as the application user from a Job inside the cluster and runs
# SELECT 1. Every value put into the Job manifest is checked first against
# a pattern with no quote, backslash, space or newline, so it stays one
# double-quoted YAML scalar.
set -euo pipefail

fail() { echo "verify-postgresql on ${CP_HOST:-?}: $*" >&2; exit 1; }
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
check username "${CP_PARAM_USERNAME:-}" "$ident_re" "a PostgreSQL name: a-z, 0-9 and _, not starting with a digit, at most 63"
check database "${CP_PARAM_DATABASE:-}" "$ident_re" "a PostgreSQL name: a-z, 0-9 and _, not starting with a digit, at most 63"
check postgres_image "${CP_PARAM_POSTGRES_IMAGE:-}" "$image_re" "an image reference such as postgres:16"

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
