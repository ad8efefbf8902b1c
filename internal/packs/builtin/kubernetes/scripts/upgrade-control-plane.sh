#!/usr/bin/env bash
# Upgrades one control-plane node to kubernetes_version: kubeadm first, with
# image_repository containerd's sandbox image set to the new kubeadm's pause
# image, then `kubeadm upgrade apply` on the first master or `kubeadm
# upgrade node` on the others, then kubelet and kubectl with the node
# drained.
set -euo pipefail

# What this master runs is read from the master itself: its API server's
# version is the image tag in its own static Pod manifest, never the answer
# of whichever API server the load balancer picks (an old one, mid-upgrade,
# would make every later master look done or not ready). Whether the first
# master has upgraded the cluster is kubeadm-config's kubernetesVersion,
# which kubeadm upgrade apply sets and kubeadm upgrade node follows: it is
# stored in etcd, so every API server gives the same answer. kubeadm
# upgrades one minor at a time and never down ("Skipping MINOR versions
# when upgrading is unsupported"), so a version more than one minor above
# this master's, or below it, is refused before anything changes.

fail() { echo "upgrade-control-plane on ${CP_HOST:-?}: $*" >&2; exit 1; }
# refuse NAME VALUE FORM fails quoting at most 200 characters of VALUE.
refuse() { local v=${2:0:200}; fail "$1 \"${v//[[:cntrl:]]/?}\" is not $3"; }
# check NAME VALUE REGEX FORM refuses VALUE unless it matches REGEX: every
# value is checked here before any use, whatever the pack declares.
check() { [[ $2 =~ $3 ]] || refuse "$1" "$2" "$4"; }

