#!/usr/bin/env bash
# Prepares a node being added in one pass: kernel modules, sysctls and swap,
# containerd with the systemd cgroup driver, and kubeadm/kubelet/kubectl of
# kubernetes_version from pkgs.k8s.io.
set -euo pipefail

fail() { echo "prepare-kubernetes-prerequisites on ${CP_HOST:-?}: $*" >&2; exit 1; }
# refuse NAME VALUE FORM fails quoting at most 200 characters of VALUE.
refuse() { local v=${2:0:200}; fail "$1 \"${v//[[:cntrl:]]/?}\" is not $3"; }
# check NAME VALUE REGEX FORM refuses VALUE unless it matches REGEX: every
# value is checked here before any use, whatever the pack declares.
check() { [[ $2 =~ $3 ]] || refuse "$1" "$2" "$4"; }
# shellcheck source=../lib/proxy-env.sh
source "${BASH_SOURCE[0]%/*}/../lib/proxy-env.sh"

version="${CP_PARAM_KUBERNETES_VERSION:-}"
version=${version#v}
check kubernetes_version "$version" '^1\.[0-9]{1,3}\.[0-9]{1,3}$' "a version such as 1.31.2"
[[ -z "${CP_PARAM_IMAGE_REPOSITORY:-}" ]] || check image_repository "$CP_PARAM_IMAGE_REPOSITORY" \
  '^[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:[0-9]{1,5})?(/[a-z0-9]+([._-][a-z0-9]+)*)*$' \
  "a registry host[:port][/path] such as registry.mirror.internal:5000/k8s"
case "${CP_PARAM_STORAGE:-none}" in longhorn|none) ;; *) refuse storage "${CP_PARAM_STORAGE:-}" "longhorn or none" ;; esac

export DEBIAN_FRONTEND=noninteractive

# Network prerequisites.
printf 'overlay\nbr_netfilter\n' >/etc/modules-load.d/kubernetes.conf
modprobe overlay
modprobe br_netfilter
cat >/etc/sysctl.d/99-kubernetes.conf <<'CONF'
net.bridge.bridge-nf-call-iptables = 1
net.bridge.bridge-nf-call-ip6tables = 1
net.ipv4.ip_forward = 1
CONF
sysctl -w net.bridge.bridge-nf-call-iptables=1 net.bridge.bridge-nf-call-ip6tables=1 net.ipv4.ip_forward=1 >/dev/null
swapoff -a
sed -i -E 's/^([^#].*[[:space:]]swap[[:space:]].*)$/# disabled for kubelet: \1/' /etc/fstab

# Container runtime.
command -v containerd >/dev/null || { apt-get update; apt-get install -y containerd; }
mkdir -p /etc/containerd/certs.d
conf=/etc/containerd/config.toml
[[ -s "$conf" ]] || containerd config default >"$conf"
before=$(sha256sum "$conf")
sed -i -E \
  -e 's/^([[:space:]]*SystemdCgroup[[:space:]]*=[[:space:]]*)false/\1true/' \
  -e 's#^([[:space:]]*config_path[[:space:]]*=[[:space:]]*)""#\1"/etc/containerd/certs.d"#' "$conf"
printf 'runtime-endpoint: unix:///run/containerd/containerd.sock\nimage-endpoint: unix:///run/containerd/containerd.sock\n' >/etc/crictl.yaml
systemctl enable --now containerd
[[ "$before" == "$(sha256sum "$conf")" ]] || systemctl restart containerd

# Kubernetes packages.
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
list=/etc/apt/sources.list.d/kubernetes.list
current=""
command -v kubeadm >/dev/null && current=$(kubeadm version -o short 2>/dev/null || true)
if [[ "$current" != "v$version" ]]; then
  mkdir -p /etc/apt/keyrings
  line="deb [signed-by=$keyring] $repo /"
  if [[ ! -s "$keyring" ]] || ! grep -qxF "$line" "$list" 2>/dev/null; then
    fetch_apt_key
    echo "$line" >"$list"
  fi
  apt-get update
  apt-get install -y --allow-change-held-packages "kubeadm=$version-*" "kubelet=$version-*" "kubectl=$version-*"
  apt-mark hold kubeadm kubelet kubectl
fi
# image_repository: containerd's sandbox (pause) image becomes the pause
# image kubeadm lists for that repository and kubernetes_version, so that
# no Pod sandbox is pulled from registry.k8s.io (lib/sandbox-image.sh).
# Empty leaves containerd's own.
# shellcheck source=../lib/toml.sh
source "${BASH_SOURCE[0]%/*}/../lib/toml.sh"
# shellcheck source=../lib/sandbox-image.sh
source "${BASH_SOURCE[0]%/*}/../lib/sandbox-image.sh"
sync_sandbox_image
# Longhorn's host requirements when storage is longhorn: open-iscsi with
# iscsid enabled and running, nfs-common (RWX volumes), and, where
# multipathd is installed (Ubuntu's server images), the blacklist
# Longhorn's troubleshooting guide gives, so that multipathd does not claim
# Longhorn's /dev/sdX devices (their mounts fail "already mounted or mount
# point busy"). The blacklist is a fixed drop-in, which multipath reads as
# if it were in /etc/multipath.conf (multipath.conf(5), config_dir); the
# host's own /etc/multipath.conf stays as it is.
if [[ "${CP_PARAM_STORAGE:-none}" == longhorn ]]; then
  longhorn_missing=()
  for p in open-iscsi nfs-common; do
    [[ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)" == "install ok installed" ]] || longhorn_missing+=("$p")
  done
  if ((${#longhorn_missing[@]} > 0)); then
    DEBIAN_FRONTEND=noninteractive apt-get install -y "${longhorn_missing[@]}" ||
      fail "apt-get install ${longhorn_missing[*]} failed; Longhorn needs them on every node"
  fi
  systemctl enable --now iscsid.service || fail "cannot enable and start iscsid.service; Longhorn attaches its volumes over iSCSI"
  if command -v multipathd >/dev/null; then
    mp=/etc/multipath/conf.d/90-cp-longhorn.conf
    mp_want=$'# Written by cp (kubernetes pack): the /dev/sdX devices of Longhorn\n# volumes, which multipathd must not claim.\nblacklist {\n    devnode "^sd[a-z0-9]+"\n}\n'
    if [[ ! -f $mp || "$(<"$mp")"$'\n' != "$mp_want" ]]; then
      install -d -m 0755 /etc/multipath/conf.d
      printf '%s' "$mp_want" >"$mp.part"
      chmod 0644 "$mp.part"
      mv -f "$mp.part" "$mp"
      systemctl restart multipathd.service || fail "multipathd.service did not restart with $mp; check it with multipath -t"
      echo "multipathd blacklists Longhorn's devices ($mp)"
    fi
  fi
fi
systemctl enable --now kubelet
echo "prepare-kubernetes-prerequisites: $CP_HOST ready to join with kubeadm $(kubeadm version -o short)"
