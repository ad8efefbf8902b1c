#!/usr/bin/env bash
# Installs containerd from the distribution, switches it to the systemd
# cgroup driver, points registry configuration at /etc/containerd/certs.d
# and points crictl at its socket.
set -euo pipefail

fail() { echo "install-container-runtime on ${CP_HOST:-?}: $*" >&2; exit 1; }
# refuse NAME VALUE FORM fails quoting at most 200 characters of VALUE.
refuse() { local v=${2:0:200}; fail "$1 \"${v//[[:cntrl:]]/?}\" is not $3"; }
# check NAME VALUE REGEX FORM refuses VALUE unless it matches REGEX: every
# value is checked here before any use, whatever the pack declares.
check() { [[ $2 =~ $3 ]] || refuse "$1" "$2" "$4"; }


[[ "${CP_PARAM_CONTAINER_RUNTIME:-containerd}" == containerd ]] ||
  refuse container_runtime "$CP_PARAM_CONTAINER_RUNTIME" "containerd, the one runtime this pack installs"

export DEBIAN_FRONTEND=noninteractive
if ! command -v containerd >/dev/null; then
  apt-get update
  apt-get install -y containerd
fi

mkdir -p /etc/containerd /etc/containerd/certs.d
conf=/etc/containerd/config.toml
[[ -s "$conf" ]] || containerd config default >"$conf"
before=$(sha256sum "$conf")
sed -i -E \
  -e 's/^([[:space:]]*SystemdCgroup[[:space:]]*=[[:space:]]*)false/\1true/' \
  -e 's#^([[:space:]]*config_path[[:space:]]*=[[:space:]]*)""#\1"/etc/containerd/certs.d"#' \
  "$conf"

cat >/etc/crictl.yaml <<'CONF'
runtime-endpoint: unix:///run/containerd/containerd.sock
image-endpoint: unix:///run/containerd/containerd.sock
timeout: 10
CONF

systemctl enable --now containerd
if [[ "$before" != "$(sha256sum "$conf")" ]]; then
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
cp "$conf" "$CP_OUTPUT_DIR/containerd_config_snapshot"
echo "install-container-runtime: containerd active on $CP_HOST"
