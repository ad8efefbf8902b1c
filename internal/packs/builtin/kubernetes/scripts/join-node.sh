#!/usr/bin/env bash
# Joins this host to the cluster with kubeadm: as a control-plane node when
# its role is master, as a worker otherwise. A host that already has a
# kubelet.conf is left as it is. Secrets travel in a 0600 config file, never
# on the command line.
set -euo pipefail

fail() { echo "join-node on $CP_HOST: $*" >&2; exit 1; }

if [[ -s /etc/kubernetes/kubelet.conf ]]; then
  echo "join-node: $CP_HOST already joined"
  exit 0
fi
endpoint="${CP_PARAM_CONTROL_PLANE_ENDPOINT:-${CP_FIRST_MASTER_ADDRESS}:6443}"
version="${CP_PARAM_KUBERNETES_VERSION#v}"
api=kubeadm.k8s.io/v1beta3
(( $(cut -d. -f2 <<<"$version") >= 31 )) && api=kubeadm.k8s.io/v1beta4
token=$(tr -d '[:space:]' <"$CP_ARTIFACT_KUBEADM_JOIN_TOKEN")
hash=$(tr -d '[:space:]' <"$CP_ARTIFACT_KUBEADM_CA_CERT_HASH")
[[ -n "$token" && -n "$hash" ]] || fail "the join token or CA hash artifact is empty"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
umask 077
cat >"$work/join.yaml" <<YAML
apiVersion: $api
kind: JoinConfiguration
discovery:
  bootstrapToken:
    apiServerEndpoint: "$endpoint"
    token: "$token"
    caCertHashes: ["$hash"]
nodeRegistration:
  name: "$CP_HOST"
  criSocket: unix:///run/containerd/containerd.sock
YAML
if [[ "$CP_HOST_ROLE" == master ]]; then
  certkey=$(tr -d '[:space:]' <"${CP_ARTIFACT_KUBEADM_CERTIFICATE_KEY:?a master needs the kubeadm.certificate_key artifact}")
  cat >>"$work/join.yaml" <<YAML
controlPlane:
  localAPIEndpoint:
    advertiseAddress: "$CP_HOST_ADDRESS"
    bindPort: 6443
  certificateKey: "$certkey"
YAML
fi
kubeadm join --config "$work/join.yaml"
echo "join-node: $CP_HOST joined as $CP_HOST_ROLE"
