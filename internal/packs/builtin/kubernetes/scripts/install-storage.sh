#!/usr/bin/env bash
# Installs Longhorn block storage with Helm when storage is longhorn.
set -euo pipefail

if [[ "$CP_PARAM_STORAGE" == none ]]; then
  echo "install-storage: storage is none; nothing to install"
  exit 0
fi
helm upgrade --install longhorn longhorn --repo https://charts.longhorn.io \
  --version "$CP_PARAM_LONGHORN_VERSION" --namespace longhorn-system --create-namespace \
  --kubeconfig /etc/kubernetes/admin.conf --wait --timeout 15m
echo "install-storage: Longhorn $CP_PARAM_LONGHORN_VERSION installed"
