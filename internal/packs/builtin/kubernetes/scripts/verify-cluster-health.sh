#!/usr/bin/env bash
# Reports the health the repair action's evidence checks: the API's
# /readyz, each node's Ready condition and etcd's endpoint health on this
# master. It changes nothing on the cluster (it installs etcdctl from
# etcd-client when absent, for the evidence); the evidence decides.
set -euo pipefail

export DEBIAN_FRONTEND=noninteractive
if ! command -v etcdctl >/dev/null; then
  apt-get update
  apt-get install -y etcd-client
fi

kc=(--kubeconfig /etc/kubernetes/admin.conf)
echo "api: $(kubectl "${kc[@]}" get --raw=/readyz 2>&1 | head -c 200 || true)"
kubectl "${kc[@]}" get nodes -o wide || true
pki=/etc/kubernetes/pki/etcd
ETCDCTL_API=3 etcdctl --endpoints=https://127.0.0.1:2379 --cacert="$pki/ca.crt" \
  --cert="$pki/healthcheck-client.crt" --key="$pki/healthcheck-client.key" endpoint health || true
