#!/usr/bin/env bash
# Removes the etcd member of the master CP_HOST that leaves the cluster,
# through the etcd of the masters that stay (never the leaving one's, which
# stops serving once removed). Runs on the first master (scope.run_on) with
# its kubeadm etcd client certificate, before the leaving host is reset. A
# host with no member (a worker, or a member already removed) has nothing
# to remove.
set -euo pipefail

fail() { echo "remove-etcd-member on ${CP_HOST:-?}: $*" >&2; exit 1; }
# refuse NAME VALUE FORM fails quoting at most 200 characters of VALUE.
refuse() { local v=${2:0:200}; fail "$1 \"${v//[[:cntrl:]]/?}\" is not $3"; }
# check NAME VALUE REGEX FORM refuses VALUE unless it matches REGEX.
check() { [[ $2 =~ $3 ]] || refuse "$1" "$2" "$4"; }

check host "${CP_HOST:-}" '^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$' "a Kubernetes node name"
if [[ "${CP_HOST_ROLE:-}" != master ]]; then
  echo "remove-etcd-member: $CP_HOST is a ${CP_HOST_ROLE:-host}, not an etcd member; nothing to remove"
  exit 0
fi
# node_address HOST ADDRESS prints HOST's entry of node_addresses (the
# address kubeadm advertised, on which its etcd serves clients), else
# ADDRESS (its SSH address).
node_address() {
  local e entries
  IFS=, read -r -a entries <<<"${CP_PARAM_NODE_ADDRESSES:-}"
  for e in "${entries[@]}"; do
    if [[ "${e%%=*}" == "$1" ]]; then printf '%s' "${e#*=}"; return; fi
  done
  printf '%s' "$2"
}
endpoints=()
IFS=, read -ra hosts <<<"${CP_HOSTS:-}"
for h in "${hosts[@]}"; do
  read -r name addr role <<<"$h"
  [[ "$role" == master && "$name" != "$CP_HOST" ]] || continue
  addr=$(node_address "$name" "$addr")
  check "node address of master $name" "$addr" '^(([0-9]{1,3}\.){3}[0-9]{1,3}|[0-9A-Fa-f:]{2,39})$' "an IP address"
  if [[ "$addr" == *:* ]]; then addr="[$addr]"; fi
  endpoints+=("https://$addr:2379")
done
((${#endpoints[@]} > 0)) || fail "$CP_HOST is the only master; removing its etcd member would leave no cluster (delete the cluster instead)"

pki=/etc/kubernetes/pki/etcd
for f in "$pki/ca.crt" "$pki/healthcheck-client.crt" "$pki/healthcheck-client.key"; do
  [[ -s "$f" ]] || fail "$f is missing on $(hostname): the job needs a master's kubeadm etcd client certificate"
done
export DEBIAN_FRONTEND=noninteractive
if ! command -v etcdctl >/dev/null; then
  apt-get update
  apt-get install -y etcd-client
fi
export ETCDCTL_API=3
ep=$(IFS=,; echo "${endpoints[*]}")
etcd=(etcdctl --endpoints="$ep" --cacert="$pki/ca.crt" --cert="$pki/healthcheck-client.crt" --key="$pki/healthcheck-client.key")
# member list -w simple: ID, status, name, peer URLs, client URLs, learner.
list=$("${etcd[@]}" member list -w simple) || fail "etcdctl member list through $ep failed; are the remaining masters' etcd healthy?"
id=$(awk -F', ' -v n="$CP_HOST" '$3 == n {print $1}' <<<"$list")
if [[ -z "$id" ]]; then
  echo "remove-etcd-member: $CP_HOST is not an etcd member; nothing to remove"
  exit 0
fi
check "etcd member id of $CP_HOST" "$id" '^[0-9a-f]{1,16}$' "a hexadecimal member id"
"${etcd[@]}" member remove "$id"
echo "remove-etcd-member: member $id ($CP_HOST) removed; the members are now:"
"${etcd[@]}" member list -w simple
