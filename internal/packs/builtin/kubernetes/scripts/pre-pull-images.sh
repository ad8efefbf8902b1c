#!/usr/bin/env bash
# Pulls the control-plane images of kubernetes_version into containerd, so
# kubeadm does not depend on the registry at init or join time.
set -euo pipefail

version="v${CP_PARAM_KUBERNETES_VERSION#v}"
mapfile -t images < <(kubeadm config images list --kubernetes-version "$version")
(( ${#images[@]} > 0 )) || { echo "pre-pull-images: kubeadm listed no images for $version" >&2; exit 1; }
for image in "${images[@]}"; do
  crictl inspecti "$image" >/dev/null 2>&1 || crictl pull "$image"
done
echo "pre-pull-images: ${#images[@]} images present on $CP_HOST"
