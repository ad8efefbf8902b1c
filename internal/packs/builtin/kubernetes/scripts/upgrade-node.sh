#!/usr/bin/env bash
# Upgrades one worker to kubernetes_version: kubeadm (with image_repository,
# containerd's sandbox image set to the new kubeadm's pause image),
# `kubeadm upgrade node`, then kubelet and kubectl, and waits for the node
# to be Ready again.
# drain-node-for-upgrade has drained it and uncordon-node brings it back,
# both on the first master: this script talks to the API only with the
# node's own credentials (/etc/kubernetes/kubelet.conf).
set -euo pipefail

# Version skew: the control plane goes first (kubeadm-config, which nodes
# may read, names kubernetes_version once kubeadm upgrade apply ran), and a
# kubelet moves one minor at a time and never down, as kubeadm upgrades do;
# anything else is refused before a package changes.

fail() { echo "upgrade-node on ${CP_HOST:-?}: $*" >&2; exit 1; }
# refuse NAME VALUE FORM fails quoting at most 200 characters of VALUE.
refuse() { local v=${2:0:200}; fail "$1 \"${v//[[:cntrl:]]/?}\" is not $3"; }
# check NAME VALUE REGEX FORM refuses VALUE unless it matches REGEX: every
# value is checked here before any use, whatever the pack declares.
check() { [[ $2 =~ $3 ]] || refuse "$1" "$2" "$4"; }

version="${CP_PARAM_KUBERNETES_VERSION:-}"
version=${version#v}
check kubernetes_version "$version" '^1\.[0-9]{1,3}\.[0-9]{1,3}$' "a version such as 1.31.2"
check host "${CP_HOST:-}" '^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$' "a Kubernetes node name"
check node_ready_timeout "${CP_PARAM_NODE_READY_TIMEOUT:-}" '^[+]?(([0-9]{1,15}([.][0-9]{0,15})?|[.][0-9]{1,15})(ns|us|µs|μs|ms|s|m|h)){1,7}$' "a duration such as 5m or 1h30m"

# image_repository: containerd's sandbox image follows the new kubeadm
# (sync_sandbox_image, below once it is installed).
# shellcheck source=../lib/toml.sh
source "${BASH_SOURCE[0]%/*}/../lib/toml.sh"
# shellcheck source=../lib/sandbox-image.sh
source "${BASH_SOURCE[0]%/*}/../lib/sandbox-image.sh"

export DEBIAN_FRONTEND=noninteractive
kc=(--kubeconfig /etc/kubernetes/kubelet.conf)
kubelet_version() { kubectl "${kc[@]}" get node "$CP_HOST" -o jsonpath='{.status.nodeInfo.kubeletVersion}'; }
have=$(kubelet_version)
if [[ "$have" == "v$version" ]]; then
  sync_sandbox_image
  echo "upgrade-node: $CP_HOST already runs v$version"
  exit 0
fi
version_re='^v1\.([0-9]{1,3})\.([0-9]{1,3})$'
[[ "$have" =~ $version_re ]] || fail "the API server reports kubelet version \"${have:0:80}\" for node $CP_HOST; is it registered?"
have_minor=$((10#${BASH_REMATCH[1]})) have_patch=$((10#${BASH_REMATCH[2]}))
[[ "v$version" =~ $version_re ]]
want_minor=$((10#${BASH_REMATCH[1]})) want_patch=$((10#${BASH_REMATCH[2]}))
if (( want_minor < have_minor || (want_minor == have_minor && want_patch < have_patch) )); then
  fail "the kubelet of $CP_HOST runs $have; kubernetes_version $version is a downgrade, which kubeadm upgrade does not do"
fi
if (( want_minor > have_minor + 1 )); then
  fail "the kubelet of $CP_HOST runs $have; nodes upgrade one minor version at a time, so upgrade to 1.$((have_minor + 1)).x first, then to $version"
fi
cluster=$(kubectl "${kc[@]}" -n kube-system get configmap kubeadm-config -o jsonpath='{.data.ClusterConfiguration}' |
  awk '$1 == "kubernetesVersion:" {gsub(/"/, "", $2); print $2; exit}')
[[ "$cluster" == "v$version" ]] ||
  fail "kubeadm-config says the control plane is at ${cluster:0:80}, not v$version: upgrade the masters first (a kubelet must not be newer than its API server)"

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
kubeadm upgrade node
apt-get install -y --allow-change-held-packages "kubelet=$version-*" "kubectl=$version-*"
apt-mark hold kubeadm kubelet kubectl
systemctl daemon-reload
systemctl restart kubelet
kubectl "${kc[@]}" wait --for=condition=Ready "node/$CP_HOST" --timeout="$CP_PARAM_NODE_READY_TIMEOUT"
echo "upgrade-node: $CP_HOST runs $(kubelet_version)"
