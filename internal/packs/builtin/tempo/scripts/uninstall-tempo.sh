#!/usr/bin/env bash
# Uninstalls the Tempo release and its S3 credentials Secret; the bucket
# and the traces in it are kept.
set -euo pipefail

fail() { echo "uninstall-tempo on ${CP_HOST:-?}: $*" >&2; exit 1; }
# refuse NAME VALUE FORM fails quoting at most 200 characters of VALUE.
refuse() { local v=${2:0:200}; fail "$1 \"${v//[[:cntrl:]]/?}\" is not $3"; }
# check NAME VALUE REGEX FORM refuses VALUE unless it matches REGEX: every
# value is checked here before any use, whatever the pack declares.
check() { [[ $2 =~ $3 ]] || refuse "$1" "$2" "$4"; }

label_re='^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$'
check namespace "${CP_PARAM_NAMESPACE:-}" "$label_re" "a DNS label such as tempo"
check release_name "${CP_PARAM_RELEASE_NAME:-}" "$label_re" "a DNS label such as tempo"

kc=(--kubeconfig "$CP_ARTIFACT_KUBECONFIG_ADMIN")
ns=$CP_PARAM_NAMESPACE
# Only helm's "release: not found" means there is nothing to uninstall; a
# cluster that does not answer fails the job instead of passing as removed.
if out=$(helm status "$CP_PARAM_RELEASE_NAME" --namespace "$ns" "${kc[@]}" 2>&1); then
  helm uninstall "$CP_PARAM_RELEASE_NAME" --namespace "$ns" "${kc[@]}" --wait
elif [[ "$out" != *"release: not found"* ]]; then
  out=${out//[[:cntrl:]]/ }
  fail "cannot tell whether release $CP_PARAM_RELEASE_NAME exists: ${out:0:200}"
fi
kubectl "${kc[@]}" -n "$ns" delete secret tempo-s3 --ignore-not-found
kubectl "${kc[@]}" -n "$ns" delete job tempo-create-bucket tempo-verify --ignore-not-found
echo "uninstall-tempo: release $CP_PARAM_RELEASE_NAME removed from $ns"
