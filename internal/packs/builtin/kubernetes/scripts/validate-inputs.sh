#!/usr/bin/env bash
# Validates the cluster parameters and the host list, then writes them
# normalized (one key=value a line, sorted) as the normalized_parameters
# artifact and under /var/lib/cp/kubernetes for the evidence.
set -euo pipefail

fail() { echo "validate-inputs: $*" >&2; exit 1; }
# refuse NAME VALUE FORM fails quoting at most 200 characters of VALUE.
refuse() { local v=${2:0:200}; fail "$1 \"${v//[[:cntrl:]]/?}\" is not $3"; }
# check NAME VALUE REGEX FORM refuses VALUE unless it matches REGEX: every
# value is checked here before any use, whatever the pack declares.
check() { [[ $2 =~ $3 ]] || refuse "$1" "$2" "$4"; }

# An IPv4 CIDR a.b.c.d/n, without leading zeros.
cidr_re='^(0|[1-9][0-9]{0,2})\.(0|[1-9][0-9]{0,2})\.(0|[1-9][0-9]{0,2})\.(0|[1-9][0-9]{0,2})/([1-9][0-9]?)$'

# valid_cidr succeeds for an IPv4 network a.b.c.d/8..30; arithmetic only
# on the digits the pattern matched.
valid_cidr() {
  [[ "$1" =~ $cidr_re ]] || return 1
  local i
  for i in 1 2 3 4; do (( 10#${BASH_REMATCH[i]} <= 255 )) || return 1; done
  (( 10#${BASH_REMATCH[5]} >= 8 && 10#${BASH_REMATCH[5]} <= 30 ))
}

# cidr_range prints the first and last address of a CIDR that passed
# valid_cidr as integers.
cidr_range() {
  [[ "$1" =~ $cidr_re ]] || fail "cidr_range: $1 is no CIDR"
  local a=$((10#${BASH_REMATCH[1]})) b=$((10#${BASH_REMATCH[2]})) c=$((10#${BASH_REMATCH[3]})) d=$((10#${BASH_REMATCH[4]}))
  local bits=$((10#${BASH_REMATCH[5]}))
  local n=$(( (a << 24) | (b << 16) | (c << 8) | d ))
  local size=$(( 1 << (32 - bits) ))
  local first=$(( n & ~(size - 1) & 0xFFFFFFFF ))
  echo "$first $(( first + size - 1 ))"
}

name="${CP_PARAM_CLUSTER_NAME:-${CP_CLUSTER:-}}"
check cluster_name "$name" '^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$' "a DNS label: a-z, 0-9 and '-', at most 63 characters"
version="${CP_PARAM_KUBERNETES_VERSION#v}"
check kubernetes_version "$version" '^1\.([0-9]{1,3})\.[0-9]{1,3}$' "a version such as 1.31.2"
(( 10#${BASH_REMATCH[1]} >= 29 )) || fail "kubernetes_version $version is older than 1.29, which this pack does not install"
case "$CP_PARAM_CNI" in calico|cilium|flannel) ;; *) refuse cni "$CP_PARAM_CNI" "calico, cilium or flannel" ;; esac
[[ "$CP_PARAM_CONTAINER_RUNTIME" == containerd ]] || refuse container_runtime "$CP_PARAM_CONTAINER_RUNTIME" "containerd"
case "$CP_PARAM_STORAGE" in longhorn|none) ;; *) refuse storage "$CP_PARAM_STORAGE" "longhorn or none" ;; esac
for p in POD_CIDR SERVICE_CIDR; do
  v="CP_PARAM_$p"
  valid_cidr "${!v}" || refuse "${p,,}" "${!v}" "an IPv4 CIDR such as 10.244.0.0/16"
done
if ! [[ "$CP_PARAM_WIREGUARD_CIDR" =~ ^([0-9]{1,3}\.){3}0/24$ ]] || ! valid_cidr "$CP_PARAM_WIREGUARD_CIDR"; then
  refuse wireguard_cidr "$CP_PARAM_WIREGUARD_CIDR" "an IPv4 /24 such as 10.200.0.0/24"
fi
read -r p1 p2 <<<"$(cidr_range "$CP_PARAM_POD_CIDR")"
read -r s1 s2 <<<"$(cidr_range "$CP_PARAM_SERVICE_CIDR")"
(( p2 < s1 || s2 < p1 )) || fail "pod_cidr $CP_PARAM_POD_CIDR overlaps service_cidr $CP_PARAM_SERVICE_CIDR; choose disjoint ranges"

addr_re='^[A-Za-z0-9.:][A-Za-z0-9.:-]{0,252}$'
masters=0 hosts=0
declare -A role_of=()
while read -r host addr role extra; do
  [[ -n "$host" ]] || continue
  [[ -z "$extra" ]] || fail "host $host has more than a name, an address and a role"
  hosts=$((hosts + 1))
  check "host name" "$host" '^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$' "a valid Kubernetes node name"
  [[ -n "$addr" ]] || fail "host $host has no address"
  check "address of host $host" "$addr" "$addr_re" "an IP address or host name"
  check "role of host $host" "$role" '^[a-z][a-z0-9_-]{0,62}$' "a role such as master or worker"
  [[ "$role" == master ]] && masters=$((masters + 1))
  role_of[$host]=$role
done < <(tr , '\n' <<<"${CP_HOSTS:-}")
(( masters >= 1 )) || fail "the intent has no host with role master; add at least one"
(( hosts <= 253 )) || fail "the intent has $hosts hosts; the WireGuard /24 holds at most 253"

# node_addresses: name=IPv4 entries, each naming a host of the intent once.
# A host's node address (kubelet node-ip, a master's advertise address and
# etcd peer URL) is its entry, else its SSH address.
ipv4_re='^(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])(\.(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])){3}$'
declare -A node_addr=()
[[ "${CP_PARAM_NODE_ADDRESSES:-}" != *[[:cntrl:]]* ]] || fail "node_addresses holds a control character; list name=IPv4 entries"
IFS=, read -r -a entries <<<"${CP_PARAM_NODE_ADDRESSES:-}"
for e in "${entries[@]}"; do
  [[ -n "$e" ]] || continue
  n=${e%%=*} a=${e#*=}
  [[ "$e" == *=* && "$n" =~ ^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$ && "$a" =~ $ipv4_re ]] || refuse "node_addresses entry" "$e" "name=IPv4 such as worker-1=192.168.10.21"
  [[ -n "${role_of[$n]:-}" ]] || fail "node_addresses names $n, which is no host of the intent; remove it or add the host"
  [[ -z "${node_addr[$n]:-}" ]] || fail "node_addresses gives host $n two addresses; keep one"
  node_addr[$n]=$a
done

endpoint="${CP_PARAM_CONTROL_PLANE_ENDPOINT:-}"
if [[ -z "$endpoint" ]]; then
  (( masters == 1 )) || fail "control_plane_endpoint is empty but there are $masters masters; set it to a load balancer address:port"
  # The first master's node address, as render-kubeadm-config advertises
  # it; its SSH address only when node_addresses has no entry for it.
  first="${CP_FIRST_MASTER_ADDRESS:-}"
  [[ -z "${CP_FIRST_MASTER:-}" || -z "${node_addr[$CP_FIRST_MASTER]:-}" ]] || first=${node_addr[$CP_FIRST_MASTER]}
  check "address of the first master" "$first" "$addr_re" "an IP address or host name"
  endpoint="$first:6443"
else
  check control_plane_endpoint "$endpoint" \
    '^([A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?|\[[0-9A-Fa-f:.]{2,45}\]):([0-9]{1,5})$' "an address:port such as 10.0.0.10:6443"
  (( 10#${BASH_REMATCH[3]} >= 1 && 10#${BASH_REMATCH[3]} <= 65535 )) ||
    fail "control_plane_endpoint $endpoint has port ${BASH_REMATCH[3]}; use 1 to 65535"
fi

state=/var/lib/cp/kubernetes
mkdir -p "$state"
{
  echo "cluster_name=$name"
  echo "cni=$CP_PARAM_CNI"
  echo "container_runtime=$CP_PARAM_CONTAINER_RUNTIME"
  echo "control_plane_endpoint=$endpoint"
  echo "hosts=$hosts"
  echo "kubernetes_version=$version"
  echo "masters=$masters"
  echo "pod_cidr=$CP_PARAM_POD_CIDR"
  echo "service_cidr=$CP_PARAM_SERVICE_CIDR"
  echo "storage=$CP_PARAM_STORAGE"
} >"$state/normalized_parameters.tmp"
mv "$state/normalized_parameters.tmp" "$state/normalized_parameters"
cp "$state/normalized_parameters" "$CP_OUTPUT_DIR/normalized_parameters"
echo "validate-inputs: $hosts hosts ($masters masters), Kubernetes $version, CNI $CP_PARAM_CNI, endpoint $endpoint"
