#!/usr/bin/env bash
# Installs the CNI plugin chosen by the cni parameter and waits until the
# first master is Ready.
set -euo pipefail

fail() { echo "install-cni on ${CP_HOST:-?}: $*" >&2; exit 1; }
# refuse NAME VALUE FORM fails quoting at most 200 characters of VALUE.
refuse() { local v=${2:0:200}; fail "$1 \"${v//[[:cntrl:]]/?}\" is not $3"; }
# check NAME VALUE REGEX FORM refuses VALUE unless it matches REGEX: every
# value is checked here before any use, whatever the pack declares.
check() { [[ $2 =~ $3 ]] || refuse "$1" "$2" "$4"; }
# The proxy configure-proxy wrote for curl, helm and kubectl: KEY=VALUE
# lines of a root-only file, read line by line (never sourced), each value
# checked again.
if [[ -r /etc/cp/kubernetes/proxy.env ]]; then
  while IFS='=' read -r k v; do
    case $k in
      HTTP_PROXY | HTTPS_PROXY | NO_PROXY | http_proxy | https_proxy | no_proxy)
        check "$k in /etc/cp/kubernetes/proxy.env" "$v" '^[]A-Za-z0-9._~%!$&()*+,;=:@/?[-]*$' "a proxy setting"
        export "${k?}=$v"
        ;;
    esac
  done </etc/cp/kubernetes/proxy.env
fi


check host "${CP_HOST:-}" '^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$' "a Kubernetes node name"
# An http(s) URL or an absolute path on the host; kubectl reads it.
[[ -z "${CP_PARAM_CNI_MANIFEST:-}" ]] || check cni_manifest "$CP_PARAM_CNI_MANIFEST" \
  '^(https?://[]A-Za-z0-9._~:/?#@!$&()*+,;=%[-]+|/[A-Za-z0-9._+/-]+)$' "an http(s) URL or an absolute path"

kc=(--kubeconfig /etc/kubernetes/admin.conf)
case "$CP_PARAM_CNI" in
  calico)
    kubectl "${kc[@]}" apply -f "${CP_PARAM_CNI_MANIFEST:-https://raw.githubusercontent.com/projectcalico/calico/v3.28.2/manifests/calico.yaml}"
    ;;
  flannel)
    kubectl "${kc[@]}" apply -f "${CP_PARAM_CNI_MANIFEST:-https://github.com/flannel-io/flannel/releases/download/v0.25.7/kube-flannel.yml}"
    ;;
  cilium)
    helm upgrade --install cilium cilium --repo https://helm.cilium.io/ --version 1.16.3 \
      --namespace kube-system "${kc[@]}" --set ipam.mode=kubernetes --wait --timeout 10m
    ;;
  *)
    refuse cni "$CP_PARAM_CNI" "calico, cilium or flannel"
    ;;
esac
kubectl "${kc[@]}" wait --for=condition=Ready "node/$CP_HOST" --timeout=10m
kubectl "${kc[@]}" -n kube-system wait --for=condition=Available deployment/coredns --timeout=10m
echo "install-cni: $CP_PARAM_CNI ready"
