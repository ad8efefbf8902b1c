#!/usr/bin/env bash
# Drops the nodes that left the cluster from this node's wg0: the [Peer]
# sections of wg0.conf whose PublicKey is a key of wireguard.left ("host
# key" lines) go, the rest of the file stays as wireguard-mesh wrote it,
# and wg-quick@wg0 restarts when the file changed.
set -euo pipefail

fail() { echo "prune-wireguard-mesh on ${CP_HOST:-?}: $*" >&2; exit 1; }

key_re='^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=$'
conf=/etc/wireguard/wg0.conf
[[ -f "$conf" ]] || fail "$conf is missing; this node is not in the WireGuard mesh (run the create or add_node action)"

declare -A left=()
while read -r host value extra; do
  [[ -n "$host" ]] || continue
  [[ -z "$extra" && "$value" =~ $key_re ]] || fail "the wireguard.left line of host ${host//[^a-z0-9.-]/?} is not \"host key\" with a WireGuard public key"
  [[ "$host" != "$CP_HOST" ]] || fail "this node is listed as leaving the mesh; it does not prune its own peers"
  left[$value]=$host
done <"$CP_ARTIFACT_WIREGUARD_LEFT"

# Each section runs from its [Interface] or [Peer] line to the next one:
# a [Peer] section is kept unless its PublicKey is a leaving key.
umask 077
keys=$(printf '%s\n' "${!left[@]}")
awk -v keys="$keys" '
  BEGIN { n = split(keys, k, "\n"); for (i = 1; i <= n; i++) if (k[i] != "") drop[k[i]] = 1 }
  function flush() { if (sec != "" && !(peer && (pk in drop))) printf "%s", sec; sec = ""; peer = 0; pk = "" }
  # Blank lines go with the section that follows them.
  /^$/ { blank = blank "\n"; next }
  /^\[(Interface|Peer)\]$/ { flush(); peer = ($0 == "[Peer]"); sec = blank; blank = "" }
  /^PublicKey = / { pk = $3 }
  { sec = sec blank $0 "\n"; blank = "" }
  END { flush(); printf "%s", blank }' "$conf" >"$conf.new"
chmod 0600 "$conf.new"
dropped=$(( $(grep -c '^\[Peer\]' "$conf" || true) - $(grep -c '^\[Peer\]' "$conf.new" || true) ))
if cmp -s "$conf" "$conf.new"; then
  rm -f "$conf.new"
  echo "prune-wireguard-mesh: $CP_HOST has none of the leaving nodes as a peer"
  exit 0
fi
mv "$conf.new" "$conf"
systemctl restart wg-quick@wg0
echo "prune-wireguard-mesh: $CP_HOST dropped $dropped peer(s) that left: ${left[*]}"
