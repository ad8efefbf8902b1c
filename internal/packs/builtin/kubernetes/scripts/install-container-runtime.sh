#!/usr/bin/env bash
# Installs containerd and writes its config from `containerd config
# default`, replacing the package's file (Debian 12's has the cgroupfs
# driver and CNI in /usr/lib/cni): runc on the systemd cgroup driver, CNI
# in /opt/cni/bin and /etc/cni/net.d, registry hosts from certs.d; config
# version 2 (containerd 1.6/1.7) or 3 (2.x); checked in the file and in
# `containerd config dump`. Points crictl at containerd's socket.
set -euo pipefail

fail() { echo "install-container-runtime on ${CP_HOST:-?}: $*" >&2; exit 1; }
# refuse NAME VALUE FORM fails quoting at most 200 characters of VALUE.
refuse() { local v=${2:0:200}; fail "$1 \"${v//[[:cntrl:]]/?}\" is not $3"; }

[[ "${CP_PARAM_CONTAINER_RUNTIME:-containerd}" == containerd ]] ||
  refuse container_runtime "$CP_PARAM_CONTAINER_RUNTIME" "containerd, the one runtime this pack installs"

export DEBIAN_FRONTEND=noninteractive
if ! command -v containerd >/dev/null; then
  apt-get update
  apt-get install -y containerd
fi

# toml_get TABLE KEY prints KEY's value in TABLE of the TOML on stdin,
# quotes and brackets removed. toml_set TABLE KEY VALUE sets KEY in TABLE
# (replacing its line, or adding it after the table's header, or adding
# the table at the end). A table is named with double quotes; headers are
# compared without spaces and with ' read as ", so both containerd 1.x's
# [plugins."io.containerd.grpc.v1.cri"] and 2.x's
# [plugins.'io.containerd.cri.v1.runtime'] match.
# shellcheck disable=SC2016 # awk's own $0, not the shell's
toml_awk='
function norm(h) { gsub(/[[:space:]]/, "", h); gsub(sprintf("%c", 39), "\"", h); return h }
/^[[:space:]]*\[[^[]/ { cur = norm($0) }
'
toml_get() {
  awk -v table="[$1]" -v key="$2" "$toml_awk"'
    cur == table && $0 ~ "^[[:space:]]*" key "[[:space:]]*=" {
      v = $0; sub(/^[^=]*=[[:space:]]*/, "", v); gsub(/["\047\[\][:space:]]/, "", v); print v; exit
    }'
}
toml_set() {
  awk -v table="[$1]" -v key="$2" -v val="$3" "$toml_awk"'
    { line[NR] = $0; hdr[NR] = cur }
    cur == table && !at { at = NR }
    cur == table && !done && $0 ~ "^[[:space:]]*" key "[[:space:]]*=" {
      match($0, /^[[:space:]]*/); line[NR] = substr($0, 1, RLENGTH) key " = " val; done = 1
    }
    END {
      for (i = 1; i <= NR; i++) {
        print line[i]
        if (i == at && !done) print "  " key " = " val
      }
      if (!at) { print ""; print table; print "  " key " = " val }
    }'
}

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
if ((changed)); then
  systemctl restart containerd
fi
# crictl comes with kubeadm (cri-tools); until then ask containerd itself
# whether it answers and loaded its CRI plugin, which kubeadm needs.
for _ in $(seq 1 30); do
  ctr version >/dev/null 2>&1 && break
  sleep 2
done
ctr version >/dev/null
cri=$(ctr plugins ls | awk '$2 == "cri" {print $4}')
[[ "$cri" == ok ]] ||
  fail "containerd runs without its CRI plugin (status \"${cri:-not loaded}\"); remove \"cri\" from disabled_plugins in /etc/containerd/config.toml"
# What containerd loads: its config merged over its defaults.
check_config "containerd config dump" "$(containerd config dump)"
cp "$conf" "$CP_OUTPUT_DIR/containerd_config_snapshot"
echo "install-container-runtime: containerd active on $CP_HOST (config version $version, systemd cgroup driver)"
