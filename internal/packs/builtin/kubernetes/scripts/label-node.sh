#!/usr/bin/env bash
# Applies the host's labels and taints to its node: CP_HOST_LABELS holds
# comma-separated key=value entries, CP_HOST_TAINTS comma-separated
# key[=value]:Effect entries. Every entry is checked against the
# Kubernetes syntax before use, whatever the engine and the pack checked,
# and reaches kubectl as one argument. Runs on the first master
# (scope.run_on), so the admin kubeconfig never reaches the node.
set -euo pipefail

fail() { echo "label-node: $*" >&2; exit 1; }
# refuse NAME VALUE FORM fails quoting at most 200 characters of VALUE.
refuse() { local v=${2:0:200}; fail "$1 \"${v//[[:cntrl:]]/?}\" is not $3"; }

name_re='[a-z0-9]([-a-z0-9]*[a-z0-9])?'
key_re="(${name_re}(\\.${name_re})*/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?"
value_re='([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?'
effect_re='(NoSchedule|PreferNoSchedule|NoExecute)'

for v in CP_HOST_LABELS CP_HOST_TAINTS; do
  [[ "${!v:-}" != *[[:cntrl:]]* ]] || refuse "$v" "${!v}" "free of control characters"
done
kc=(--kubeconfig "$CP_ARTIFACT_KUBECONFIG_ADMIN")
labels=()
[[ "$CP_HOST_ROLE" == worker ]] && labels+=("node-role.kubernetes.io/worker=")
IFS=, read -r -a entries <<<"${CP_HOST_LABELS:-}"
for kv in "${entries[@]}"; do
  [[ $kv =~ ^${key_re}=${value_re}$ ]] || refuse label "$kv" "key=value in Kubernetes label syntax"
  labels+=("$kv")
done
taints=()
IFS=, read -r -a entries <<<"${CP_HOST_TAINTS:-}"
for t in "${entries[@]}"; do
  [[ $t =~ ^${key_re}(=${value_re})?:${effect_re}$ ]] || refuse taint "$t" "key[=value]:Effect with NoSchedule, PreferNoSchedule or NoExecute"
  taints+=("$t")
done
if [[ ${#labels[@]} -gt 0 ]]; then
  kubectl "${kc[@]}" label node "$CP_HOST" --overwrite "${labels[@]}"
fi
if [[ ${#taints[@]} -gt 0 ]]; then
  kubectl "${kc[@]}" taint node "$CP_HOST" "${taints[@]}" --overwrite
fi
echo "label-node: ${#labels[@]} labels and ${#taints[@]} taints on $CP_HOST"
