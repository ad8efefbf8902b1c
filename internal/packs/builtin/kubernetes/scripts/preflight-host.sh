#!/usr/bin/env bash
# Host preflight before anything is installed: the clock is NTP-synchronized
# (etcd and the certificates need it), and the ports the node's components
# bind are free (6443, 2379-2380, 10250, 10257 and 10259/tcp on a master,
# 10250/tcp on a worker, the WireGuard port/udp on every node). Records the
# host's machine id and host name as the host.identity artifact, which
# check-host-identities compares across the cluster. A host that passed
# before, or already runs a kubelet of the cluster, is not checked for
# ports again: they are its own.
set -euo pipefail

fail() { echo "preflight-host on ${CP_HOST:-?}: $*" >&2; exit 1; }
# refuse NAME VALUE FORM fails quoting at most 200 characters of VALUE.
refuse() { local v=${2:0:200}; fail "$1 \"${v//[[:cntrl:]]/?}\" is not $3"; }
# check NAME VALUE REGEX FORM refuses VALUE unless it matches REGEX: every
# value is checked here before any use, whatever the pack declares.
check() { [[ $2 =~ $3 ]] || refuse "$1" "$2" "$4"; }

check host "${CP_HOST:-}" '^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$' "a Kubernetes node name"
check wireguard_port "${CP_PARAM_WIREGUARD_PORT:-}" '^[0-9]{1,5}$' "a port number such as 51820"
wg_port=$((10#$CP_PARAM_WIREGUARD_PORT))

state=/var/lib/cp/kubernetes
mkdir -p "$state"
problems=()

if ! command -v timedatectl >/dev/null; then
  problems+=("timedatectl is missing, so whether the clock is synchronized is unknown; the host must run systemd (Ubuntu 22.04/24.04, Debian 12)")
elif ! sync=$(timedatectl show -p NTPSynchronized --value 2>&1); then
  problems+=("timedatectl show failed (${sync//[[:cntrl:]]/ }); the host must run systemd")
elif [[ "$sync" != yes ]]; then
  problems+=("the clock is not NTP-synchronized (timedatectl NTPSynchronized=${sync:0:20}); etcd and the certificates need synchronized clocks: run a time service, e.g. apt-get install systemd-timesyncd && timedatectl set-ntp true (or chrony), and wait until timedatectl shows System clock synchronized: yes")
fi

if [[ -e "$state/preflight-passed" || -e /etc/kubernetes/kubelet.conf ]]; then
  echo "preflight-host: $CP_HOST passed before or runs the cluster's kubelet; its ports are its own"
else
  tcp=(10250)
  [[ "${CP_HOST_ROLE:-}" != master ]] || tcp=(6443 2379 2380 10250 10257 10259)
  # ss -Hltnu: Netid State Recv-Q Send-Q Local-Address:Port Peer...
  listening=$(ss -Hltnu)
  for p in "${tcp[@]}"; do
    if awk -v p="$p" '$1 == "tcp" && $5 ~ (":" p "$") { found = 1 } END { exit !found }' <<<"$listening"; then
      problems+=("port $p/tcp is in use: $(awk -v p="$p" '$1 == "tcp" && $5 ~ (":" p "$") { print $5; exit }' <<<"$listening"); stop what listens there (ss -ltnp shows it) or use another host")
    fi
  done
  if awk -v p="$wg_port" '$1 == "udp" && $5 ~ (":" p "$") { found = 1 } END { exit !found }' <<<"$listening"; then
    problems+=("port $wg_port/udp (the WireGuard mesh) is in use; stop what listens there (ss -lunp) or set wireguard_port")
  fi
fi

if (( ${#problems[@]} > 0 )); then
  printf 'preflight-host on %s: %s\n' "$CP_HOST" "${problems[@]}" >&2
  rm -f "$state/preflight-passed"
  exit 1
fi

id=$(tr -d '[:space:]' </etc/machine-id 2>/dev/null || true)
check "/etc/machine-id" "$id" '^[0-9a-f]{32}$' "a machine id (32 hex digits); run systemd-machine-id-setup"
name=$(hostname)
check "host name" "$name" '^[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?$' "a host name"
date -u +%Y-%m-%dT%H:%M:%SZ >"$state/preflight-passed"
printf '%s %s\n' "$id" "$name" >"$CP_OUTPUT_DIR/host.identity"
echo "preflight-host: $CP_HOST clock synchronized, ports free; machine id $id, host name $name"
