#!/usr/bin/env bash
# Loads the kernel modules and sysctls Kubernetes networking needs and turns
# swap off, persistently.
set -euo pipefail

fail() { echo "prepare-network on ${CP_HOST:-?}: $*" >&2; exit 1; }
# refuse NAME VALUE FORM fails quoting at most 200 characters of VALUE.
refuse() { local v=${2:0:200}; fail "$1 \"${v//[[:cntrl:]]/?}\" is not $3"; }
# check NAME VALUE REGEX FORM refuses VALUE unless it matches REGEX: every
# value is checked here before any use, whatever the pack declares.
check() { [[ $2 =~ $3 ]] || refuse "$1" "$2" "$4"; }

check host "${CP_HOST:-}" '^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$' "a Kubernetes node name"
awk '$2 == ENVIRON["CP_HOST"] {found = 1} END {exit !found}' "$CP_ARTIFACT_NODE_INVENTORY" ||
  fail "host is not in the node inventory; re-run build-node-inventory"

cat >/etc/modules-load.d/kubernetes.conf <<'CONF'
overlay
br_netfilter
CONF
modprobe overlay
modprobe br_netfilter

cat >/etc/sysctl.d/99-kubernetes.conf <<'CONF'
net.bridge.bridge-nf-call-iptables = 1
net.bridge.bridge-nf-call-ip6tables = 1
net.ipv4.ip_forward = 1
CONF
sysctl -w net.bridge.bridge-nf-call-iptables=1 net.bridge.bridge-nf-call-ip6tables=1 net.ipv4.ip_forward=1 >/dev/null

swapoff -a
if grep -Eq '^[^#].*[[:space:]]swap[[:space:]]' /etc/fstab; then
  sed -i -E 's/^([^#].*[[:space:]]swap[[:space:]].*)$/# disabled for kubelet: \1/' /etc/fstab
fi
echo "prepare-network: modules, sysctls and swap ready on $CP_HOST"
