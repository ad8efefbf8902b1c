#!/usr/bin/env bash
# Installs the Bitnami PostgreSQL chart. Passwords are generated once into
# the Secret postgresql-auth, which the chart reads; they never enter the
# Helm values, which are rendered only from values checked here against
# patterns with no quote, backslash, space or newline.
set -euo pipefail

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
check chart_version "${CP_PARAM_CHART_VERSION:-}" '^v?[0-9]{1,9}\.[0-9]{1,9}\.[0-9]{1,9}(-[0-9A-Za-z.-]{1,64})?$' \
  "a chart version such as 16.0.3"

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
cat >"$work/values.yaml" <<YAML
auth:
  existingSecret: postgresql-auth
  database: "$CP_PARAM_DATABASE"
  username: "$CP_PARAM_USERNAME"
primary:
  persistence:
    size: "$CP_PARAM_STORAGE_SIZE"
YAML
helm upgrade --install "$release" oci://registry-1.docker.io/bitnamicharts/postgresql \
  --version "$CP_PARAM_CHART_VERSION" --namespace "$ns" --values "$work/values.yaml" "${kc[@]}" \
  --wait --timeout 10m

pass=$(kubectl "${kc[@]}" -n "$ns" get secret postgresql-auth -o jsonpath='{.data.password}' | base64 -d)
[[ -n "$pass" && "$pass" != *[[:space:][:cntrl:]]* ]] ||
  fail "the password in Secret $ns/postgresql-auth is empty or holds a space or control character; delete the Secret to generate a new one"
printf 'PGUSER=%s\nPGPASSWORD=%s\n' "$CP_PARAM_USERNAME" "$pass" >"$CP_OUTPUT_DIR/postgresql.credentials"
printf 'host=%s\nport=5432\ndbname=%s\nuser=%s\n' "$release.$ns.svc" "$CP_PARAM_DATABASE" "$CP_PARAM_USERNAME" \
  >"$CP_OUTPUT_DIR/postgresql.connection"
echo "deploy-postgresql: release $release ready at $release.$ns.svc:5432"
