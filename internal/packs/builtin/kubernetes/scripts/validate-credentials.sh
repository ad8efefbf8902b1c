#!/usr/bin/env bash
# Checks that the login reaches root through sudo and that the host resolves
# the image registry (or the configured mirrors).
set -euo pipefail

fail() { echo "validate-credentials on ${CP_HOST:-?}: $*" >&2; exit 1; }
# refuse NAME VALUE FORM fails quoting at most 200 characters of VALUE.
refuse() { local v=${2:0:200}; fail "$1 \"${v//[[:cntrl:]]/?}\" is not $3"; }
# check NAME VALUE REGEX FORM refuses VALUE unless it matches REGEX: every
# value is checked here before any use, whatever the pack declares.
check() { [[ $2 =~ $3 ]] || refuse "$1" "$2" "$4"; }

host_re='^[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?$'
check registry_host "${CP_PARAM_REGISTRY_HOST:-}" "${host_re%$}(:[0-9]{1,5})?$" "a registry host name such as registry.k8s.io"
mirrors_value=${CP_PARAM_REGISTRY_MIRRORS:-}
[[ $mirrors_value != *[[:cntrl:]]* ]] || fail "registry_mirrors holds a control character; separate items with commas"
IFS=, read -ra mirrors <<<"$mirrors_value"
registries=("${CP_PARAM_REGISTRY_HOST%:*}")
for m in "${mirrors[@]}"; do
  # scheme://host[:port][/path]: the host is what must resolve.
  check "registry_mirrors item" "$m" '^https?://([A-Za-z0-9.-]+|\[([0-9A-Fa-f:.]+)\])(:[0-9]{1,5})?([/?#][^[:space:][:cntrl:]]*)?$' \
    "an http(s) URL with a host name or [IPv6] such as https://mirror.gcr.io"
  h=${BASH_REMATCH[2]:-${BASH_REMATCH[1]}}
  [[ -n "${BASH_REMATCH[2]}" ]] || check "registry_mirrors host" "$h" "$host_re" "a host name"
  registries+=("$h")
done

[[ "$(id -u)" == 0 ]] || fail "the job runs as uid $(id -u), not root; give the SSH user passwordless sudo"
for r in "${registries[@]}"; do
  getent hosts "$r" >/dev/null || fail "cannot resolve registry host $r; fix DNS or set registry_mirrors"
done
mkdir -p /var/lib/cp/kubernetes
printf '%s\n' "${registries[@]}" >/var/lib/cp/kubernetes/registries-checked
echo "validate-credentials: root via sudo, registries resolved: ${registries[*]}"
