#!/usr/bin/env bash
# Points containerd at the registry mirrors (registry_mirrors, comma
# separated URLs) for every registry in mirrored_registries, through
# /etc/containerd/certs.d/<registry>/hosts.toml.
set -euo pipefail

fail() { echo "configure-registry-mirror on ${CP_HOST:-?}: $*" >&2; exit 1; }
# refuse NAME VALUE FORM fails quoting at most 200 characters of VALUE.
refuse() { local v=${2:0:200}; fail "$1 \"${v//[[:cntrl:]]/?}\" is not $3"; }
# check NAME VALUE REGEX FORM refuses VALUE unless it matches REGEX: every
# value is checked here before any use, whatever the pack declares.
check() { [[ $2 =~ $3 ]] || refuse "$1" "$2" "$4"; }
# one_line NAME VALUE refuses a control character in a list, where a
# newline would end the read early and drop the rest.
one_line() { [[ $2 != *[[:cntrl:]]* ]] || fail "$1 holds a control character; separate items with commas"; }

# A mirror goes into a TOML basic string: no '"', '\', space, comma or
# control character can be in it (the characters of a URL otherwise).
mirror_re='^https?://[]A-Za-z0-9._~:/?#@!$&'"'"'()*+;=%[-]+$'
# A registry names a directory under certs.d: host[:port], no '/'.
registry_re='^[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?(:[0-9]{1,5})?$'
one_line registry_mirrors "${CP_PARAM_REGISTRY_MIRRORS:-}"
IFS=, read -ra mirrors <<<"${CP_PARAM_REGISTRY_MIRRORS:-}"
(( ${#mirrors[@]} > 0 )) || fail "registry_mirrors is empty; set it to one or more mirror URLs"
for m in "${mirrors[@]}"; do
  check "registry_mirrors item" "$m" "$mirror_re" "an http(s) URL such as https://mirror.gcr.io"
done
one_line mirrored_registries "${CP_PARAM_MIRRORED_REGISTRIES:-}"
IFS=, read -ra registries <<<"${CP_PARAM_MIRRORED_REGISTRIES:-}"
(( ${#registries[@]} > 0 )) || fail "mirrored_registries is empty; list the registries the mirrors stand in for"
for r in "${registries[@]}"; do
  check "mirrored_registries item" "$r" "$registry_re" "a registry host[:port] such as docker.io"
done

etc=/etc/containerd
conf=$etc/config.toml
certs=$etc/certs.d
[[ -s "$conf" ]] || fail "$conf is missing; install the container runtime first"

# shellcheck source=../lib/toml.sh
source "${BASH_SOURCE[0]%/*}/../lib/toml.sh"
version=$(awk -F= '/^version[[:space:]]*=/ { gsub(/[[:space:]]/, "", $2); print $2; exit }' "$conf")
case "$version" in
2) registry='plugins."io.containerd.grpc.v1.cri".registry' ;;  # containerd 1.6/1.7
3) registry='plugins."io.containerd.cri.v1.images".registry' ;; # containerd 2.x
*) fail "$conf has config version \"${version:0:20}\"; this job knows 2 (containerd 1.6/1.7) and 3 (2.x): run install-container-runtime first" ;;
esac
if [[ "$(toml_get "$registry" config_path <"$conf")" != /etc/containerd/certs.d ]]; then
  toml_set "$registry" config_path '"/etc/containerd/certs.d"' <"$conf" >"$conf.tmp"
  [[ "$(toml_get "$registry" config_path <"$conf.tmp")" == /etc/containerd/certs.d ]] ||
    fail "cannot set config_path in [$registry] of $conf; set it to \"/etc/containerd/certs.d\" by hand"
  mv "$conf.tmp" "$conf"
fi

mkdir -p "$certs"
base=$(realpath -e -- "$certs")
for r in "${registries[@]}"; do
  dir="$base/$r"
  # A symlink in the way would lead the write out of certs.d.
  [[ "$(realpath -m -- "$dir")" == "$dir" ]] || fail "$dir resolves outside $base; remove the link"
  server="https://$r"
  [[ "$r" == docker.io ]] && server="https://registry-1.docker.io"
  mkdir -p "$dir"
  {
    printf 'server = "%s"\n' "$server"
    for m in "${mirrors[@]}"; do
      printf '\n[host."%s"]\n  capabilities = ["pull", "resolve"]\n' "$m"
    done
  } >"$dir/hosts.toml.tmp"
  mv "$dir/hosts.toml.tmp" "$dir/hosts.toml"
done
echo "configure-registry-mirror: ${#registries[@]} registries mirrored on ${CP_HOST:-?}"
