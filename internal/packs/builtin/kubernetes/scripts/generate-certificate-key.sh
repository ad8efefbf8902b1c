#!/usr/bin/env bash
# Uploads the control-plane certificates to the kubeadm-certs Secret (kept
# 2h by kubeadm) and writes the key that decrypts them, for a master that
# joins an existing cluster. The key travels only as a secret artifact.
set -euo pipefail

fail() { echo "generate-certificate-key on ${CP_HOST:-?}: $*" >&2; exit 1; }

certkey=$(kubeadm init phase upload-certs --upload-certs 2>/dev/null | tail -n 1)
[[ "$certkey" =~ ^[0-9a-f]{64}$ ]] || fail "kubeadm init phase upload-certs printed no certificate key"
mkdir -p /var/lib/cp/kubernetes
date -u +%s >/var/lib/cp/kubernetes/certificate-key-uploaded
umask 077
printf '%s\n' "$certkey" >"$CP_OUTPUT_DIR/kubeadm.certificate_key"
echo "generate-certificate-key: certificates uploaded to kube-system/kubeadm-certs for 2h"
