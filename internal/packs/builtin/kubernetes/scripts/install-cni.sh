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

[[ -z "${CP_PARAM_CNI_MANIFEST_SHA256:-}" ]] || check cni_manifest_sha256 "$CP_PARAM_CNI_MANIFEST_SHA256" '^[0-9a-f]{64}$' \
  "a SHA-256 of 64 lowercase hex digits"

kc=(--kubeconfig /etc/kubernetes/admin.conf)
# The calico release applied when cni_manifest is empty, and the SHA-256 of
# that release's manifests/calico.yaml: it is always checked.
pinned_calico=https://raw.githubusercontent.com/projectcalico/calico/v3.31.7/manifests/calico.yaml
pinned_calico_sha256=d6d8a489a4ed8e5b8efd8b339047b496ca657b55ee2e3618e791507b0a853e8d
# apply_manifest SOURCE NAME DIGEST WHAT applies the manifest at SOURCE (a
# URL or a path). With a DIGEST (WHAT says where it comes from) it first
# downloads (or copies) it to a root-only file NAME, checks it with
# sha256sum -c, and applies only that file: a manifest with another digest
# fails here, before anything is applied.
apply_manifest() {
  if [[ -z "$3" ]]; then
    kubectl "${kc[@]}" apply -f "$1"
    return
  fi
  local dir
  dir=$(mktemp -d)
  # shellcheck disable=SC2064 # the directory is known now
  trap "rm -rf -- '$dir'" EXIT
  chmod 0700 "$dir"
  if [[ $1 == http://* || $1 == https://* ]]; then
    curl -fsSL -o "$dir/$2" "$1" || fail "cannot download the $CP_PARAM_CNI manifest $1; nothing was applied"
  else
    [[ -f $1 ]] || fail "the $CP_PARAM_CNI manifest $1 does not exist on $CP_HOST; nothing was applied"
    cp -- "$1" "$dir/$2"
  fi
  printf '%s  %s\n' "$3" "$2" >"$dir/$2.sha256"
  if ! (cd "$dir" && sha256sum -c --status "$2.sha256"); then
    local got
    got=$(sha256sum "$dir/$2" | cut -d' ' -f1)
    fail "the $CP_PARAM_CNI manifest $1 has sha256 $got, not $4 $3; nothing was applied: check the manifest's source, or set cni_manifest_sha256 to the digest of the manifest you mean to apply"
  fi
  echo "install-cni: $1 matches $4"
  kubectl "${kc[@]}" apply -f "$dir/$2"
}
case "$CP_PARAM_CNI" in
  calico)
    if [[ -n "${CP_PARAM_CNI_MANIFEST:-}" || -n "${CP_PARAM_CNI_MANIFEST_SHA256:-}" ]]; then
      apply_manifest "${CP_PARAM_CNI_MANIFEST:-$pinned_calico}" calico.yaml "${CP_PARAM_CNI_MANIFEST_SHA256:-}" cni_manifest_sha256
    else
      apply_manifest "$pinned_calico" calico.yaml "$pinned_calico_sha256" "the pinned release's sha256"
    fi
    ;;
  flannel)
    apply_manifest "${CP_PARAM_CNI_MANIFEST:-https://github.com/flannel-io/flannel/releases/download/v0.25.7/kube-flannel.yml}" kube-flannel.yml \
      "${CP_PARAM_CNI_MANIFEST_SHA256:-}" cni_manifest_sha256
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
