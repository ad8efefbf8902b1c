#!/usr/bin/env bash
# Initializes the control plane on the first master with kubeadm (once: an
# existing admin.conf with a ready API is kept), then writes the admin
# kubeconfig, a fresh join token, the CA hash and a certificate key for
# joining masters into $CP_OUTPUT_DIR.
set -euo pipefail

fail() { echo "init-control-plane on ${CP_HOST:-?}: $*" >&2; exit 1; }
# refuse NAME VALUE FORM fails quoting at most 200 characters of VALUE.
refuse() { local v=${2:0:200}; fail "$1 \"${v//[[:cntrl:]]/?}\" is not $3"; }
# check NAME VALUE REGEX FORM refuses VALUE unless it matches REGEX: every
# value is checked here before any use, whatever the pack declares.
check() { [[ $2 =~ $3 ]] || refuse "$1" "$2" "$4"; }


check host "${CP_HOST:-}" '^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$' "a Kubernetes node name"
check "address of host $CP_HOST" "${CP_HOST_ADDRESS:-}" '^(([0-9]{1,3}\.){3}[0-9]{1,3}|[0-9A-Fa-f:]{2,39})$' \
  "an IP address kubeadm can advertise"

admin=/etc/kubernetes/admin.conf
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
umask 077

ready() { kubectl --kubeconfig "$admin" get --raw=/readyz >/dev/null 2>&1; }

if [[ -s "$admin" ]] && ready; then
  echo "init-control-plane: control plane already initialized on $CP_HOST"
else
  api=$(awk '$1 == "apiVersion:" {print $2; exit}' "$CP_ARTIFACT_KUBEADM_CLUSTER_CONFIG")
  check "apiVersion of kubeadm_cluster_config" "$api" '^kubeadm\.k8s\.io/v1beta[34]$' "kubeadm.k8s.io/v1beta3 or v1beta4"
  cat >"$work/kubeadm.yaml" <<YAML
apiVersion: $api
kind: InitConfiguration
localAPIEndpoint:
  advertiseAddress: "$CP_HOST_ADDRESS"
  bindPort: 6443
nodeRegistration:
  name: "$CP_HOST"
  criSocket: unix:///run/containerd/containerd.sock
---
YAML
  cat "$CP_ARTIFACT_KUBEADM_CLUSTER_CONFIG" >>"$work/kubeadm.yaml"
  kubeadm init --config "$work/kubeadm.yaml"
fi

for _ in $(seq 1 60); do ready && break; sleep 5; done
ready || fail "the API server did not become ready; see journalctl -u kubelet"

join=$(kubeadm token create --ttl 24h --print-join-command)
token=$(awk '{for (i = 1; i < NF; i++) if ($i == "--token") print $(i + 1)}' <<<"$join")
hash=$(awk '{for (i = 1; i < NF; i++) if ($i == "--discovery-token-ca-cert-hash") print $(i + 1)}' <<<"$join")
[[ "$token" =~ ^[a-z0-9]{6}\.[a-z0-9]{16}$ ]] || fail "kubeadm token create printed no token"
[[ "$hash" =~ ^sha256:[0-9a-f]{64}$ ]] || fail "kubeadm token create printed no CA hash"
certkey=$(kubeadm init phase upload-certs --upload-certs 2>/dev/null | tail -n 1)
[[ "$certkey" =~ ^[0-9a-f]{64}$ ]] || fail "kubeadm init phase upload-certs printed no certificate key"

mkdir -p /var/lib/cp/kubernetes
echo "${token%%.*}" >/var/lib/cp/kubernetes/join-token-id
cp "$admin" "$CP_OUTPUT_DIR/kubeconfig.admin"
printf '%s\n' "$token" >"$CP_OUTPUT_DIR/kubeadm.join_token"
printf '%s\n' "$certkey" >"$CP_OUTPUT_DIR/kubeadm.certificate_key"
printf '%s\n' "$hash" >"$CP_OUTPUT_DIR/kubeadm.ca_cert_hash"
printf '%s:%s\n' "$CP_HOST" /etc/kubernetes/pki/ca.crt >"$CP_OUTPUT_DIR/cluster_ca_certificate_ref"
echo "init-control-plane: API ready on $CP_HOST; join token ${token%%.*}.* valid 24h"
