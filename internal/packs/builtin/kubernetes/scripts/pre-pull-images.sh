#!/usr/bin/env bash
# Pulls the control-plane images of kubernetes_version into containerd, so
# kubeadm does not depend on the registry at init or join time: the images
# kubeadm lists under image_repository when it is set (as the rendered
# ClusterConfiguration's imageRepository makes kubeadm pull them), else
# under kubeadm's own registry.k8s.io.
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
repo_flag=()
if [[ -n "${CP_PARAM_IMAGE_REPOSITORY:-}" ]]; then
  check image_repository "$CP_PARAM_IMAGE_REPOSITORY" \
    '^[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:[0-9]{1,5})?(/[a-z0-9]+([._-][a-z0-9]+)*)*$' \
    "a registry host[:port][/path] such as registry.mirror.internal:5000/k8s"
  repo_flag=(--image-repository "$CP_PARAM_IMAGE_REPOSITORY")
fi
# The list is taken whole first: kubeadm failing (unknown version, no
# network for the version lookup) fails the job instead of leaving an empty
# or partial list behind a process substitution.
list=$(kubeadm config images list --kubernetes-version "$version" "${repo_flag[@]}") ||
  fail "kubeadm config images list --kubernetes-version $version ${repo_flag[*]} failed"
mapfile -t images <<<"$list"
[[ -n "$list" && ${#images[@]} -gt 0 ]] || fail "kubeadm listed no images for $version"
for image in "${images[@]}"; do
  check "kubeadm's image" "$image" '^[a-z0-9][a-z0-9.:/_-]*:[A-Za-z0-9._-]+$' "an image name"
  [[ -z "${CP_PARAM_IMAGE_REPOSITORY:-}" || $image == "$CP_PARAM_IMAGE_REPOSITORY/"* ]] ||
    fail "kubeadm lists $image, which is not under image_repository $CP_PARAM_IMAGE_REPOSITORY"
done
for image in "${images[@]}"; do
  crictl inspecti "$image" >/dev/null 2>&1 || crictl pull "$image"
  crictl inspecti "$image" >/dev/null || fail "image $image is not in containerd after crictl pull"
done
echo "pre-pull-images: ${#images[@]} images present on $CP_HOST: ${images[*]}"
