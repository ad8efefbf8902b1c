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
# The CNI configuration's files, not its directory, which containerd 2.x's
# CRI plugin watches (it stops for good when the directory is removed).
find /etc/cni/net.d -mindepth 1 -delete 2>/dev/null || true
rm -rf /var/lib/cp/kubernetes /etc/kubernetes/kubelet.conf /etc/kubernetes/admin.conf
echo "reset-node: $CP_HOST reset"
