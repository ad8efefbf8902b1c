#!/usr/bin/env bash
# Restarts containerd and waits until it answers with its CRI plugin loaded.
set -euo pipefail

systemctl restart containerd
# crictl comes with kubeadm (cri-tools); until then ask containerd itself
# whether it answers and loaded its CRI plugin, which kubeadm needs.
for _ in $(seq 1 30); do
  ctr version >/dev/null 2>&1 && break
  sleep 2
done
ctr version >/dev/null
cri=$(ctr plugins ls | awk '$2 == "cri" {print $4}')
[[ "$cri" == ok ]] || {
  echo "restart-containerd on $CP_HOST: containerd runs without its CRI plugin (status \"${cri:-not loaded}\"); remove \"cri\" from disabled_plugins in /etc/containerd/config.toml" >&2
  exit 1
}
echo "restart-containerd: containerd answers on $CP_HOST"
