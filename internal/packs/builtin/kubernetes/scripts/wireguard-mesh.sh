#!/usr/bin/env bash
# Configures wg0 with every other host of the inventory as a peer. Each
# node has its own private key (/etc/wireguard/wg0.key, from
# generate-wireguard-key); the peers' public keys come from the
# wireguard.public_key artifact, one "host key" line per node. wg0.conf is
# a strict template filled with checked values only: keys, IP addresses,
# host numbers and the port; nothing else can reach it. Rewrites and
# restarts only when the configuration changes.
set -euo pipefail

fail() { echo "wireguard-mesh on $CP_HOST: $*" >&2; exit 1; }

key_re='^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=$'
octet='(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])'
ipv4_re="^$octet(\\.$octet){3}$"
ipv6_re='^[0-9A-Fa-f]{0,4}(:[0-9A-Fa-f]{0,4}){2,7}$'

# A fresh host's package lists may be empty (cloud images ship none), so
# apt-get install alone finds no wireguard-tools; apt reads the proxy that
# configure-proxy wrote (this job runs after it).
if ! command -v wg >/dev/null; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update || fail "apt-get update failed; check the host's apt sources and the proxy (http_proxy, https_proxy)"
  apt-get install -y wireguard-tools || fail "apt-get install wireguard-tools failed"
fi

port=$CP_PARAM_WIREGUARD_PORT
[[ "$port" =~ ^[0-9]{1,5}$ ]] || fail "wireguard_port must be a number from 1 to 65535"
port=$((10#$port))
(( port >= 1 && port <= 65535 )) || fail "wireguard_port $port is not from 1 to 65535"

cidr=$CP_PARAM_WIREGUARD_CIDR
[[ "$cidr" =~ ^$octet\.$octet\.$octet\.0/24$ ]] || fail "wireguard_cidr must be an IPv4 /24 such as 10.200.0.0/24"
prefix=${cidr%.0/24}

key=/etc/wireguard/wg0.key
[[ -f "$key" ]] || fail "$key is missing; run generate-wireguard-key on this host first"
priv=$(<"$key")
[[ "$priv" =~ $key_re ]] || fail "$key does not hold a WireGuard private key"

declare -A pub=()
while read -r host value extra; do
  [[ -n "$host" ]] || continue
  [[ -z "$extra" && "$value" =~ $key_re ]] || fail "the wireguard.public_key line of host $host is not \"host key\" with a WireGuard public key"
  pub[$host]=$value
done <"$CP_ARTIFACT_WIREGUARD_PUBLIC_KEY"
[[ "${pub[$CP_HOST]:-}" == "$(wg pubkey <"$key")" ]] ||
  fail "the public key published for this host is not the one of $key; run generate-wireguard-key on it again"

# endpoint ADDRESS prints ADDRESS:port, IPv6 in brackets; refuses anything
# that is not an IP address.
endpoint() {
  if [[ "$1" =~ $ipv4_re ]]; then
    printf '%s:%s' "$1" "$port"
  elif [[ "$1" =~ $ipv6_re ]]; then
    printf '[%s]:%s' "$1" "$port"
  else
    return 1
  fi
}

# A host's WireGuard endpoint is its entry of wireguard_endpoints
# ("name=IPv4" entries), else its inventory (SSH) address.
declare -A wg_ep=()
[[ "${CP_PARAM_WIREGUARD_ENDPOINTS:-}" != *[[:cntrl:]]* ]] || fail "wireguard_endpoints entry holds a control character; list name=IPv4 entries"
IFS=, read -r -a wg_entries <<<"${CP_PARAM_WIREGUARD_ENDPOINTS:-}"
for e in "${wg_entries[@]}"; do
  [[ -n "$e" ]] || continue
  [[ "${e%%=*}" =~ ^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$ && "${e#*=}" =~ $ipv4_re ]] ||
    fail "wireguard_endpoints entry \"${e//[[:cntrl:]]/?}\" is not name=IPv4"
  wg_ep[${e%%=*}]=${e#*=}
done

# Each inventory line is "index name address role"; the index numbers the
# host in the /24.
self="" peers=""
while read -r idx host addr _; do
  [[ -n "$idx" ]] || continue
  [[ "$idx" =~ ^[0-9]{1,3}$ ]] || fail "the node inventory numbers host $host outside 1-254"
  idx=$((10#$idx))
  (( idx >= 1 && idx <= 254 )) || fail "the node inventory numbers host $host outside 1-254"
  if [[ "$host" == "$CP_HOST" ]]; then
    self=$idx
    continue
  fi
  ep=$(endpoint "${wg_ep[$host]:-$addr}") || fail "the node inventory address of host $host is not an IP address"
  [[ -n "${pub[$host]:-}" ]] || fail "host $host published no WireGuard public key; run generate-wireguard-key on it"
  peers+=$(printf '\n[Peer]\nPublicKey = %s\nAllowedIPs = %s.%s/32\nEndpoint = %s\nPersistentKeepalive = 25\n' \
    "${pub[$host]}" "$prefix" "$idx" "$ep")
  peers+=$'\n'
done <"$CP_ARTIFACT_NODE_INVENTORY"
[[ -n "$self" ]] || fail "host is not in the node inventory"

umask 077
mkdir -p /etc/wireguard
chmod 0700 /etc/wireguard
conf=/etc/wireguard/wg0.conf
printf '[Interface]\nAddress = %s.%s/24\nListenPort = %s\nPrivateKey = %s\n%s' "$prefix" "$self" "$port" "$priv" "$peers" >"$conf.new"
chmod 0600 "$conf.new"

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
