#!/usr/bin/env bash
# Installs containerd at containerd_version, pinned and held, from Docker's
# apt repository (containerd.io, the key's fingerprint checked) or the
# distribution's, refusing a containerd below what containerd's RELEASES.md
# recommends for the Kubernetes minor; writes its config from `containerd
# config default` over the package's (Debian 12's: cgroupfs, CNI in
# /usr/lib/cni; Docker's: CRI disabled): systemd cgroup driver, CNI in
# /opt/cni/bin and /etc/cni/net.d, registry hosts from certs.d; config
# version 2 (1.6/1.7) or 3 (2.x), checked in the file and in `containerd
# config dump`. Points crictl at containerd's socket.
set -euo pipefail

fail() { echo "install-container-runtime on ${CP_HOST:-?}: $*" >&2; exit 1; }
# refuse NAME VALUE FORM fails quoting at most 200 characters of VALUE.
refuse() { local v=${2:0:200}; fail "$1 \"${v//[[:cntrl:]]/?}\" is not $3"; }
# check NAME VALUE REGEX FORM refuses VALUE unless it matches REGEX: every
# value is checked here before any use, whatever the pack declares.
check() { [[ $2 =~ $3 ]] || refuse "$1" "$2" "$4"; }

[[ "${CP_PARAM_CONTAINER_RUNTIME:-containerd}" == containerd ]] ||
  refuse container_runtime "$CP_PARAM_CONTAINER_RUNTIME" "containerd, the one runtime this pack installs"

source=${CP_PARAM_CONTAINERD_SOURCE:-docker}
case $source in
docker) pkg=containerd.io ;;
distribution) pkg=containerd ;;
*) refuse containerd_source "$source" "docker or distribution" ;;
esac
want=${CP_PARAM_CONTAINERD_VERSION:-}
check containerd_version "$want" '^[0-9]{1,3}\.[0-9]{1,3}(\.[0-9]{1,4})?$' "a containerd release X.Y.Z or a minor X.Y such as 2.2"
kube=${CP_PARAM_KUBERNETES_VERSION:-}
kube=${kube#v}
check kubernetes_version "$kube" '^1\.[0-9]{1,3}\.[0-9]{1,3}$' "a version such as 1.34.2"
kube_minor=${kube%.*}

# containerd's RELEASES.md, "Kubernetes support": per Kubernetes minor,
# the containerd releases recommended (each minor from that patch on).
support_table='1.30 2.1.0 2.0.0 1.7.13 1.6.28
1.31 2.1.0 2.0.0 1.7.20 1.6.34
1.32 2.1.0 2.0.1 1.7.24 1.6.36
1.33 2.1.0 2.0.4 1.7.24 1.6.36
1.34 2.1.3 2.0.6 1.7.28 1.6.39
1.35 2.2.0 2.1.5 1.7.28
1.36 2.3.0 2.2.0'
# supported VERSION prints "ok" when containerd VERSION (X.Y.Z, or X.Y
# for its minor alone) is at least the release the table gives for its
# minor, or of a minor newer than every one the row lists; else "below"
# (an older or unlisted minor, or an older patch); "unknown" without a
# row. Then the row's releases, as "2.1.3+, 2.0.6+".
supported() {
  awk -v k="$kube_minor" -v v="$1" '
    function cmp(a, b,   x, y, i) {
      split(a, x, "."); split(b, y, ".")
      for (i = 1; i <= 3; i++) { if (x[i] + 0 < y[i] + 0) return -1; if (x[i] + 0 > y[i] + 0) return 1 }
      return 0
    }
    $1 == k {
      found = 1; n = split(v, p, "."); vm = p[1] "." p[2]; top = ""; list = ""; verdict = ""
      for (i = 2; i <= NF; i++) {
        split($i, q, "."); m = q[1] "." q[2]; list = list (list == "" ? "" : ", ") $i "+"
        if (top == "" || cmp(m ".0", top ".0") > 0) top = m
        if (m == vm) verdict = (n < 3 || cmp(v, $i) >= 0) ? "ok" : "below"
      }
      if (verdict == "") verdict = cmp(vm ".0", top ".0") > 0 ? "ok" : "below"
      print verdict " " list
    }
    END { if (!found) print "unknown" }' <<<"$support_table"
}
# require_supported VERSION WHAT fails unless VERSION is supported.
require_supported() {
  local r
  r=$(supported "$1")
  case $r in
  ok\ *) ;;
  unknown) fail "containerd's Kubernetes support table has no row for Kubernetes $kube_minor" ;;
  *) fail "$2 containerd $1 is below what containerd's RELEASES.md recommends for Kubernetes $kube_minor (${r#below }); set containerd_version to such a release (containerd_source docker installs Docker's containerd.io, 2.2 by default)" ;;
  esac
}
require_supported "$want" "containerd_version asks for"

