#!/usr/bin/env bash
# Initializes the control plane on the first master with kubeadm (once: an
# existing admin.conf with a ready API is kept), then writes the admin
# kubeconfig, a fresh join token, the CA hash and a certificate key for
# joining masters into $CP_OUTPUT_DIR.
set -euo pipefail

# A retry after a failed kubeadm init finds what that attempt left (static
# Pod manifests, PKI, kubeconfigs, etcd data), which kubeadm's preflight
# refuses; so before init, such leftovers are removed with kubeadm reset -f
# and the clean-up kubeadm reset documents it does not do (CNI
# configuration, iptables rules). A node whose init completed (the marker
# /var/lib/cp/kubernetes/init-completed, or the join-token-id that only a
# completed run writes) is never reset, whether or not its API answers now.

fail() { echo "init-control-plane on ${CP_HOST:-?}: $*" >&2; exit 1; }
# refuse NAME VALUE FORM fails quoting at most 200 characters of VALUE.
refuse() { local v=${2:0:200}; fail "$1 \"${v//[[:cntrl:]]/?}\" is not $3"; }
# check NAME VALUE REGEX FORM refuses VALUE unless it matches REGEX: every
# value is checked here before any use, whatever the pack declares.
check() { [[ $2 =~ $3 ]] || refuse "$1" "$2" "$4"; }


check host "${CP_HOST:-}" '^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$' "a Kubernetes node name"
# node_address HOST ADDRESS prints HOST's entry of node_addresses, else
# ADDRESS (its SSH address).
node_address() {
  local e entries
  IFS=, read -r -a entries <<<"${CP_PARAM_NODE_ADDRESSES:-}"
  for e in "${entries[@]}"; do
    if [[ "${e%%=*}" == "$1" ]]; then printf '%s' "${e#*=}"; return; fi
  done
  printf '%s' "$2"
}
# node_ip_args API IP prints nodeRegistration's kubeletExtraArgs giving the
# kubelet IP as its node IP: a list of name/value pairs in v1beta4, a map
# in v1beta3.
node_ip_args() {
  if [[ "$1" == kubeadm.k8s.io/v1beta3 ]]; then
    printf '  kubeletExtraArgs:\n    node-ip: "%s"\n' "$2"
  else
    printf '  kubeletExtraArgs:\n    - name: node-ip\n      value: "%s"\n' "$2"
  fi
}
node_ip=$(node_address "$CP_HOST" "${CP_HOST_ADDRESS:-}")
check "node address of host $CP_HOST" "$node_ip" '^(([0-9]{1,3}\.){3}[0-9]{1,3}|[0-9A-Fa-f:]{2,39})$' \
  "an IP address kubeadm can advertise (set node_address)"

admin=/etc/kubernetes/admin.conf
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
umask 077

ready() { kubectl --kubeconfig "$admin" get --raw=/readyz >/dev/null 2>&1; }
state=/var/lib/cp/kubernetes
# leftovers prints what a kubeadm init or join left on this host.
leftovers() {
  local p
  for p in /etc/kubernetes/manifests/kube-apiserver.yaml /etc/kubernetes/manifests/etcd.yaml \
    /etc/kubernetes/admin.conf /etc/kubernetes/kubelet.conf /etc/kubernetes/pki/ca.crt \
    /var/lib/kubelet/config.yaml /var/lib/etcd/member; do
    [[ -e "$p" ]] && printf '%s ' "$p"
  done
  return 0
}
# reset_leftovers runs kubeadm reset -f, then removes the CNI configuration files
# and the Kubernetes and CNI iptables chains, which kubeadm reset leaves
# (as k3s-killall.sh does: everything else in the tables is restored as it
# was, so the host's own firewall rules stay).
reset_leftovers() {
  echo "init-control-plane: a previous attempt left kubeadm state on $CP_HOST ($1); kubeadm reset -f before retrying"
  kubeadm reset -f
  # The CNI configuration goes, its directory stays: containerd 2.x's CRI
  # plugin watches it and stops for good (CRI service fatal, "cni conf dir
  # is removed") when the directory itself is removed.
  find /etc/cni/net.d -mindepth 1 -delete 2>/dev/null || true
  local t
  for t in iptables ip6tables; do
    if command -v "$t-save" >/dev/null && command -v "$t-restore" >/dev/null; then
      "$t-save" | { grep -v -e KUBE- -e CNI- -e cali- -e cali: -e FLANNEL -e flannel -e CILIUM || true; } | "$t-restore"
    fi
  done
}

if [[ -s "$admin" ]] && ! ready; then
  # An API server restarting answers within a minute.
  for _ in $(seq 1 12); do ready && break; sleep 5; done
fi
if [[ -s "$admin" ]] && ready; then
  echo "init-control-plane: control plane already initialized on $CP_HOST"
else
  left=$(leftovers)
  if [[ -e "$state/init-completed" || -e "$state/join-token-id" ]]; then
    fail "kubeadm init completed on $CP_HOST before, but its API server does not answer /readyz; it is not reset (that would delete the cluster): see journalctl -u kubelet and crictl ps -a, or run the reset-node job to start over"
  fi
  [[ -z "$left" ]] || reset_leftovers "$left"
  api=$(awk '$1 == "apiVersion:" {print $2; exit}' "$CP_ARTIFACT_KUBEADM_CLUSTER_CONFIG")
  check "apiVersion of kubeadm_cluster_config" "$api" '^kubeadm\.k8s\.io/v1beta[34]$' "kubeadm.k8s.io/v1beta3 or v1beta4"
  cat >"$work/kubeadm.yaml" <<YAML
apiVersion: $api
kind: InitConfiguration
localAPIEndpoint:
  advertiseAddress: "$node_ip"
  bindPort: 6443
nodeRegistration:
  name: "$CP_HOST"
  criSocket: unix:///run/containerd/containerd.sock
$(node_ip_args "$api" "$node_ip")
---
YAML
  cat "$CP_ARTIFACT_KUBEADM_CLUSTER_CONFIG" >>"$work/kubeadm.yaml"
  # --skip-token-print: init's own bootstrap token (valid 24h) would
  # otherwise be printed twice into the job's log; nodes join with the
  # token created below, which only the artifact holds.
  kubeadm init --config "$work/kubeadm.yaml" --skip-token-print
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

mkdir -p "$state"
echo "${token%%.*}" >"$state/join-token-id"
date -u +%Y-%m-%dT%H:%M:%SZ >"$state/init-completed"
cp "$admin" "$CP_OUTPUT_DIR/kubeconfig.admin"
printf '%s\n' "$token" >"$CP_OUTPUT_DIR/kubeadm.join_token"
printf '%s\n' "$certkey" >"$CP_OUTPUT_DIR/kubeadm.certificate_key"
printf '%s\n' "$hash" >"$CP_OUTPUT_DIR/kubeadm.ca_cert_hash"
printf '%s:%s\n' "$CP_HOST" /etc/kubernetes/pki/ca.crt >"$CP_OUTPUT_DIR/cluster_ca_certificate_ref"
echo "init-control-plane: API ready on $CP_HOST; join token ${token%%.*}.* valid 24h"
