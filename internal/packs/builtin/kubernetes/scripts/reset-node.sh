#!/usr/bin/env bash
# Undoes kubeadm on this host: resets it, stops kubelet and removes the CNI
# configuration and the pack's state.
set -euo pipefail

if command -v kubeadm >/dev/null; then
  kubeadm reset -f
fi
if systemctl is-active --quiet kubelet; then
  systemctl disable --now kubelet
fi
rm -rf /etc/cni/net.d /var/lib/cp/kubernetes /etc/kubernetes/kubelet.conf /etc/kubernetes/admin.conf
echo "reset-node: $CP_HOST reset"