export DEBIAN_FRONTEND=noninteractive
# shellcheck source=../lib/toml.sh
source "${BASH_SOURCE[0]%/*}/../lib/toml.sh"

# Docker's apt repository (docker): containerd_apt_repository, else
# Docker's for the host's distribution, with the host's codename and the
# component stable, in deb822 form as Docker's install guide writes it;
# signed by containerd_apt_key, else by the key Docker publishes under the
# repository, whose primary key must have Docker's published fingerprint.
docker_fingerprint=9DC858229FC7DD38854AE2D88D81803C0EBFCD88
keyring=/etc/apt/keyrings/docker.asc
sources=/etc/apt/sources.list.d/docker.sources
# os_release KEY prints KEY's value from /etc/os-release (read, never
# sourced; quotes removed).
os_release() { awk -F= -v k="$1" '$1 == k { v = $2; gsub(/["\047]/, "", v); print v; exit }' /etc/os-release; }
if [[ $source == docker ]]; then
  repo=${CP_PARAM_CONTAINERD_APT_REPOSITORY:-}
  if [[ -z $repo ]]; then
    distro=$(os_release ID)
    case $distro in
    debian | ubuntu) repo=https://download.docker.com/linux/$distro ;;
    *) fail "Docker's apt repository serves Debian and Ubuntu, not \"${distro:0:40}\" (ID in /etc/os-release); set containerd_apt_repository, or containerd_source = distribution" ;;
    esac
  fi
  repo=${repo%/}
  check containerd_apt_repository "$repo" '^https?://[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:[0-9]{1,5})?(/[A-Za-z0-9._~%+:-]+)*$' \
    "an http(s) URL such as https://download.docker.com/linux/debian"
  codename=$(os_release VERSION_CODENAME)
  check "VERSION_CODENAME in /etc/os-release" "$codename" '^[a-z][a-z0-9-]{1,30}$' "a codename such as bookworm"
  apt_key=${CP_PARAM_CONTAINERD_APT_KEY:-$repo/gpg}
  check containerd_apt_key "$apt_key" \
    '^(https?://[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:[0-9]{1,5})?(/[A-Za-z0-9._~%+:-]*)*|(/[A-Za-z0-9_+-][A-Za-z0-9._+-]*)+)$' \
    "an http(s) URL or an absolute path"
  stanza="Types: deb
