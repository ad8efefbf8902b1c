#!/usr/bin/env bash
# Writes the node inventory from the intent's hosts: one line per host,
# "index name address role", in intent order.
set -euo pipefail

fail() { echo "build-node-inventory: $*" >&2; exit 1; }

state=/var/lib/cp/kubernetes
mkdir -p "$state"
: >"$state/node-inventory.tmp"
i=0
declare -A seen_name=() seen_addr=()
while read -r host addr role; do
  [[ -n "$host" ]] || continue
  [[ -z "${seen_name[$host]:-}" ]] || fail "host $host is listed twice"
  [[ -z "${seen_addr[$addr]:-}" ]] || fail "address $addr is used by ${seen_addr[$addr]} and $host"
  seen_name[$host]=1 seen_addr[$addr]=$host
  i=$((i + 1))
  echo "$i $host $addr $role" >>"$state/node-inventory.tmp"
done <<<"${CP_HOSTS:-}"
(( i > 0 )) || fail "CP_HOSTS is empty; the intent lists no hosts"
mv "$state/node-inventory.tmp" "$state/node-inventory"
cp "$state/node-inventory" "$CP_OUTPUT_DIR/node_inventory"
echo "build-node-inventory: $i hosts"
