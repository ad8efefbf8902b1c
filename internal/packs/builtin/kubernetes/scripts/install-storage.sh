#!/usr/bin/env bash
# Installs Longhorn block storage with Helm when storage is longhorn.
set -euo pipefail

fail() { echo "install-storage on ${CP_HOST:-?}: $*" >&2; exit 1; }
# refuse NAME VALUE FORM fails quoting at most 200 characters of VALUE.
refuse() { local v=${2:0:200}; fail "$1 \"${v//[[:cntrl:]]/?}\" is not $3"; }
# check NAME VALUE REGEX FORM refuses VALUE unless it matches REGEX: every
# value is checked here before any use, whatever the pack declares.
check() { [[ $2 =~ $3 ]] || refuse "$1" "$2" "$4"; }
# The proxy configure-proxy wrote for curl, helm and kubectl: KEY=VALUE
# lines of a root-only file, read line by line (never sourced), each value
# checked again.
if [[ -r /etc/cp/kubernetes/proxy.env ]]; then
  while IFS='=' read -r k v; do
    case $k in
      HTTP_PROXY | HTTPS_PROXY | NO_PROXY | http_proxy | https_proxy | no_proxy)
        check "$k in /etc/cp/kubernetes/proxy.env" "$v" '^[]A-Za-z0-9._~%!$&()*+,;=:@/?[-]*$' "a proxy setting"
        export "${k?}=$v"
        ;;
    esac
  done </etc/cp/kubernetes/proxy.env
fi

case "${CP_PARAM_STORAGE:-}" in longhorn|none) ;; *) refuse storage "${CP_PARAM_STORAGE:-}" "longhorn or none" ;; esac
if [[ "$CP_PARAM_STORAGE" == none ]]; then
  echo "install-storage: storage is none; nothing to install"
  exit 0
fi
check longhorn_version "${CP_PARAM_LONGHORN_VERSION:-}" '^v?[0-9]{1,9}\.[0-9]{1,9}\.[0-9]{1,9}(-[0-9A-Za-z.-]{1,64})?$' \
  "a chart version such as 1.7.2"
# A cluster of masters only (CP_HOSTS lists no worker) has no node without
# kubeadm's control-plane taint: Longhorn's manager, driver and UI, and the
# components it deploys itself (defaultSettings.taintToleration), must
# tolerate it. The values are fixed: no parameter reaches them.
values=()
workers=0
while read -r _ _ role; do
  [[ $role == worker ]] && workers=$((workers + 1))
done < <(tr , '\n' <<<"${CP_HOSTS:-}")
if ((workers == 0)); then
  vf=$(mktemp)
  trap 'rm -f "$vf"' EXIT
  cat >"$vf" <<'YAML'
defaultSettings:
  taintToleration: "node-role.kubernetes.io/control-plane:NoSchedule"
longhornManager:
  tolerations:
    - {key: node-role.kubernetes.io/control-plane, operator: Exists, effect: NoSchedule}
longhornDriver:
  tolerations:
    - {key: node-role.kubernetes.io/control-plane, operator: Exists, effect: NoSchedule}
longhornUI:
  tolerations:
    - {key: node-role.kubernetes.io/control-plane, operator: Exists, effect: NoSchedule}
YAML
  values=(--values "$vf")
  echo "install-storage: no worker in the cluster; Longhorn tolerates the control-plane taint"
fi
helm upgrade --install longhorn longhorn --repo https://charts.longhorn.io \
  --version "$CP_PARAM_LONGHORN_VERSION" --namespace longhorn-system --create-namespace \
  --kubeconfig /etc/kubernetes/admin.conf "${values[@]}" --wait --timeout 15m
echo "install-storage: Longhorn $CP_PARAM_LONGHORN_VERSION installed"
