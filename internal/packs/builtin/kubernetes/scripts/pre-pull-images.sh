#!/usr/bin/env bash
# Pulls the control-plane images of kubernetes_version into containerd, so
# kubeadm does not depend on the registry at init or join time.
set -euo pipefail

fail() { echo "pre-pull-images on ${CP_HOST:-?}: $*" >&2; exit 1; }
# refuse NAME VALUE FORM fails quoting at most 200 characters of VALUE.
refuse() { local v=${2:0:200}; fail "$1 \"${v//[[:cntrl:]]/?}\" is not $3"; }
# check NAME VALUE REGEX FORM refuses VALUE unless it matches REGEX: every
# value is checked here before any use, whatever the pack declares.
check() { [[ $2 =~ $3 ]] || refuse "$1" "$2" "$4"; }

version="${CP_PARAM_KUBERNETES_VERSION:-}"
version=${version#v}
check kubernetes_version "$version" '^1\.[0-9]{1,3}\.[0-9]{1,3}$' "a version such as 1.31.2"
version="v$version"
# The list is taken whole first: kubeadm failing (unknown version, no
# network for the version lookup) fails the job instead of leaving an empty
# or partial list behind a process substitution.
list=$(kubeadm config images list --kubernetes-version "$version") ||
  fail "kubeadm config images list --kubernetes-version $version failed"
mapfile -t images <<<"$list"
[[ -n "$list" && ${#images[@]} -gt 0 ]] || fail "kubeadm listed no images for $version"
for image in "${images[@]}"; do
  crictl inspecti "$image" >/dev/null 2>&1 || crictl pull "$image"
  crictl inspecti "$image" >/dev/null || fail "image $image is not in containerd after crictl pull"
done
echo "pre-pull-images: ${#images[@]} images present on $CP_HOST"
