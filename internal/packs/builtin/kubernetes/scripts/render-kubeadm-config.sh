#!/usr/bin/env bash
# Writes the kubeadm ClusterConfiguration shared by every control-plane node
# as the kubeadm_cluster_config artifact.
set -euo pipefail

version="${CP_PARAM_KUBERNETES_VERSION#v}"
minor=$(cut -d. -f2 <<<"$version")
api=kubeadm.k8s.io/v1beta3
(( minor >= 31 )) && api=kubeadm.k8s.io/v1beta4
endpoint="${CP_PARAM_CONTROL_PLANE_ENDPOINT:-${CP_FIRST_MASTER_ADDRESS}:6443}"
name="${CP_PARAM_CLUSTER_NAME:-$CP_CLUSTER}"

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
mv "$state/kubeadm-cluster.yaml.tmp" "$state/kubeadm-cluster.yaml"
cp "$state/kubeadm-cluster.yaml" "$CP_OUTPUT_DIR/kubeadm_cluster_config"
echo "render-kubeadm-config: $api, v$version, endpoint $endpoint"