version="${CP_PARAM_KUBERNETES_VERSION:-}"
version=${version#v}
check kubernetes_version "$version" '^1\.[0-9]{1,3}\.[0-9]{1,3}$' "a version such as 1.31.2"
check host "${CP_HOST:-}" '^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$' "a Kubernetes node name"
check drain_timeout "${CP_PARAM_DRAIN_TIMEOUT:-}" '^[+]?(([0-9]{1,15}([.][0-9]{0,15})?|[.][0-9]{1,15})(ns|us|µs|μs|ms|s|m|h)){1,7}$' "a duration such as 5m or 1h30m"
check node_ready_timeout "${CP_PARAM_NODE_READY_TIMEOUT:-}" '^[+]?(([0-9]{1,15}([.][0-9]{0,15})?|[.][0-9]{1,15})(ns|us|µs|μs|ms|s|m|h)){1,7}$' "a duration such as 5m or 1h30m"

# image_repository: containerd's sandbox image follows the new kubeadm
# (sync_sandbox_image, below once it is installed).
# shellcheck source=../lib/toml.sh
source "${BASH_SOURCE[0]%/*}/../lib/toml.sh"
# shellcheck source=../lib/sandbox-image.sh
source "${BASH_SOURCE[0]%/*}/../lib/sandbox-image.sh"

export DEBIAN_FRONTEND=noninteractive
kc=(--kubeconfig /etc/kubernetes/admin.conf)
manifest=/etc/kubernetes/manifests/kube-apiserver.yaml
version_re='^v1\.([0-9]{1,3})\.([0-9]{1,3})$'
kubelet_version() { kubectl "${kc[@]}" get node "$CP_HOST" -o jsonpath='{.status.nodeInfo.kubeletVersion}'; }
# local_version prints the tag of the kube-apiserver image of this master's
# static Pod manifest: the version its own API server runs.
local_version() {
  [[ -s "$manifest" ]] || fail "$manifest is missing: $CP_HOST is not a control-plane node kubeadm set up"
  sed -n 's/^[[:space:]-]*image:[[:space:]]*[^[:space:]]*kube-apiserver:\(v[0-9.]*\)[[:space:]]*$/\1/p' "$manifest" | head -n 1
}
# cluster_version prints kubeadm-config's kubernetesVersion.
cluster_version() {
  kubectl "${kc[@]}" -n kube-system get configmap kubeadm-config -o jsonpath='{.data.ClusterConfiguration}' |
    awk '$1 == "kubernetesVersion:" {gsub(/"/, "", $2); print $2; exit}'
}

mine=$(local_version)
[[ "$mine" =~ $version_re ]] ||
  fail "cannot read the version of this master's API server from the image of $manifest (got \"${mine:0:80}\")"
have_minor=$((10#${BASH_REMATCH[1]})) have_patch=$((10#${BASH_REMATCH[2]}))
[[ "v$version" =~ $version_re ]]
want_minor=$((10#${BASH_REMATCH[1]})) want_patch=$((10#${BASH_REMATCH[2]}))
if (( want_minor < have_minor || (want_minor == have_minor && want_patch < have_patch) )); then
  fail "the API server of $CP_HOST runs $mine; kubernetes_version $version is a downgrade, which kubeadm upgrade does not do"
fi
if (( want_minor > have_minor + 1 )); then
  fail "the API server of $CP_HOST runs $mine; kubeadm upgrades one minor version at a time, so upgrade to 1.$((have_minor + 1)).x first, then to $version"
fi
kubelet=$(kubelet_version)
if [[ "$mine" == "v$version" && "$kubelet" == "v$version" ]]; then
  sync_sandbox_image
  echo "upgrade-control-plane: $CP_HOST already runs v$version (API server and kubelet)"
  exit 0
fi

# The Kubernetes apt repository: kubernetes_apt_repository with {minor}
# replaced by the minor version, signed by kubernetes_apt_key (an http(s)
# URL, or a path on this host), else by Release.key under the repository.
upstream_repo='https://pkgs.k8s.io/core:/stable:/v{minor}/deb/'
repo_template=${CP_PARAM_KUBERNETES_APT_REPOSITORY:-$upstream_repo}
check kubernetes_apt_repository "$repo_template" \
  '^https?://[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:[0-9]{1,5})?/([A-Za-z0-9._~%+:-]|\{minor\}|/)*/$' \
  "an http(s) URL ending in / such as https://pkgs.k8s.io/core:/stable:/v{minor}/deb/"
repo=${repo_template//"{minor}"/$(cut -d. -f1,2 <<<"$version")}
apt_key=${CP_PARAM_KUBERNETES_APT_KEY:-${repo}Release.key}
check kubernetes_apt_key "$apt_key" \
  '^(https?://[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:[0-9]{1,5})?(/[A-Za-z0-9._~%+:-]*)*|(/[A-Za-z0-9_+-][A-Za-z0-9._+-]*)+)$' \
  "an http(s) URL or an absolute path"
# fetch_apt_key dearmors kubernetes_apt_key into the keyring apt reads.
fetch_apt_key() {
  if [[ $apt_key == /* ]]; then
    [[ -f $apt_key ]] || fail "kubernetes_apt_key $apt_key does not exist on $CP_HOST; copy the repository's ASCII-armored key there"
    gpg --dearmor --yes -o "$keyring" <"$apt_key"
  else
    curl -fsSL "$apt_key" | gpg --dearmor --yes -o "$keyring"
  fi
}
keyring=/etc/apt/keyrings/kubernetes-apt-keyring.gpg
line="deb [signed-by=$keyring] $repo /"
if ! grep -qxF "$line" /etc/apt/sources.list.d/kubernetes.list 2>/dev/null; then
  fetch_apt_key
  echo "$line" >/etc/apt/sources.list.d/kubernetes.list
fi
apt-get update
apt-get install -y --allow-change-held-packages "kubeadm=$version-*"
sync_sandbox_image

if [[ "$mine" != "v$version" ]]; then
  if [[ "$CP_HOST" == "$CP_FIRST_MASTER" ]]; then
    kubeadm upgrade apply -y "v$version"
  else
    cluster=$(cluster_version)
    [[ "$cluster" == "v$version" ]] ||
      fail "kubeadm-config says the cluster is at ${cluster:0:80}, not v$version: the first master $CP_FIRST_MASTER runs kubeadm upgrade apply first"
    kubeadm upgrade node
  fi
  mine=$(local_version)
  [[ "$mine" == "v$version" ]] ||
    fail "after kubeadm upgrade the API server manifest of $CP_HOST names ${mine:0:80}, not v$version; see /etc/kubernetes/tmp and journalctl -u kubelet"
fi

kubectl "${kc[@]}" drain "$CP_HOST" --ignore-daemonsets --delete-emptydir-data --timeout="$CP_PARAM_DRAIN_TIMEOUT"
apt-get install -y --allow-change-held-packages "kubelet=$version-*" "kubectl=$version-*"
apt-mark hold kubeadm kubelet kubectl
systemctl daemon-reload
systemctl restart kubelet
kubectl "${kc[@]}" uncordon "$CP_HOST"
kubectl "${kc[@]}" wait --for=condition=Ready "node/$CP_HOST" --timeout="$CP_PARAM_NODE_READY_TIMEOUT"
echo "upgrade-control-plane: $CP_HOST runs $(kubelet_version), its API server $(local_version)"
