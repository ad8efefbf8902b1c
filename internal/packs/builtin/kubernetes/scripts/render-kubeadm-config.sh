#!/usr/bin/env bash
# Writes the kubeadm ClusterConfiguration shared by every control-plane node,
# and the KubeletConfiguration kubeadm init uploads for every node (systemd
# cgroup driver, reservations, eviction thresholds), as the
# kubeadm_cluster_config artifact. Every value inserted into the YAML
# is checked first against a pattern that holds no quote, backslash or
# newline, so it stays one double-quoted scalar.
set -euo pipefail

fail() { echo "render-kubeadm-config on ${CP_HOST:-?}: $*" >&2; exit 1; }
# refuse NAME VALUE FORM fails quoting at most 200 characters of VALUE.
refuse() { local v=${2:0:200}; fail "$1 \"${v//[[:cntrl:]]/?}\" is not $3"; }
# check NAME VALUE REGEX FORM refuses VALUE unless it matches REGEX: every
# value is checked here before any use, whatever the pack declares.
check() { [[ $2 =~ $3 ]] || refuse "$1" "$2" "$4"; }

version="${CP_PARAM_KUBERNETES_VERSION:-}"
version=${version#v}
check kubernetes_version "$version" '^1\.([0-9]{1,3})\.[0-9]{1,3}$' "a version such as 1.31.2"
api=kubeadm.k8s.io/v1beta3
(( 10#${BASH_REMATCH[1]} >= 31 )) && api=kubeadm.k8s.io/v1beta4
# node_address HOST ADDRESS prints HOST's entry of node_addresses, else
# ADDRESS (its SSH address).
node_address() {
  local e entries
  IFS=, read -r -a entries <<<"${CP_PARAM_NODE_ADDRESSES:-}"
  for e in "${entries[@]}"; do
    if [[ "${e%%=*}" == "$1" ]]; then printf '%s' "${e#*=}"; return; fi
  done
  printf '%s' "$2"
}
first_ip=$(node_address "${CP_FIRST_MASTER:-}" "${CP_FIRST_MASTER_ADDRESS:-}")
endpoint="${CP_PARAM_CONTROL_PLANE_ENDPOINT:-$first_ip:6443}"
check control_plane_endpoint "$endpoint" \
  '^([A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?|\[[0-9A-Fa-f:.]{2,45}\]|[0-9A-Fa-f:.]{2,45}):[0-9]{1,5}$' \
  "an address:port such as 10.0.0.10:6443"
name="${CP_PARAM_CLUSTER_NAME:-${CP_CLUSTER:-}}"
check cluster_name "$name" '^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$' "a DNS label such as prod-eu"
cidr_re='^([0-9]{1,3}\.){3}[0-9]{1,3}/[0-9]{1,2}$'
check pod_cidr "${CP_PARAM_POD_CIDR:-}" "$cidr_re" "an IPv4 CIDR such as 10.244.0.0/16"
check service_cidr "${CP_PARAM_SERVICE_CIDR:-}" "$cidr_re" "an IPv4 CIDR such as 10.96.0.0/12"

cpu_re='^([0-9]{1,6}m|[0-9]{1,3}(\.[0-9]{1,3})?)$'
qty_re='^[0-9]{1,15}(\.[0-9]{1,15})?(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?$'
pct_re='^[1-9][0-9]?%$'
check system_reserved_cpu "${CP_PARAM_SYSTEM_RESERVED_CPU:-}" "$cpu_re" "a CPU quantity such as 100m"
check system_reserved_memory "${CP_PARAM_SYSTEM_RESERVED_MEMORY:-}" "$qty_re" "a quantity such as 256Mi"
check kube_reserved_cpu "${CP_PARAM_KUBE_RESERVED_CPU:-}" "$cpu_re" "a CPU quantity such as 100m"
check kube_reserved_memory "${CP_PARAM_KUBE_RESERVED_MEMORY:-}" "$qty_re" "a quantity such as 256Mi"
check eviction_memory_available "${CP_PARAM_EVICTION_MEMORY_AVAILABLE:-}" "$qty_re" "a quantity such as 100Mi"
check eviction_nodefs_available "${CP_PARAM_EVICTION_NODEFS_AVAILABLE:-}" "$pct_re" "a percentage such as 10%"
check eviction_imagefs_available "${CP_PARAM_EVICTION_IMAGEFS_AVAILABLE:-}" "$pct_re" "a percentage such as 15%"
# image_repository: the registry kubeadm pulls every control-plane image
# from (imageRepository); empty keeps kubeadm's registry.k8s.io.
image_repo=${CP_PARAM_IMAGE_REPOSITORY:-}
[[ -z "$image_repo" ]] || check image_repository "$image_repo" \
  '^[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:[0-9]{1,5})?(/[a-z0-9]+([._-][a-z0-9]+)*)*$' \
  "a registry host[:port][/path] such as registry.mirror.internal:5000/k8s"
# The API server certificate also names the first master's SSH address
# when its node address differs (clients outside the node network).
sans=""
if [[ -n "${CP_FIRST_MASTER_ADDRESS:-}" && "$CP_FIRST_MASTER_ADDRESS" != "$first_ip" ]]; then
  check "address of the first master" "$CP_FIRST_MASTER_ADDRESS" '^[A-Za-z0-9.:][A-Za-z0-9.:-]{0,252}$' "an IP address or host name"
  sans=$(printf 'apiServer:\n  certSANs: ["%s"]' "$CP_FIRST_MASTER_ADDRESS")
fi

state=/var/lib/cp/kubernetes
mkdir -p "$state"
cat >"$state/kubeadm-cluster.yaml.tmp" <<YAML
apiVersion: $api
kind: ClusterConfiguration
clusterName: "$name"
kubernetesVersion: "v$version"
controlPlaneEndpoint: "$endpoint"
networking:
  podSubnet: "$CP_PARAM_POD_CIDR"
  serviceSubnet: "$CP_PARAM_SERVICE_CIDR"
YAML
[[ -z "$image_repo" ]] || printf 'imageRepository: "%s"\n' "$image_repo" >>"$state/kubeadm-cluster.yaml.tmp"
[[ -z "$sans" ]] || printf '%s\n' "$sans" >>"$state/kubeadm-cluster.yaml.tmp"
cat >>"$state/kubeadm-cluster.yaml.tmp" <<YAML
---
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
cgroupDriver: systemd
systemReserved:
  cpu: "$CP_PARAM_SYSTEM_RESERVED_CPU"
  memory: "$CP_PARAM_SYSTEM_RESERVED_MEMORY"
kubeReserved:
  cpu: "$CP_PARAM_KUBE_RESERVED_CPU"
  memory: "$CP_PARAM_KUBE_RESERVED_MEMORY"
evictionHard:
  memory.available: "$CP_PARAM_EVICTION_MEMORY_AVAILABLE"
  nodefs.available: "$CP_PARAM_EVICTION_NODEFS_AVAILABLE"
  imagefs.available: "$CP_PARAM_EVICTION_IMAGEFS_AVAILABLE"
YAML
mv "$state/kubeadm-cluster.yaml.tmp" "$state/kubeadm-cluster.yaml"
cp "$state/kubeadm-cluster.yaml" "$CP_OUTPUT_DIR/kubeadm_cluster_config"
echo "render-kubeadm-config: $api, v$version, endpoint $endpoint"
