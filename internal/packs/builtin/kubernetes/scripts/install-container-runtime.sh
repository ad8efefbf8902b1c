#!/usr/bin/env bash
# Installs containerd from the distribution, switches it to the systemd
# cgroup driver, points registry configuration at /etc/containerd/certs.d
# and points crictl at its socket.
set -euo pipefail

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
for _ in $(seq 1 30); do
  crictl info >/dev/null 2>&1 && break
  sleep 2
done
crictl info >/dev/null
cp "$conf" "$CP_OUTPUT_DIR/containerd_config_snapshot"
echo "install-container-runtime: containerd active on $CP_HOST"
