#!/usr/bin/env bash
# Checks that the host is a supported Linux (Ubuntu 22.04/24.04, Debian 12)
# with enough CPU, memory and disk, and records its facts.
set -euo pipefail

fail() { echo "validate-nodes on $CP_HOST: $*" >&2; exit 1; }

[[ -r /etc/os-release ]] || fail "/etc/os-release is missing; the host is not a supported Linux"
# shellcheck disable=SC1091
. /etc/os-release
case "${ID:-}:${VERSION_ID:-}" in
  ubuntu:22.04|ubuntu:24.04|debian:12) ;;
  *) fail "unsupported OS ${ID:-unknown} ${VERSION_ID:-}; use Ubuntu 22.04/24.04 or Debian 12" ;;
esac
command -v apt-get >/dev/null || fail "apt-get not found"
command -v systemctl >/dev/null || fail "systemctl not found; the host must run systemd"

cpus=$(nproc)
mem_mb=$(free -m | awk '/^Mem:/ {print $2}')
disk_gb=$(df -BG --output=avail / | awk 'NR == 2 {gsub("G", ""); print $1}')
(( cpus >= CP_PARAM_MIN_CPUS )) || fail "$cpus CPUs, need at least $CP_PARAM_MIN_CPUS"
(( mem_mb >= CP_PARAM_MIN_MEMORY_MB )) || fail "${mem_mb} MiB memory, need at least $CP_PARAM_MIN_MEMORY_MB"
(( disk_gb >= CP_PARAM_MIN_DISK_GB )) || fail "${disk_gb} GiB free on /, need at least $CP_PARAM_MIN_DISK_GB"

state=/var/lib/cp/kubernetes
mkdir -p "$state"
{
  echo "host=$CP_HOST"
  echo "hostname=$(hostname)"
  echo "os=$ID $VERSION_ID"
  echo "cpus=$cpus"
  echo "memory_mb=$mem_mb"
  echo "disk_free_gb=$disk_gb"
} >"$state/node-facts"
cp "$state/node-facts" "$CP_OUTPUT_DIR/node_facts"
echo "validate-nodes: $CP_HOST is $ID $VERSION_ID, $cpus CPUs, ${mem_mb} MiB, ${disk_gb} GiB free"
