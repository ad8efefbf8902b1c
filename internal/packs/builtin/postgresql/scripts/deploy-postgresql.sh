#!/usr/bin/env bash
# Deploys PostgreSQL from the official postgres image (postgres_image, a
# pinned tag) as a one-replica StatefulSet with a Service, applied with
# kubectl.
set -euo pipefail

# Bitnami's images moved to a legacy repository in 2025, so its chart no
# longer pulls. Passwords are generated once into the Secret
# postgresql-auth (postgres-password for the superuser postgres, password
# for the application user); the application user and database are
# created on first start by an init script that gets every value from the
# environment (psql variables, never pasted into SQL). Every value put
# into a manifest is checked first against a pattern with no quote,
# backslash, space or newline.

fail() { echo "deploy-postgresql on ${CP_HOST:-?}: $*" >&2; exit 1; }
# refuse NAME VALUE FORM fails quoting at most 200 characters of VALUE.
refuse() { local v=${2:0:200}; fail "$1 \"${v//[[:cntrl:]]/?}\" is not $3"; }
# check NAME VALUE REGEX FORM refuses VALUE unless it matches REGEX: every
# value is checked here before any use, whatever the pack declares.
check() { [[ $2 =~ $3 ]] || refuse "$1" "$2" "$4"; }

label_re='^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$'
# A PostgreSQL identifier that needs no quoting.
ident_re='^[a-z_][a-z0-9_]{0,62}$'
check namespace "${CP_PARAM_NAMESPACE:-}" "$label_re" "a DNS label such as postgresql"
check release_name "${CP_PARAM_RELEASE_NAME:-}" "$label_re" "a DNS label such as postgresql"
check username "${CP_PARAM_USERNAME:-}" "$ident_re" "a PostgreSQL name: a-z, 0-9 and _, not starting with a digit, at most 63"
check database "${CP_PARAM_DATABASE:-}" "$ident_re" "a PostgreSQL name: a-z, 0-9 and _, not starting with a digit, at most 63"
check storage_size "${CP_PARAM_STORAGE_SIZE:-}" '^[0-9]{1,15}(\.[0-9]{1,15})?(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?$' \
  "a Kubernetes quantity such as 20Gi"
# An image reference: [host[:port]/]path[:tag][@sha256:digest].
image_re='^(([a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?(\.[a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?)*(:[0-9]{1,5})?)/)?[a-z0-9]+(([._]|__|-+)[a-z0-9]+)*(/[a-z0-9]+(([._]|__|-+)[a-z0-9]+)*)*(:[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?(@sha256:[a-f0-9]{64})?$'
check postgres_image "${CP_PARAM_POSTGRES_IMAGE:-}" "$image_re" "an image reference such as postgres:17.6-bookworm"
# Pinned: a tag naming major and minor (17.6, 17.6-bookworm) or a digest;
# postgres:17 or :latest would move under a running server and its backups.
[[ "$CP_PARAM_POSTGRES_IMAGE" =~ :[0-9]{1,3}\.[0-9]{1,3}([.-][A-Za-z0-9_.-]*)?(@sha256:[a-f0-9]{64})?$|@sha256:[a-f0-9]{64}$ ]] ||
  fail "postgres_image $CP_PARAM_POSTGRES_IMAGE names no major.minor tag or digest; pin one such as postgres:17.6-bookworm"

