#!/usr/bin/env bash
# Creates a fresh kubeadm bootstrap token (valid 24h) on a master and writes
# it with the CA hash into $CP_OUTPUT_DIR.
set -euo pipefail

fail() { echo "generate-join-token on $CP_HOST: $*" >&2; exit 1; }

join=$(kubeadm token create --ttl 24h --print-join-command)
token=$(awk '{for (i = 1; i < NF; i++) if ($i == "--token") print $(i + 1)}' <<<"$join")
hash=$(awk '{for (i = 1; i < NF; i++) if ($i == "--discovery-token-ca-cert-hash") print $(i + 1)}' <<<"$join")
[[ "$token" =~ ^[a-z0-9]{6}\.[a-z0-9]{16}$ ]] || fail "kubeadm token create printed no token"
[[ "$hash" =~ ^sha256:[0-9a-f]{64}$ ]] || fail "kubeadm token create printed no CA hash"
mkdir -p /var/lib/cp/kubernetes
echo "${token%%.*}" >/var/lib/cp/kubernetes/join-token-id
umask 077
printf '%s\n' "$token" >"$CP_OUTPUT_DIR/kubeadm.join_token"
printf '%s\n' "$hash" >"$CP_OUTPUT_DIR/kubeadm.ca_cert_hash"
echo "generate-join-token: token ${token%%.*}.* valid 24h"
