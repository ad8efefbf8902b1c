#!/usr/bin/env bash
# Validates a node being added: supported OS, resources, root through sudo
# and registry name resolution; records its facts.
set -euo pipefail

fail() { echo "validate-node on ${CP_HOST:-?}: $*" >&2; exit 1; }
# refuse NAME VALUE FORM fails quoting at most 200 characters of VALUE.
refuse() { local v=${2:0:200}; fail "$1 \"${v//[[:cntrl:]]/?}\" is not $3"; }
# check NAME VALUE REGEX FORM refuses VALUE unless it matches REGEX: every
# value is checked here before any use, whatever the pack declares.
check() { [[ $2 =~ $3 ]] || refuse "$1" "$2" "$4"; }

count='^[0-9]{1,9}$'
check min_cpus "${CP_PARAM_MIN_CPUS:-}" "$count" "a whole number such as 2"
check min_memory_mb "${CP_PARAM_MIN_MEMORY_MB:-}" "$count" "a whole number of MiB such as 1700"
check min_disk_gb "${CP_PARAM_MIN_DISK_GB:-}" "$count" "a whole number of GiB such as 10"
check registry_host "${CP_PARAM_REGISTRY_HOST:-}" '^[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?(:[0-9]{1,5})?$' \
  "a registry host name such as registry.k8s.io"
check host "${CP_HOST:-}" '^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$' "a Kubernetes node name"

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
check "nproc output" "$cpus" "$count" "a CPU count"
check "free -m total" "$mem_mb" "$count" "a size in MiB"
check "df free space" "$disk_gb" "$count" "a size in GiB"
(( 10#$cpus >= 10#$CP_PARAM_MIN_CPUS )) || fail "$cpus CPUs, need at least $CP_PARAM_MIN_CPUS"
(( 10#$mem_mb >= 10#$CP_PARAM_MIN_MEMORY_MB )) || fail "${mem_mb} MiB memory, need at least $CP_PARAM_MIN_MEMORY_MB"
(( 10#$disk_gb >= 10#$CP_PARAM_MIN_DISK_GB )) || fail "${disk_gb} GiB free on /, need at least $CP_PARAM_MIN_DISK_GB"
registry=${CP_PARAM_REGISTRY_HOST%:*}
getent hosts "$registry" >/dev/null || fail "cannot resolve registry host $registry"
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
