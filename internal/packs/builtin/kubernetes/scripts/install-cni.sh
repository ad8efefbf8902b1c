#!/usr/bin/env bash
# Installs the CNI plugin chosen by the cni parameter and waits until the
# first master is Ready. Each CNI's pinned upstream release is checked
# against its SHA-256 before anything is applied: calico's and flannel's
# manifests (the files of the release tags), Cilium's chart archive (the
# digest its Helm repository's index publishes).
set -euo pipefail

fail() { echo "install-cni on ${CP_HOST:-?}: $*" >&2; exit 1; }
# refuse NAME VALUE FORM fails quoting at most 200 characters of VALUE.
refuse() { local v=${2:0:200}; fail "$1 \"${v//[[:cntrl:]]/?}\" is not $3"; }
# check NAME VALUE REGEX FORM refuses VALUE unless it matches REGEX: every
# value is checked here before any use, whatever the pack declares.
check() { [[ $2 =~ $3 ]] || refuse "$1" "$2" "$4"; }
# shellcheck source=../lib/proxy-env.sh
source "${BASH_SOURCE[0]%/*}/../lib/proxy-env.sh"


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
# flannel v0.28.9: the release tag's Documentation/kube-flannel.yml (its
# images are that release's), and its SHA-256.
pinned_flannel=https://raw.githubusercontent.com/flannel-io/flannel/v0.28.9/Documentation/kube-flannel.yml
pinned_flannel_sha256=e875824be2f552b45711dbda91af81b17eb961d00025d914d9fef18fad8f09c0
# Cilium 1.19.6 (e2e-tested by Cilium on Kubernetes 1.32 to 1.35): the
# chart cilium of that version in Cilium's Helm repository, and the digest
# the repository's index.yaml gives for its archive.
pinned_cilium_repo=https://helm.cilium.io/
pinned_cilium_version=1.19.6
pinned_cilium_sha256=21c43cf53841f9ab0375047d95aa4c64051ea52bbd2c679416e6408f5f1c9179
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
# install_cilium installs the chart cilium: from a Helm repository
# (cni_manifest, else Cilium's own), helm pull fetches the pinned version
# to a root-only directory; from a path, the archive is copied there. The
# copy is checked with sha256sum -c (cni_manifest_sha256, else the pinned
# chart's digest when the chart is the pinned one) and only that file is
# installed: another digest fails here, before helm installs anything.
install_cilium() {
  local src=${CP_PARAM_CNI_MANIFEST:-$pinned_cilium_repo} sum=${CP_PARAM_CNI_MANIFEST_SHA256:-} what=cni_manifest_sha256 dir got
  if [[ -z $sum && -z ${CP_PARAM_CNI_MANIFEST:-} ]]; then
    sum=$pinned_cilium_sha256 what="the pinned chart's sha256"
  fi
  dir=$(mktemp -d)
  # shellcheck disable=SC2064 # the directory is known now
  trap "rm -rf -- '$dir'" EXIT
  chmod 0700 "$dir"
  if [[ $src == http://* || $src == https://* ]]; then
    mkdir "$dir/pull"
    helm pull cilium --repo "$src" --version "$pinned_cilium_version" --destination "$dir/pull" ||
      fail "helm pull of the chart cilium $pinned_cilium_version from $src failed; nothing was installed"
    local pulled=("$dir"/pull/*.tgz)
    [[ ${#pulled[@]} -eq 1 && -f ${pulled[0]} ]] || fail "helm pull left no single chart archive from $src; nothing was installed"
    mv -- "${pulled[0]}" "$dir/cilium.tgz"
  else
    [[ -f $src ]] || fail "the cilium chart $src does not exist on $CP_HOST; nothing was installed"
    cp -- "$src" "$dir/cilium.tgz"
  fi
  if [[ -n $sum ]]; then
    printf '%s  %s\n' "$sum" cilium.tgz >"$dir/cilium.tgz.sha256"
    if ! (cd "$dir" && sha256sum -c --status cilium.tgz.sha256); then
      got=$(sha256sum "$dir/cilium.tgz" | cut -d' ' -f1)
      fail "the cilium chart $src has sha256 $got, not $what $sum; nothing was installed: check the chart's source, or set cni_manifest_sha256 to the digest of the chart archive you mean to install"
    fi
    echo "install-cni: the cilium chart $src matches $what"
  fi
  helm upgrade --install cilium "$dir/cilium.tgz" \
    --namespace kube-system "${kc[@]}" --set ipam.mode=kubernetes --wait --timeout 10m
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
    if [[ -n "${CP_PARAM_CNI_MANIFEST:-}" || -n "${CP_PARAM_CNI_MANIFEST_SHA256:-}" ]]; then
      apply_manifest "${CP_PARAM_CNI_MANIFEST:-$pinned_flannel}" kube-flannel.yml "${CP_PARAM_CNI_MANIFEST_SHA256:-}" cni_manifest_sha256
    else
      apply_manifest "$pinned_flannel" kube-flannel.yml "$pinned_flannel_sha256" "the pinned release's sha256"
    fi
    ;;
  cilium)
    install_cilium
    ;;
  *)
    refuse cni "$CP_PARAM_CNI" "calico, cilium or flannel"
    ;;
esac
kubectl "${kc[@]}" wait --for=condition=Ready "node/$CP_HOST" --timeout=10m
kubectl "${kc[@]}" -n kube-system wait --for=condition=Available deployment/coredns --timeout=10m
echo "install-cni: $CP_PARAM_CNI ready"
