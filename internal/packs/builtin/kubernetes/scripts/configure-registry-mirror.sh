#!/usr/bin/env bash
# Points containerd at the registry mirrors (registry_mirrors, comma
# separated URLs) for every registry in mirrored_registries, through
# /etc/containerd/certs.d/<registry>/hosts.toml.
set -euo pipefail

fail() { echo "configure-registry-mirror on $CP_HOST: $*" >&2; exit 1; }

IFS=, read -ra mirrors <<<"${CP_PARAM_REGISTRY_MIRRORS:-}"
(( ${#mirrors[@]} > 0 )) || fail "registry_mirrors is empty; set it to one or more mirror URLs"
IFS=, read -ra registries <<<"$CP_PARAM_MIRRORED_REGISTRIES"

conf=/etc/containerd/config.toml
[[ -s "$conf" ]] || fail "$conf is missing; install the container runtime first"
if ! grep -Eq '^[[:space:]]*config_path[[:space:]]*=[[:space:]]*"/etc/containerd/certs.d"' "$conf"; then
  sed -i -E 's#^([[:space:]]*config_path[[:space:]]*=[[:space:]]*)""#\1"/etc/containerd/certs.d"#' "$conf"
  grep -Eq 'config_path[[:space:]]*=[[:space:]]*"/etc/containerd/certs.d"' "$conf" ||
    fail "cannot set config_path in $conf; set it to /etc/containerd/certs.d by hand"
fi

for r in "${registries[@]}"; do
  server="https://$r"
  [[ "$r" == docker.io ]] && server="https://registry-1.docker.io"
  mkdir -p "/etc/containerd/certs.d/$r"
  {
    echo "server = \"$server\""
    for m in "${mirrors[@]}"; do
      [[ "$m" =~ ^https?:// ]] || fail "mirror \"$m\" is not an http(s) URL"
      echo
      echo "[host.\"$m\"]"
      echo "  capabilities = [\"pull\", \"resolve\"]"
    done
  } >"/etc/containerd/certs.d/$r/hosts.toml"
done
echo "configure-registry-mirror: ${#registries[@]} registries mirrored on $CP_HOST"
