#!/usr/bin/env bash
# Takes this node, which leaves the cluster, out of the WireGuard mesh:
# publishes its public key (wireguard.left) for the nodes that stay to
# drop, then stops wg-quick@wg0 and removes wg0.conf and the private key.
# The public key is kept in /etc/wireguard/wg0.left.pub until the next
# generate-wireguard-key, so a retry after the key is gone publishes it
# again.
set -euo pipefail

fail() { echo "leave-wireguard-mesh on ${CP_HOST:-?}: $*" >&2; exit 1; }

key_re='^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=$'
dir=/etc/wireguard
left=$dir/wg0.left.pub
pub=""
if [[ -f "$dir/wg0.key" ]]; then
  command -v wg >/dev/null || fail "wg is missing; install wireguard-tools or remove $dir/wg0.key by hand"
  pub=$(wg pubkey <"$dir/wg0.key") || fail "$dir/wg0.key does not hold a WireGuard private key"
elif [[ -f "$left" ]]; then
  pub=$(<"$left")
fi
if [[ -n "$pub" ]]; then
  [[ "$pub" =~ $key_re ]] || fail "the public key of this node is not a WireGuard key"
  umask 077
  printf '%s\n' "$pub" >"$left"
  printf '%s\n' "$pub" >"$CP_OUTPUT_DIR/wireguard.left"
fi
if systemctl is-active --quiet wg-quick@wg0 || systemctl is-enabled wg-quick@wg0 >/dev/null 2>&1; then
  systemctl disable --now wg-quick@wg0
fi
rm -f "$dir/wg0.conf" "$dir/wg0.conf.new" "$dir/wg0.key"
if [[ -z "$pub" ]]; then
  echo "leave-wireguard-mesh: $CP_HOST had no WireGuard key; nothing to drop"
  exit 0
fi
echo "leave-wireguard-mesh: $CP_HOST left the mesh (wg0 stopped, its key removed)"
