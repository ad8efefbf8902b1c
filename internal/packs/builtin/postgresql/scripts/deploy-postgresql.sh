#!/usr/bin/env bash
# Installs the Bitnami PostgreSQL chart. Passwords are generated once into
# the Secret postgresql-auth, which the chart reads; they never enter the
# Helm values.
set -euo pipefail

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
printf 'PGUSER=%s\nPGPASSWORD=%s\n' "$CP_PARAM_USERNAME" "$pass" >"$CP_OUTPUT_DIR/postgresql.credentials"
printf 'host=%s\nport=5432\ndbname=%s\nuser=%s\n' "$release.$ns.svc" "$CP_PARAM_DATABASE" "$CP_PARAM_USERNAME" \
  >"$CP_OUTPUT_DIR/postgresql.connection"
echo "deploy-postgresql: release $release ready at $release.$ns.svc:5432"
