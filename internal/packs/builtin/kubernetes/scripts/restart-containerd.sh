#!/usr/bin/env bash
# Restarts containerd and waits until the CRI answers.
set -euo pipefail

systemctl restart containerd
for _ in $(seq 1 30); do
  crictl info >/dev/null 2>&1 && break
  sleep 2
done
crictl info >/dev/null
echo "restart-containerd: containerd answers on $CP_HOST"
