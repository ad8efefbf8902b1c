#!/usr/bin/env bash
# Validates a node being added: supported OS, resources, root through sudo
# and registry name resolution; records its facts.
set -euo pipefail

fail() { echo "validate-node on $CP_HOST: $*" >&2; exit 1; }

[[ "$(id -u)" == 0 ]] || fail "the job runs as uid $(id -u), not root; give the SSH user passwordless sudo"
[[ -r /etc/os-release ]] || fail "/etc/os-release is missing; the host is not a supported Linux"
# shellcheck disable=SC1091
. /etc/os-release
case "${ID:-}:${VERSION_ID:-}" in
  ubuntu:22.04|ubuntu:24.04|debian:12) ;;
  *) fail "unsupported OS ${ID:-unknown} ${VERSION_ID:-}; use Ubuntu 22.04/24.04 or Debian 12" ;;
esac
cpus=$(nproc)
mem_mb=$(free -m | awk '/^Mem:/ {print $2}')
disk_gb=$(df -BG --output=avail / | awk 'NR == 2 {gsub("G", ""); print $1}')
(( cpus >= CP_PARAM_MIN_CPUS )) || fail "$cpus CPUs, need at least $CP_PARAM_MIN_CPUS"
(( mem_mb >= CP_PARAM_MIN_MEMORY_MB )) || fail "${mem_mb} MiB memory, need at least $CP_PARAM_MIN_MEMORY_MB"
(( disk_gb >= CP_PARAM_MIN_DISK_GB )) || fail "${disk_gb} GiB free on /, need at least $CP_PARAM_MIN_DISK_GB"
getent hosts "$CP_PARAM_REGISTRY_HOST" >/dev/null || fail "cannot resolve registry host $CP_PARAM_REGISTRY_HOST"
[[ -s /etc/kubernetes/kubelet.conf ]] && fail "the host already has /etc/kubernetes/kubelet.conf; remove it from its old cluster first (remove_node)"

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
echo "validate-node: $CP_HOST is $ID $VERSION_ID, $cpus CPUs, ${mem_mb} MiB, ${disk_gb} GiB free"
