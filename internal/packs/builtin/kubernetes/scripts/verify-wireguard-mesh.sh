#!/usr/bin/env bash
# Checks, on this node, that wg0 has a recent handshake with every peer of
# the mesh, and fails naming this node and each peer without one.
set -euo pipefail

# Each other node whose public key the wireguard.public_key artifact lists
# ("host key" lines) is a peer of wg0, and its latest handshake (wg show
# wg0 latest-handshakes: "KEY<TAB>SECONDS", 0 for never) is younger than
# five minutes. The interfaces come up with PersistentKeepalive, which
# starts a handshake at once and renews it every two minutes, so a peer
# without one after the wait is down, runs another key than it published,
# or cannot be reached at its endpoint over UDP. Runs on every node, so a
# broken tunnel fails on the node that sees it.

fail() { echo "verify-wireguard-mesh on ${CP_HOST:-?}: $*" >&2; exit 1; }

[[ "${CP_HOST:-}" =~ ^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$ ]] || fail "host is not a Kubernetes node name"
key_re='^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=$'

# The nodes of the mesh are the hosts of the intent (CP_HOSTS, "name
# address role" entries): a node removed since (remove_node) keeps its
# key in the artifact but is no peer any more.
declare -A member=()
IFS=, read -r -a entries <<<"${CP_HOSTS:-}"
for e in "${entries[@]}"; do
  [[ -n "$e" ]] && member[${e%% *}]=1
done
declare -A host_of=()
while read -r host value extra; do
  [[ -n "$host" ]] || continue
  [[ -z "$extra" && "$host" =~ ^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$ && "$value" =~ $key_re ]] ||
    fail "a wireguard.public_key line is not \"host key\" with a node name and a WireGuard public key"
  (( ${#member[@]} == 0 )) || [[ -n "${member[$host]:-}" ]] || continue
  host_of[$value]=$host
done <"$CP_ARTIFACT_WIREGUARD_PUBLIC_KEY"

# problems prints one "PEER (why)" per peer without a recent handshake,
# space separated; fails when wg0 cannot be read.
problems() {
  local hs now key ts out="" k
  declare -A seen=()
  hs=$(wg show wg0 latest-handshakes) || return 1
  now=$(date +%s)
  [[ "$now" =~ ^[0-9]{1,12}$ ]] || return 1
  while IFS=$' \t' read -r key ts; do
    [[ -n "$key" ]] || continue
    seen[$key]=1
    local name=${host_of[$key]:-"unknown key $key"}
    if ! [[ "$ts" =~ ^[0-9]{1,12}$ ]]; then
      out+="$name (unreadable handshake time), "
    elif ((10#$ts == 0)); then
      out+="$name (never), "
    elif ((now - 10#$ts > 300)); then
      out+="$name ($((now - 10#$ts))s ago), "
    fi
  done <<<"$hs"
  while read -r k; do
    [[ -n "$k" ]] && out+="$k (not a peer of wg0), "
  done < <(for k in "${!host_of[@]}"; do
    [[ "${host_of[$k]}" == "$CP_HOST" || -n "${seen[$k]:-}" ]] || printf '%s\n' "${host_of[$k]}"
  done | sort)
  printf '%s' "${out%, }"
}

out=""
for _ in $(seq 1 30); do
  out=$(problems) && [[ -z "$out" ]] && break
  sleep 5
done
out=$(problems) || fail "cannot read wg0's handshakes; is wg-quick@wg0 up on $CP_HOST?"
[[ -z "$out" ]] || fail "no recent WireGuard handshake from $CP_HOST with ${out:0:600}: check that wg-quick@wg0 runs on those peers with the key they published, and that their WireGuard port is reachable over UDP from $CP_HOST"
peers=0
for k in "${!host_of[@]}"; do [[ "${host_of[$k]}" == "$CP_HOST" ]] || peers=$((peers + 1)); done
echo "verify-wireguard-mesh: $CP_HOST has a recent handshake with each of its $peers peers"
