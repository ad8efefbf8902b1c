# shellcheck shell=bash
# containerd's sandbox (pause) image set to the pause image the installed
# kubeadm lists under image_repository. The including script defines
# check NAME VALUE REGEX FORM and fail MESSAGE, includes lib/toml.sh
# first, and has checked kubernetes_version into $version (without its v).
#
# A newer kubeadm may name a newer pause tag than the one
# install-kubernetes-packages set (kubeadm upgrade's preflight warns of
# the mismatch, and from 1.34 the kubelet takes the sandbox image from the
# CRI), so an upgrade runs sync_sandbox_image once the new kubeadm is
# installed, before kubeadm upgrade and the kubelet restart: the sandbox
# image becomes the pause image it lists under image_repository,
# sandbox_image of the CRI plugin (config version 2, containerd 1.6/1.7) or
# sandbox of the CRI images plugin's pinned_images (version 3, containerd
# 2.x), as at install. containerd restarts only when the value changed,
# and it is read back from containerd config dump. Without image_repository
# containerd keeps its own, as at install.
[[ -z "${CP_PARAM_IMAGE_REPOSITORY:-}" ]] || check image_repository "$CP_PARAM_IMAGE_REPOSITORY" \
  '^[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:[0-9]{1,5})?(/[a-z0-9]+([._-][a-z0-9]+)*)*$' \
  "a registry host[:port][/path] such as registry.mirror.internal:5000/k8s"
# sync_sandbox_image sets containerd's sandbox image to the pause image the
# installed kubeadm lists for kubernetes_version under image_repository.
sync_sandbox_image() {
  [[ -n "${CP_PARAM_IMAGE_REPOSITORY:-}" ]] || return 0
  local image_repo=$CP_PARAM_IMAGE_REPOSITORY conf=/etc/containerd/config.toml
  local images pause table key old new_conf got
  images=$(kubeadm config images list --kubernetes-version "v$version" --image-repository "$image_repo") ||
    fail "kubeadm config images list --image-repository $image_repo failed"
  pause=$(grep -m 1 -E '/pause:[A-Za-z0-9._-]+$' <<<"$images" || true)
  [[ $pause == "$image_repo/pause:"* ]] ||
    fail "kubeadm lists no pause image under image_repository $image_repo (got \"${pause:0:120}\")"
  check "kubeadm's pause image" "$pause" '^[a-z0-9.:/-]+/pause:[A-Za-z0-9._-]+$' "an image name"
  [[ -s "$conf" ]] || fail "$conf is missing: containerd's sandbox image cannot be set to $pause"
  case "$(awk -F= '/^version[[:space:]]*=/ { gsub(/[[:space:]]/, "", $2); print $2; exit }' "$conf")" in
  2) table='plugins."io.containerd.grpc.v1.cri"' key=sandbox_image ;;
  3) table='plugins."io.containerd.cri.v1.images".pinned_images' key=sandbox ;;
  *) fail "$conf is not a containerd config of version 2 or 3, in which this script sets the sandbox image" ;;
  esac
  old=$(toml_get "$table" "$key" <"$conf")
  if [[ "$old" != "$pause" ]]; then
    new_conf=$(toml_set "$table" "$key" "\"$pause\"" <"$conf")
    printf '%s\n' "$new_conf" >"$conf.tmp"
    mv "$conf.tmp" "$conf"
    systemctl restart containerd
    echo "containerd's sandbox image was \"${old:0:120}\"; now $pause, containerd restarted"
  fi
  got=$(containerd config dump | toml_get "$table" "$key")
  [[ "$got" == "$pause" ]] ||
    fail "containerd config dump gives the sandbox image \"${got:0:120}\", not $pause, which kubeadm v$version lists under image_repository"
  echo "containerd's sandbox image is $pause"
}