kc=(--kubeconfig "$CP_ARTIFACT_KUBECONFIG_ADMIN")
ns=$CP_PARAM_NAMESPACE
release=$CP_PARAM_RELEASE_NAME
rand() { head -c "$1" /dev/urandom | od -An -tx1 | tr -d ' \n'; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
umask 077
kubectl "${kc[@]}" create namespace "$ns" --dry-run=client -o yaml | kubectl "${kc[@]}" apply -f -
if ! kubectl "${kc[@]}" -n "$ns" get secret postgresql-auth -o name >/dev/null 2>&1; then
  printf 'postgres-password=%s\npassword=%s\n' "$(rand 24)" "$(rand 24)" >"$work/auth.env"
  kubectl "${kc[@]}" -n "$ns" create secret generic postgresql-auth --from-env-file="$work/auth.env"
fi
# The application user and database, created by the image's entrypoint on
# the first start (an empty data directory) from /docker-entrypoint-initdb.d.
cat >"$work/10-app-user.sh" <<'SH'
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname postgres \
  -v app_user="$APP_USER" -v app_password="$APP_PASSWORD" -v app_db="$APP_DATABASE" <<'SQL'
CREATE ROLE :"app_user" LOGIN PASSWORD :'app_password';
CREATE DATABASE :"app_db" OWNER :"app_user";
SQL
SH
kubectl "${kc[@]}" -n "$ns" create configmap postgresql-init --from-file=10-app-user.sh="$work/10-app-user.sh" \
  --dry-run=client -o yaml | kubectl "${kc[@]}" apply -f -
kubectl "${kc[@]}" apply -f - <<YAML
apiVersion: v1
kind: Service
metadata:
  name: "$release"
  namespace: "$ns"
  labels: {app.kubernetes.io/name: postgresql, app.kubernetes.io/instance: "$release"}
spec:
  type: ClusterIP
  selector: {app.kubernetes.io/name: postgresql, app.kubernetes.io/instance: "$release"}
  ports:
    - {name: postgresql, port: 5432, targetPort: 5432, protocol: TCP}
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: "$release"
  namespace: "$ns"
  labels: {app.kubernetes.io/name: postgresql, app.kubernetes.io/instance: "$release"}
spec:
  serviceName: "$release"
  replicas: 1
  selector:
    matchLabels: {app.kubernetes.io/name: postgresql, app.kubernetes.io/instance: "$release"}
  template:
    metadata:
      labels: {app.kubernetes.io/name: postgresql, app.kubernetes.io/instance: "$release"}
    spec:
      securityContext: {fsGroup: 999}
      volumes:
        - name: init
          configMap: {name: postgresql-init}
      containers:
        - name: postgresql
          image: "$CP_PARAM_POSTGRES_IMAGE"
          ports:
            - {name: postgresql, containerPort: 5432}
          env:
            - {name: POSTGRES_USER, value: postgres}
            - name: POSTGRES_PASSWORD
              valueFrom: {secretKeyRef: {name: postgresql-auth, key: postgres-password}}
            - {name: APP_USER, value: "$CP_PARAM_USERNAME"}
            - {name: APP_DATABASE, value: "$CP_PARAM_DATABASE"}
            - name: APP_PASSWORD
              valueFrom: {secretKeyRef: {name: postgresql-auth, key: password}}
            - {name: PGDATA, value: /var/lib/postgresql/data/pgdata}
          readinessProbe:
            exec: {command: ["pg_isready", "-h", "127.0.0.1", "-U", "postgres"]}
            periodSeconds: 10
          volumeMounts:
            - {name: data, mountPath: /var/lib/postgresql/data}
            - {name: init, mountPath: /docker-entrypoint-initdb.d, readOnly: true}
  volumeClaimTemplates:
    - metadata: {name: data}
      spec:
        accessModes: [ReadWriteOnce]
        resources:
          requests: {storage: "$CP_PARAM_STORAGE_SIZE"}
YAML
ready=""
for _ in $(seq 1 120); do
  ready=$(kubectl "${kc[@]}" -n "$ns" get statefulset "$release" -o jsonpath='{.status.readyReplicas}')
  [[ "$ready" == 1 ]] && break
  sleep 5
done
[[ "$ready" == 1 ]] || fail "StatefulSet $ns/$release is not ready after 10 minutes; see kubectl -n $ns describe pod $release-0"

pass=$(kubectl "${kc[@]}" -n "$ns" get secret postgresql-auth -o jsonpath='{.data.password}' | base64 -d)
[[ -n "$pass" && "$pass" != *[[:space:][:cntrl:]]* ]] ||
  fail "the password in Secret $ns/postgresql-auth is empty or holds a space or control character; delete the Secret to generate a new one"
printf 'PGUSER=%s\nPGPASSWORD=%s\n' "$CP_PARAM_USERNAME" "$pass" >"$CP_OUTPUT_DIR/postgresql.credentials"
printf 'host=%s\nport=5432\ndbname=%s\nuser=%s\n' "$release.$ns.svc" "$CP_PARAM_DATABASE" "$CP_PARAM_USERNAME" \
  >"$CP_OUTPUT_DIR/postgresql.connection"
echo "deploy-postgresql: $CP_PARAM_POSTGRES_IMAGE ready at $release.$ns.svc:5432"
