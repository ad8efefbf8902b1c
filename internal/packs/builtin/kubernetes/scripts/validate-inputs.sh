#!/usr/bin/env bash
# Validates the cluster parameters and the host list, then writes them
# normalized (one key=value a line, sorted) as the normalized_parameters
# artifact and under /var/lib/cp/kubernetes for the evidence.
set -euo pipefail

fail() { echo "validate-inputs: $*" >&2; exit 1; }

valid_cidr() {
  [[ "$1" =~ ^([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})/([0-9]{1,2})$ ]] || return 1
  local i
  for i in 1 2 3 4; do (( BASH_REMATCH[i] <= 255 )) || return 1; done
  (( BASH_REMATCH[5] >= 8 && BASH_REMATCH[5] <= 30 ))
}

# cidr_range prints the first and last address of a CIDR as integers.
cidr_range() {
  local ip=${1%/*} bits=${1#*/} a b c d
  IFS=. read -r a b c d <<<"$ip"
  local n=$(( (a << 24) | (b << 16) | (c << 8) | d ))
  local size=$(( 1 << (32 - bits) ))
  local first=$(( n & ~(size - 1) & 0xFFFFFFFF ))
  echo "$first $(( first + size - 1 ))"
}

name="${CP_PARAM_CLUSTER_NAME:-${CP_CLUSTER:-}}"
[[ "$name" =~ ^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$ ]] ||
  fail "cluster_name \"$name\" must be a DNS label: a-z, 0-9 and '-', at most 63 characters"
version="${CP_PARAM_KUBERNETES_VERSION#v}"
[[ "$version" =~ ^1\.([0-9]+)\.[0-9]+$ ]] || fail "kubernetes_version \"$version\" must look like 1.31.2"
(( BASH_REMATCH[1] >= 29 )) || fail "kubernetes_version $version is older than 1.29, which this pack does not install"
case "$CP_PARAM_CNI" in calico|cilium|flannel) ;; *) fail "cni \"$CP_PARAM_CNI\" must be calico, cilium or flannel" ;; esac
[[ "$CP_PARAM_CONTAINER_RUNTIME" == containerd ]] || fail "container_runtime \"$CP_PARAM_CONTAINER_RUNTIME\" must be containerd"
case "$CP_PARAM_STORAGE" in longhorn|none) ;; *) fail "storage \"$CP_PARAM_STORAGE\" must be longhorn or none" ;; esac
for p in POD_CIDR SERVICE_CIDR; do
  v="CP_PARAM_$p"
  valid_cidr "${!v}" || fail "${p,,} \"${!v}\" is not an IPv4 CIDR such as 10.244.0.0/16"
done
[[ "$CP_PARAM_WIREGUARD_CIDR" =~ ^([0-9]{1,3}\.){3}0/24$ ]] && valid_cidr "$CP_PARAM_WIREGUARD_CIDR" ||
  fail "wireguard_cidr \"$CP_PARAM_WIREGUARD_CIDR\" must be an IPv4 /24 such as 10.200.0.0/24"
read -r p1 p2 <<<"$(cidr_range "$CP_PARAM_POD_CIDR")"
read -r s1 s2 <<<"$(cidr_range "$CP_PARAM_SERVICE_CIDR")"
(( p2 < s1 || s2 < p1 )) || fail "pod_cidr $CP_PARAM_POD_CIDR overlaps service_cidr $CP_PARAM_SERVICE_CIDR; choose disjoint ranges"

masters=0 hosts=0
while read -r host addr role; do
  [[ -n "$host" ]] || continue
  hosts=$((hosts + 1))
  [[ "$role" == master ]] && masters=$((masters + 1))
  [[ "$host" =~ ^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$ ]] || fail "host name \"$host\" is not a valid Kubernetes node name"
  [[ -n "$addr" ]] || fail "host $host has no address"
done <<<"${CP_HOSTS:-}"
(( masters >= 1 )) || fail "the intent has no host with role master; add at least one"
(( hosts <= 253 )) || fail "the intent has $hosts hosts; the WireGuard /24 holds at most 253"

endpoint="${CP_PARAM_CONTROL_PLANE_ENDPOINT:-}"
if [[ -z "$endpoint" ]]; then
  (( masters == 1 )) || fail "control_plane_endpoint is empty but there are $masters masters; set it to a load balancer address:port"
  endpoint="${CP_FIRST_MASTER_ADDRESS}:6443"
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
