#!/usr/bin/env bash
# Checks that the login reaches root through sudo and that the host resolves
# the image registry (or the configured mirrors).
set -euo pipefail

fail() { echo "validate-credentials on $CP_HOST: $*" >&2; exit 1; }

[[ "$(id -u)" == 0 ]] || fail "the job runs as uid $(id -u), not root; give the SSH user passwordless sudo"

registries=("$CP_PARAM_REGISTRY_HOST")
IFS=, read -ra mirrors <<<"${CP_PARAM_REGISTRY_MIRRORS:-}"
for m in "${mirrors[@]}"; do
  m=${m#*://}
  m=${m%%/*}
  [[ -n "$m" ]] && registries+=("${m%:*}")
done
for r in "${registries[@]}"; do
  getent hosts "$r" >/dev/null || fail "cannot resolve registry host $r; fix DNS or set registry_mirrors"
done
mkdir -p /var/lib/cp/kubernetes
printf '%s\n' "${registries[@]}" >/var/lib/cp/kubernetes/registries-checked
echo "validate-credentials: root via sudo, registries resolved: ${registries[*]}"
