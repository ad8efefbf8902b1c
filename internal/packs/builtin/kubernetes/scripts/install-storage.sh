#!/usr/bin/env bash
# Installs Longhorn block storage with Helm when storage is longhorn.
set -euo pipefail

fail() { echo "install-storage on ${CP_HOST:-?}: $*" >&2; exit 1; }
# refuse NAME VALUE FORM fails quoting at most 200 characters of VALUE.
refuse() { local v=${2:0:200}; fail "$1 \"${v//[[:cntrl:]]/?}\" is not $3"; }
# check NAME VALUE REGEX FORM refuses VALUE unless it matches REGEX: every
# value is checked here before any use, whatever the pack declares.
check() { [[ $2 =~ $3 ]] || refuse "$1" "$2" "$4"; }
# shellcheck source=../lib/proxy-env.sh
source "${BASH_SOURCE[0]%/*}/../lib/proxy-env.sh"

case "${CP_PARAM_STORAGE:-}" in longhorn|none) ;; *) refuse storage "${CP_PARAM_STORAGE:-}" "longhorn or none" ;; esac
if [[ "$CP_PARAM_STORAGE" == none ]]; then
  echo "install-storage: storage is none; nothing to install"
  exit 0
fi
check longhorn_version "${CP_PARAM_LONGHORN_VERSION:-}" '^v?[0-9]{1,9}\.[0-9]{1,9}\.[0-9]{1,9}(-[0-9A-Za-z.-]{1,64})?$' \
  "a chart version such as 1.7.2"
# longhorn_chart: a Helm repository URL, or a chart archive on this host.
chart_src=${CP_PARAM_LONGHORN_CHART:-https://charts.longhorn.io}
check longhorn_chart "$chart_src" \
  '^(https?://[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:[0-9]{1,5})?(/[A-Za-z0-9._~%+-]*)*|(/[A-Za-z0-9_+-][A-Za-z0-9._+-]*)+\.tgz)$' \
  "an http(s) Helm repository URL or the absolute path of a chart archive (.tgz)"
chart_sum=${CP_PARAM_LONGHORN_CHART_SHA256:-}
[[ -z "$chart_sum" ]] || check longhorn_chart_sha256 "$chart_sum" '^[0-9a-f]{64}$' "a SHA-256 of 64 lowercase hex digits"
cleanup=()
trap 'rm -rf -- "${cleanup[@]}"' EXIT
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
  cleanup+=("$vf")
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
# The chart: longhorn of longhorn_version in the repository; or, from a
# path or with longhorn_chart_sha256, a root-only copy of the archive (the
# path's, or what helm pull fetched), checked with sha256sum -c when a
# digest is given and holding the chart longhorn of longhorn_version, and
# only that file is installed: anything else fails here, before helm
# installs anything.
chart=(longhorn --repo "$chart_src" --version "$CP_PARAM_LONGHORN_VERSION")
if [[ $chart_src == /* || -n "$chart_sum" ]]; then
  dir=$(mktemp -d)
  cleanup+=("$dir")
  chmod 0700 "$dir"
  if [[ $chart_src == /* ]]; then
    [[ -f $chart_src ]] || fail "longhorn_chart $chart_src does not exist on $CP_HOST; nothing was installed"
    cp -- "$chart_src" "$dir/longhorn.tgz"
  else
    mkdir "$dir/pull"
    helm pull longhorn --repo "$chart_src" --version "$CP_PARAM_LONGHORN_VERSION" --destination "$dir/pull" ||
      fail "helm pull of the chart longhorn $CP_PARAM_LONGHORN_VERSION from $chart_src failed; nothing was installed"
    pulled=("$dir"/pull/*.tgz)
    [[ ${#pulled[@]} -eq 1 && -f ${pulled[0]} ]] || fail "helm pull left no single chart archive from $chart_src; nothing was installed"
    mv -- "${pulled[0]}" "$dir/longhorn.tgz"
  fi
  if [[ -n "$chart_sum" ]]; then
    printf '%s  %s\n' "$chart_sum" longhorn.tgz >"$dir/longhorn.tgz.sha256"
    if ! (cd "$dir" && sha256sum -c --status longhorn.tgz.sha256); then
      got=$(sha256sum "$dir/longhorn.tgz" | cut -d' ' -f1)
      fail "the Longhorn chart $chart_src has sha256 $got, not longhorn_chart_sha256 $chart_sum; nothing was installed: check the chart's source, or set longhorn_chart_sha256 to the digest of the archive you mean to install"
    fi
    echo "install-storage: the Longhorn chart $chart_src matches longhorn_chart_sha256"
  fi
  meta=$(tar -xzOf "$dir/longhorn.tgz" longhorn/Chart.yaml 2>/dev/null) ||
    fail "$chart_src is not an archive of the chart longhorn (no longhorn/Chart.yaml in it); nothing was installed"
  got=$(sed -n -E 's/^version:[[:space:]]*["'\'']?v?([0-9A-Za-z.+-]{1,80})["'\'']?[[:space:]]*$/\1/p' <<<"$meta" | head -n 1)
  [[ "$got" == "${CP_PARAM_LONGHORN_VERSION#v}" ]] ||
    fail "the Longhorn chart $chart_src is version \"${got:0:80}\", not longhorn_version $CP_PARAM_LONGHORN_VERSION; nothing was installed"
  chart=("$dir/longhorn.tgz")
fi
helm upgrade --install longhorn "${chart[@]}" \
  --namespace longhorn-system --create-namespace \
  --kubeconfig /etc/kubernetes/admin.conf "${values[@]}" --wait --timeout 15m
echo "install-storage: Longhorn $CP_PARAM_LONGHORN_VERSION installed"
