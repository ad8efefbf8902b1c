#!/usr/bin/env bash
# Points apt, containerd and the jobs that run curl, helm and kubectl at
# the HTTP(S) proxy of the proxy parameters, or removes that configuration
# when none is set. NO_PROXY always holds, besides the no_proxy parameter,
# every host's SSH and node address, the control-plane endpoint's host,
# the pod and service networks, .svc, .cluster.local, localhost, 127.0.0.1
# and ::1, sorted. Every value is checked against a pattern holding no
# quote, backslash, white space or control character before an encoder
# writes it: apt.conf strings, systemd Environment= assignments (with '%'
# doubled, systemd's specifier escape) and KEY=VALUE lines.
set -euo pipefail

fail() { echo "configure-proxy on ${CP_HOST:-?}: $*" >&2; exit 1; }
# refuse NAME VALUE FORM fails quoting at most 200 characters of VALUE.
refuse() { local v=${2:0:200}; fail "$1 \"${v//[[:cntrl:]]/?}\" is not $3"; }
# check NAME VALUE REGEX FORM refuses VALUE unless it matches REGEX: every
# value is checked here before any use, whatever the pack declares.
check() { [[ $2 =~ $3 ]] || refuse "$1" "$2" "$4"; }

url_re='^https?://[]A-Za-z0-9._~%!$&()*+;=:@/?[-]+$'
entry_re='^(\.?[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?|[0-9A-Fa-f:.]{2,45}(/[0-9]{1,3})?)$'
http=${CP_PARAM_HTTP_PROXY:-}
https=${CP_PARAM_HTTPS_PROXY:-$http}
[[ -z "$http" ]] || check http_proxy "$http" "$url_re" "an http(s) URL without quotes, commas or white space"
[[ -z "$https" ]] || check https_proxy "$https" "$url_re" "an http(s) URL without quotes, commas or white space"

apt_conf=/etc/apt/apt.conf.d/90cp-proxy
dropin_dir=/etc/systemd/system/containerd.service.d
dropin=$dropin_dir/http-proxy.conf
envfile=/etc/cp/kubernetes/proxy.env
sums=/var/lib/cp/kubernetes/proxy.sums
mkdir -p /var/lib/cp/kubernetes

# changed FILE NEW moves NEW over FILE when they differ; returns 0 then.
changed() {
  if [[ -e "$1" ]] && cmp -s "$1" "$2"; then rm -f "$2"; return 1; fi
  mv "$2" "$1"
}
reload_containerd() {
  command -v systemctl >/dev/null || return 0
  systemctl daemon-reload
  if systemctl is-active --quiet containerd; then systemctl restart containerd; fi
}

if [[ -z "$http$https" ]]; then
  gone=0
  for f in "$apt_conf" "$dropin" "$envfile"; do
    if [[ -e "$f" ]]; then rm -f "$f"; gone=1; fi
  done
  : >"$sums"
  [[ $gone == 0 ]] || reload_containerd
  echo "configure-proxy: no proxy on $CP_HOST"
  exit 0
fi

for v in "${CP_PARAM_NO_PROXY:-}" "${CP_PARAM_NODE_ADDRESSES:-}"; do
  [[ "$v" != *[[:cntrl:]]* ]] || fail "no_proxy or node_addresses holds a control character"
done
declare -A seen=()
add() {
  check "no_proxy entry" "$1" "$entry_re" "a host name, .domain, IP address or CIDR"
  seen[$1]=1
}
IFS=, read -r -a user <<<"${CP_PARAM_NO_PROXY:-}"
for e in "${user[@]}"; do [[ -z "$e" ]] || add "$e"; done
for e in localhost 127.0.0.1 ::1 .svc .cluster.local; do add "$e"; done
cidr_re='^([0-9]{1,3}\.){3}[0-9]{1,3}/[0-9]{1,2}$'
check pod_cidr "${CP_PARAM_POD_CIDR:-}" "$cidr_re" "an IPv4 CIDR such as 10.244.0.0/16"
check service_cidr "${CP_PARAM_SERVICE_CIDR:-}" "$cidr_re" "an IPv4 CIDR such as 10.96.0.0/12"
add "$CP_PARAM_POD_CIDR"
add "$CP_PARAM_SERVICE_CIDR"
while read -r _ addr _; do
  [[ -n "$addr" ]] && add "$addr"
done < <(tr , '\n' <<<"${CP_HOSTS:-}")
IFS=, read -r -a nodes <<<"${CP_PARAM_NODE_ADDRESSES:-}"
for e in "${nodes[@]}"; do [[ -z "$e" ]] || add "${e#*=}"; done
if [[ -n "${CP_PARAM_CONTROL_PLANE_ENDPOINT:-}" ]]; then
  ep=${CP_PARAM_CONTROL_PLANE_ENDPOINT%:*}
  ep=${ep#[}
  add "${ep%]}"
fi
no_proxy=$(printf '%s\n' "${!seen[@]}" | LC_ALL=C sort | paste -sd, -)

umask 022
{
  echo "// Written by the kubernetes pack (configure-proxy)."
  [[ -z "$http" ]] || printf 'Acquire::http::Proxy "%s";\n' "$http"
  [[ -z "$https" ]] || printf 'Acquire::https::Proxy "%s";\n' "$https"
} >"$apt_conf.new"
changed "$apt_conf" "$apt_conf.new" || true

# systemd_env NAME VALUE is one Environment= line: the value was checked
# to hold no quote, backslash or white space; '%' is doubled.
systemd_env() { printf 'Environment="%s=%s"\n' "$1" "${2//%/%%}"; }
mkdir -p "$dropin_dir"
{
  echo "# Written by the kubernetes pack (configure-proxy)."
  echo "[Service]"
  [[ -z "$http" ]] || systemd_env HTTP_PROXY "$http"
  [[ -z "$https" ]] || systemd_env HTTPS_PROXY "$https"
  systemd_env NO_PROXY "$no_proxy"
} >"$dropin.new"
dropin_changed=0
changed "$dropin" "$dropin.new" && dropin_changed=1

# The jobs' environment (curl, helm, kubectl), root-only: a proxy URL may
# name an internal host. Read by the scripts line by line, never sourced.
mkdir -p "$(dirname "$envfile")"
umask 077
{
  for k in HTTP_PROXY http_proxy; do [[ -z "$http" ]] || printf '%s=%s\n' "$k" "$http"; done
  for k in HTTPS_PROXY https_proxy; do [[ -z "$https" ]] || printf '%s=%s\n' "$k" "$https"; done
  for k in NO_PROXY no_proxy; do printf '%s=%s\n' "$k" "$no_proxy"; done
} >"$envfile.new"
changed "$envfile" "$envfile.new" || true
chmod 0600 "$envfile"

sha256sum "$apt_conf" "$dropin" "$envfile" >"$sums"
[[ $dropin_changed == 0 ]] || reload_containerd
echo "configure-proxy: apt, containerd and the jobs use ${https:-$http} on $CP_HOST; NO_PROXY has ${#seen[@]} entries"
