#!/usr/bin/env bash
# Waits until this host's node reports Ready, using the kubelet's own
# credentials.
set -euo pipefail

systemctl is-active --quiet kubelet || systemctl restart kubelet
kubectl --kubeconfig /etc/kubernetes/kubelet.conf wait --for=condition=Ready "node/$CP_HOST" \
  --timeout="$CP_PARAM_NODE_READY_TIMEOUT"
echo "verify-node-ready: $CP_HOST is Ready"
