#!/usr/bin/env bash
# Configures wg0 with every other host of the inventory as a peer. Keys are
# derived from the mesh secret and the host name, so every node computes its
# peers' public keys itself. Rewrites and restarts only when peers change.
set -euo pipefail

fail() { echo "wireguard-mesh on $CP_HOST: $*" >&2; exit 1; }

command -v wg >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y wireguard-tools
secret=$(cat "$CP_ARTIFACT_WIREGUARD_MESH_SECRET")
[[ -n "$secret" ]] || fail "the wireguard.mesh_secret artifact is empty"

# private_key NAME prints the derived WireGuard private key of host NAME.
private_key() {
  local hex
  hex=$(printf '%s:%s' "$secret" "$1" | sha256sum | cut -d' ' -f1)
  # shellcheck disable=SC2059
  printf "$(sed 's/../\\x&/g' <<<"$hex")" | base64
}

prefix=${CP_PARAM_WIREGUARD_CIDR%.*}
port=$CP_PARAM_WIREGUARD_PORT
self=$(awk -v h="$CP_HOST" '$2 == h {print $1}' "$CP_ARTIFACT_NODE_INVENTORY")
[[ -n "$self" ]] || fail "host is not in the node inventory"

umask 077
mkdir -p /etc/wireguard
conf=/etc/wireguard/wg0.conf
{
  echo "[Interface]"
  echo "Address = $prefix.$self/24"
  echo "ListenPort = $port"
  echo "PrivateKey = $(private_key "$CP_HOST")"
  while read -r idx host addr _; do
    [[ "$host" == "$CP_HOST" ]] && continue
    echo
    echo "[Peer]"
    echo "PublicKey = $(private_key "$host" | wg pubkey)"
    echo "AllowedIPs = $prefix.$idx/32"
    echo "Endpoint = $addr:$port"
    echo "PersistentKeepalive = 25"
  done <"$CP_ARTIFACT_NODE_INVENTORY"
} >"$conf.new"

if [[ -f "$conf" ]] && cmp -s "$conf" "$conf.new"; then
  rm -f "$conf.new"
  systemctl enable --now wg-quick@wg0
  echo "wireguard-mesh: wg0 unchanged on $CP_HOST"
  exit 0
fi
mv "$conf.new" "$conf"
systemctl enable --now wg-quick@wg0
systemctl restart wg-quick@wg0
echo "wireguard-mesh: wg0 configured on $CP_HOST as $prefix.$self with $(grep -c '^\[Peer\]' "$conf") peers"