URIs: $repo
Suites: $codename
Components: stable
Signed-By: $keyring"
  if [[ ! -s $keyring || "$(cat "$sources" 2>/dev/null)" != "$stanza" ]]; then
    install -d -m 0755 /etc/apt/keyrings /etc/apt/sources.list.d
    if [[ $apt_key == /* ]]; then
      [[ -f $apt_key ]] || fail "containerd_apt_key $apt_key does not exist on $CP_HOST; copy the repository's ASCII-armored key there"
      cp "$apt_key" "$keyring.part"
    else
      curl -fsSL "$apt_key" >"$keyring.part" || fail "cannot fetch the repository key $apt_key"
    fi
    if [[ -z ${CP_PARAM_CONTAINERD_APT_KEY:-} ]]; then
      gnupg_home=$(mktemp -d)
      fpr=$(GNUPGHOME=$gnupg_home gpg --batch --show-keys --with-colons "$keyring.part" 2>/dev/null |
        awk -F: '$1 == "pub" { p = 1; next } p && $1 == "fpr" { print $10; exit }' || true)
      rm -rf "$gnupg_home"
      if [[ $fpr != "$docker_fingerprint" ]]; then
        rm -f "$keyring.part"
        fail "the key at $apt_key has the fingerprint \"${fpr:0:40}\", not Docker's published $docker_fingerprint; set containerd_apt_key to your mirror's key, or check the repository"
      fi
    fi
    chmod 0644 "$keyring.part"
    mv -f "$keyring.part" "$keyring"
    printf '%s\n' "$stanza" >"$sources.part"
    mv -f "$sources.part" "$sources"
  fi
fi

# The candidate of containerd_version: X.Y.Z exactly, or X.Y's newest
# patch, among the versions apt-cache madison lists for the package
# (Docker's 2.2.9-1~debian.12~bookworm, Debian's 1.6.20~ds1-1+b1: the
# upstream release is what precedes ~, - or +, after any epoch).
apt-get update
offered=$(apt-cache madison "$pkg" | awk -F'|' '{ gsub(/[[:space:]]/, "", $2); if ($2 != "") print $2 }')
candidate="" candidate_release=""
while IFS= read -r v; do
  [[ -n $v ]] || continue
  check "a version apt-cache madison lists for $pkg" "$v" '^([0-9]+:)?[0-9][A-Za-z0-9.+~-]*$' "a Debian package version"
  rel=${v#*:}
  [[ $rel =~ ^([0-9]+\.[0-9]+\.[0-9]+) ]] || continue
  rel=${BASH_REMATCH[1]}
  [[ $rel == "$want" || $rel == "$want".* ]] || continue
  if [[ -z $candidate ]] || dpkg --compare-versions "$v" gt "$candidate"; then
    candidate=$v candidate_release=$rel
  fi
done <<<"$offered"
if [[ -z $candidate ]]; then
  list=$(tr '\n' ' ' <<<"$offered")
  fail "no $pkg matching containerd_version $want in the repository; apt-cache madison $pkg offers: ${list:-nothing}; set containerd_version to one of those releases"
fi
require_supported "$candidate_release" "$pkg $candidate holds"

package_changed=0
installed=$(dpkg-query -W -f='${Status} ${Version}' "$pkg" 2>/dev/null || true)
if [[ $installed != "install ok installed $candidate" && $installed != "hold ok installed $candidate" ]]; then
  apt-get install -y --allow-change-held-packages "$pkg=$candidate"
  package_changed=1
fi
apt-mark hold "$pkg" >/dev/null
# What runs as containerd now is that release.
running=$(containerd --version 2>/dev/null | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^v?[0-9]+\.[0-9]+\.[0-9]+/) { v = $i; sub(/^v/, "", v); print v; exit } }' || true)
running=${running%%[-+~]*}
[[ $running == "$candidate_release" ]] ||
  fail "containerd --version gives \"${running:0:40}\", not $candidate_release of $pkg $candidate; remove the other containerd on PATH ($(command -v containerd || echo none))"

etc=/etc/containerd
conf=$etc/config.toml
mkdir -p "$etc" "$etc/certs.d"
default=$(containerd config default) || fail "containerd config default failed; is containerd installed (dpkg -s containerd)?"
version=$(awk -F= '/^version[[:space:]]*=/ { gsub(/[[:space:]]/, "", $2); print $2; exit }' <<<"$default")
case "$version" in
2) # containerd 1.6/1.7: one CRI plugin.
  runtime='plugins."io.containerd.grpc.v1.cri"'
  images=$runtime
  ;;
3) # containerd 2.x: the CRI runtime and image services are two plugins.
  runtime='plugins."io.containerd.cri.v1.runtime"'
  images='plugins."io.containerd.cri.v1.images"'
  ;;
*) fail "containerd config default prints config version \"${version:0:20}\"; this script writes versions 2 (containerd 1.6/1.7) and 3 (containerd 2.x)" ;;
esac
runc_opts="$runtime.containerd.runtimes.runc.options"
cni="$runtime.cni"
registry="$images.registry"
# containerd 2.1 lists CNI binary directories in bin_dirs; before, bin_dir.
bin_key=bin_dir bin_val='"/opt/cni/bin"'
if [[ -n "$(toml_get "$cni" bin_dirs <<<"$default")" ]]; then
  bin_key=bin_dirs bin_val='["/opt/cni/bin"]'
fi

new=$(printf '%s\n' "$default" |
  toml_set "$runc_opts" SystemdCgroup true |
  toml_set "$cni" "$bin_key" "$bin_val" |
  toml_set "$cni" conf_dir '"/etc/cni/net.d"' |
  toml_set "$registry" config_path '"/etc/containerd/certs.d"')

# check WHAT TOML: the settings this script is for, read back.
check_config() {
  local got
  got=$(toml_get "$runc_opts" SystemdCgroup <<<"$2")
  [[ "$got" == true ]] || fail "$1: SystemdCgroup of the runc runtime is \"$got\", not true (kubelet uses the systemd cgroup driver)"
  got=$(toml_get "$cni" "$bin_key" <<<"$2")
  [[ "$got" == /opt/cni/bin ]] || fail "$1: CNI $bin_key is \"$got\", not /opt/cni/bin where the CNI plugins are installed"
  got=$(toml_get "$cni" conf_dir <<<"$2")
  [[ "$got" == /etc/cni/net.d ]] || fail "$1: CNI conf_dir is \"$got\", not /etc/cni/net.d"
  got=$(toml_get "$registry" config_path <<<"$2")
  [[ "$got" == /etc/containerd/certs.d ]] || fail "$1: registry config_path is \"$got\", not /etc/containerd/certs.d"
}
check_config "the configuration generated for $conf" "$new"

changed=0
if [[ ! -f "$conf" ]] || [[ "$(cat "$conf")" != "$new" ]]; then
  # Keep what was there (the package's file, or a hand edit) beside it.
  [[ -f "$conf" ]] && cp -p "$conf" "$conf.cp-previous"
  printf '%s\n' "$new" >"$conf.tmp"
  mv "$conf.tmp" "$conf"
  changed=1
fi

cat >/etc/crictl.yaml <<'CONF'
runtime-endpoint: unix:///run/containerd/containerd.sock
image-endpoint: unix:///run/containerd/containerd.sock
timeout: 10
CONF

systemctl enable --now containerd
if ((changed || package_changed)); then
  systemctl restart containerd
fi
# crictl comes with kubeadm (cri-tools); until then ask containerd itself
# whether it answers and loaded its CRI plugin, which kubeadm needs.
for _ in $(seq 1 30); do
  ctr version >/dev/null 2>&1 && break
  sleep 2
done
server=$(ctr version | awk '$1 == "Server:" { s = 1 } s && $1 == "Version:" { v = $2; sub(/^v/, "", v); print v; exit }')
server=${server%%[-+~]*}
[[ $server == "$candidate_release" ]] ||
  fail "the containerd daemon answers as \"${server:0:40}\", not $candidate_release of $pkg $candidate; restart it (systemctl restart containerd)"
cri=$(ctr plugins ls | awk '$2 == "cri" {print $4}')
[[ "$cri" == ok ]] ||
  fail "containerd runs without its CRI plugin (status \"${cri:-not loaded}\"); remove \"cri\" from disabled_plugins in /etc/containerd/config.toml"
# What containerd loads: its config merged over its defaults.
check_config "containerd config dump" "$(containerd config dump)"
cp "$conf" "$CP_OUTPUT_DIR/containerd_config_snapshot"
echo "install-container-runtime: containerd $server ($pkg $candidate, held) active on $CP_HOST (config version $version, systemd cgroup driver)"
