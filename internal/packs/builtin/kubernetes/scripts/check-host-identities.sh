#!/usr/bin/env bash
# Compares the machine ids and host names preflight-host recorded on every
# host (the host.identity artifact, one "host machine-id hostname" line per
# host): two hosts with one machine id (a cloned image) or one host name
# break kubeadm's node identity and the CNI's per-node state.
set -euo pipefail

fail() { echo "check-host-identities: $*" >&2; exit 1; }

# Only the hosts of the intent (CP_HOSTS, "name address role" entries)
# count: a node removed since keeps its host.identity in state, and the
# same machine may come back under another name.
declare -A member=()
IFS=, read -r -a entries <<<"${CP_HOSTS:-}"
for e in "${entries[@]}"; do
  [[ -n "$e" ]] && member[${e%% *}]=1
done
declare -A by_id=() by_name=()
dups=()
n=0
while read -r host id name extra; do
  [[ -n "$host" ]] || continue
  (( ${#member[@]} == 0 )) || [[ -n "${member[$host]:-}" ]] || continue
  [[ -z "$extra" && "$host" =~ ^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$ && "$id" =~ ^[0-9a-f]{32}$ &&
    "$name" =~ ^[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?$ ]] ||
    fail "the host.identity line of ${host//[^a-z0-9.-]/?} is not \"host machine-id hostname\""
  n=$((n + 1))
  if [[ -n "${by_id[$id]:-}" ]]; then
    dups+=("$host and ${by_id[$id]} share the machine id $id (a cloned image): run rm /etc/machine-id && systemd-machine-id-setup on one of them and reboot it")
  fi
  lname=${name,,}
  if [[ -n "${by_name[$lname]:-}" ]]; then
    dups+=("$host and ${by_name[$lname]} share the host name $name: give each its own with hostnamectl set-hostname")
  fi
  by_id[$id]=$host by_name[$lname]=$host
done <"$CP_ARTIFACT_HOST_IDENTITY"
(( n > 0 )) || fail "no host recorded its identity; run preflight-host"
state=/var/lib/cp/kubernetes
mkdir -p "$state"
if (( ${#dups[@]} > 0 )); then
  printf 'check-host-identities: %s\n' "${dups[@]}" >&2
  echo duplicate >"$state/host-identities"
  exit 1
fi
echo unique >"$state/host-identities"
echo "check-host-identities: $n hosts, machine ids and host names unique"
