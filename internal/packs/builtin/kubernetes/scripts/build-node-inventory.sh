#!/usr/bin/env bash
# Writes the node inventory from the intent's hosts: one line per host,
# "index name address role", in intent order.
set -euo pipefail

fail() { echo "build-node-inventory: $*" >&2; exit 1; }
# refuse NAME VALUE FORM fails quoting at most 200 characters of VALUE.
refuse() { local v=${2:0:200}; fail "$1 \"${v//[[:cntrl:]]/?}\" is not $3"; }
# check NAME VALUE REGEX FORM refuses VALUE unless it matches REGEX: every
# value is checked here before any use, whatever the pack declares.
check() { [[ $2 =~ $3 ]] || refuse "$1" "$2" "$4"; }

state=/var/lib/cp/kubernetes
mkdir -p "$state"
: >"$state/node-inventory.tmp"
i=0
declare -A seen_name=() seen_addr=()
while read -r host addr role extra; do
  [[ -n "$host" ]] || continue
  [[ -z "$extra" ]] || fail "host $host has more than a name, an address and a role"
  check "host name" "$host" '^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$' "a valid Kubernetes node name"
  check "address of host $host" "$addr" '^[A-Za-z0-9.:][A-Za-z0-9.:-]{0,252}$' "an IP address or host name"
  check "role of host $host" "$role" '^[a-z][a-z0-9_-]{0,62}$' "a role such as master or worker"
  [[ -z "${seen_name[$host]:-}" ]] || fail "host $host is listed twice"
  [[ -z "${seen_addr[$addr]:-}" ]] || fail "address $addr is used by ${seen_addr[$addr]} and $host"
  seen_name[$host]=1 seen_addr[$addr]=$host
  i=$((i + 1))
  echo "$i $host $addr $role" >>"$state/node-inventory.tmp"
done < <(tr , '\n' <<<"${CP_HOSTS:-}")
(( i > 0 )) || fail "CP_HOSTS is empty; the intent lists no hosts"
mv "$state/node-inventory.tmp" "$state/node-inventory"
cp "$state/node-inventory" "$CP_OUTPUT_DIR/node_inventory"
echo "build-node-inventory: $i hosts"
