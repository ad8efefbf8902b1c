#!/usr/bin/env bash
# Generates this node's WireGuard private key once, on the node, into the
# root-only /etc/wireguard/wg0.key, and writes only its public key to the
# output (artifact wireguard.public_key). An existing key is kept, so a
# re-run changes nothing; a file that holds no key is refused, not replaced.
set -euo pipefail

fail() { echo "generate-wireguard-key on $CP_HOST: $*" >&2; exit 1; }

# A WireGuard key is 32 bytes in base64: 43 characters, the last of which
# carries 4 bits, and "=".
key_re='^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=$'
dir=/etc/wireguard
key=$dir/wg0.key

# A fresh host's package lists may be empty (cloud images ship none), so
# apt-get install alone finds no wireguard-tools; apt reads the proxy that
# configure-proxy wrote (this job runs after it).
if ! command -v wg >/dev/null; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update || fail "apt-get update failed; check the host's apt sources and the proxy (http_proxy, https_proxy)"
  apt-get install -y wireguard-tools || fail "apt-get install wireguard-tools failed"
fi
umask 077
mkdir -p "$dir"
chown root:root "$dir"
chmod 0700 "$dir"
if [[ -e "$key" ]]; then
  [[ -f "$key" && ! -L "$key" ]] || fail "$key is not a regular file; remove it to have a key generated"
  [[ "$(<"$key")" =~ $key_re ]] || fail "$key does not hold a WireGuard private key; move it away to have a new one generated"
  echo "generate-wireguard-key: kept the key of $CP_HOST"
else
  rm -f "$key.tmp"
  wg genkey >"$key.tmp"
  [[ "$(<"$key.tmp")" =~ $key_re ]] || fail "wg genkey printed no WireGuard key"
  chmod 0600 "$key.tmp"
  mv "$key.tmp" "$key"
  echo "generate-wireguard-key: generated the key of $CP_HOST"
fi
chown root:root "$key"
chmod 0600 "$key"
pub=$(wg pubkey <"$key")
[[ "$pub" =~ $key_re ]] || fail "wg pubkey printed no WireGuard public key for $key"
printf '%s\n' "$pub" >"$CP_OUTPUT_DIR/wireguard.public_key"
# The cluster-wide mesh secret of earlier versions let any node derive
# every key; the keys are per node now and the secret has no use.
rm -f /var/lib/cp/kubernetes/wireguard-mesh.secret
