#!/usr/bin/env bash
# Applies the host's labels and taints (CP_HOST_LABELS, CP_HOST_TAINTS, one
# per line) to its node, and records their digest in a label so the
# evidence can tell they are current.
set -euo pipefail

kc=(--kubeconfig "$CP_ARTIFACT_KUBECONFIG_ADMIN")
labels=("cp.intentops.io/labels-hash=$(printf '%s\n%s' "${CP_HOST_LABELS:-}" "${CP_HOST_TAINTS:-}" | sha256sum | cut -c1-16)")
[[ "$CP_HOST_ROLE" == worker ]] && labels+=("node-role.kubernetes.io/worker=")
while IFS= read -r kv; do
  [[ -n "$kv" ]] && labels+=("$kv")
done <<<"${CP_HOST_LABELS:-}"
kubectl "${kc[@]}" label node "$CP_HOST" --overwrite "${labels[@]}"
while IFS= read -r taint; do
  [[ -n "$taint" ]] && kubectl "${kc[@]}" taint node "$CP_HOST" "$taint" --overwrite
done <<<"${CP_HOST_TAINTS:-}"
echo "label-node: ${#labels[@]} labels on $CP_HOST"
