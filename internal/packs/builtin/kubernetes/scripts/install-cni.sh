#!/usr/bin/env bash
# Installs the CNI plugin chosen by the cni parameter and waits until the
# first master is Ready.
set -euo pipefail

kc=(--kubeconfig /etc/kubernetes/admin.conf)
case "$CP_PARAM_CNI" in
  calico)
    kubectl "${kc[@]}" apply -f "${CP_PARAM_CNI_MANIFEST:-https://raw.githubusercontent.com/projectcalico/calico/v3.28.2/manifests/calico.yaml}"
    ;;
  flannel)
    kubectl "${kc[@]}" apply -f "${CP_PARAM_CNI_MANIFEST:-https://github.com/flannel-io/flannel/releases/download/v0.25.7/kube-flannel.yml}"
    ;;
  cilium)
    helm upgrade --install cilium cilium --repo https://helm.cilium.io/ --version 1.16.3 \
      --namespace kube-system "${kc[@]}" --set ipam.mode=kubernetes --wait --timeout 10m
    ;;
  *)
    echo "install-cni: unknown cni \"$CP_PARAM_CNI\"; use calico, cilium or flannel" >&2
    exit 1
    ;;
esac
kubectl "${kc[@]}" wait --for=condition=Ready "node/$CP_HOST" --timeout=10m
kubectl "${kc[@]}" -n kube-system wait --for=condition=Available deployment/coredns --timeout=10m
echo "install-cni: $CP_PARAM_CNI ready"
