#!/usr/bin/env bash
# Checks that the login reaches root through sudo and that the host resolves
# and reaches the image registry and the configured mirrors: a GET of each
# one's API root (/v2/) over TLS (HTTP for an http:// mirror) must be
# answered 200 or 401, as the OCI distribution spec says a registry answers
# (401 asks for a token). The probed URLs are kept in
# /var/lib/cp/kubernetes/registry-probes for the evidence to reach again.
set -euo pipefail

fail() { echo "validate-credentials on ${CP_HOST:-?}: $*" >&2; exit 1; }
# refuse NAME VALUE FORM fails quoting at most 200 characters of VALUE.
refuse() { local v=${2:0:200}; fail "$1 \"${v//[[:cntrl:]]/?}\" is not $3"; }
# check NAME VALUE REGEX FORM refuses VALUE unless it matches REGEX: every
# value is checked here before any use, whatever the pack declares.
check() { [[ $2 =~ $3 ]] || refuse "$1" "$2" "$4"; }
# shellcheck source=../lib/proxy-env.sh
source "${BASH_SOURCE[0]%/*}/../lib/proxy-env.sh"

host_re='^[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?$'
# host[:port], the port 1-65535: without one the registry is probed on 443.
port_re='(:([1-9][0-9]{0,3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5]))?$'
check registry_host "${CP_PARAM_REGISTRY_HOST:-}" "${host_re%$}$port_re" \
  "a registry host name with an optional port from 1 to 65535, such as registry.k8s.io or registry.internal:5000"
mirrors_value=${CP_PARAM_REGISTRY_MIRRORS:-}
[[ $mirrors_value != *[[:cntrl:]]* ]] || fail "registry_mirrors holds a control character; separate items with commas"
IFS=, read -ra mirrors <<<"$mirrors_value"
registries=("${CP_PARAM_REGISTRY_HOST%:*}")
probes=("https://$CP_PARAM_REGISTRY_HOST/v2/")
for m in "${mirrors[@]}"; do
  # scheme://host[:port][/path]: the host is what must resolve.
  check "registry_mirrors item" "$m" '^(https?)://([A-Za-z0-9.-]+|\[([0-9A-Fa-f:.]+)\])(:[0-9]{1,5})?([/?#][^[:space:][:cntrl:]]*)?$' \
    "an http(s) URL with a host name or [IPv6] such as https://mirror.gcr.io"
  h=${BASH_REMATCH[3]:-${BASH_REMATCH[2]}}
  probe="${BASH_REMATCH[1]}://${BASH_REMATCH[2]}${BASH_REMATCH[4]}/v2/"
  [[ -n "${BASH_REMATCH[3]}" ]] || check "registry_mirrors host" "$h" "$host_re" "a host name"
  registries+=("$h")
  probes+=("$probe")
done

[[ "$(id -u)" == 0 ]] || fail "the job runs as uid $(id -u), not root; give the SSH user passwordless sudo"
for r in "${registries[@]}"; do
  getent hosts "$r" >/dev/null || fail "cannot resolve registry host $r; fix DNS or set registry_mirrors"
done
for u in "${probes[@]}"; do
  code=$(curl -sS --max-time 10 -o /dev/null -w '%{http_code}' "$u") ||
    fail "cannot reach registry $u (curl exit $?, HTTP ${code:-none}); check the route, proxy and TLS trust to it, or set registry_mirrors"
  [[ "$code" == 200 || "$code" == 401 ]] ||
    fail "registry $u answered HTTP ${code:0:3}, not 200 or 401: it is not a container registry API (or a proxy refused it)"
done
mkdir -p /var/lib/cp/kubernetes
printf '%s\n' "${registries[@]}" >/var/lib/cp/kubernetes/registries-checked
printf '%s\n' "${probes[@]}" >/var/lib/cp/kubernetes/registry-probes
echo "validate-credentials: root via sudo, registries resolved and reached: ${probes[*]}"
