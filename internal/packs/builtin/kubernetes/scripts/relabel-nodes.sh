#!/usr/bin/env bash
# Applies label and taint changes to existing nodes from the first master
# (CP_PARAM_NODE_CHANGES: comma-separated node/change entries, see the
# job's node_changes). Every entry is checked against the Kubernetes
# syntax before use and reaches kubectl as one argument. Taint removals
# are limited to the taints a node still has, so a retry converges.
set -euo pipefail

fail() { echo "relabel-nodes: $*" >&2; exit 1; }
# refuse NAME VALUE FORM fails quoting at most 200 characters of VALUE.
refuse() { local v=${2:0:200}; fail "$1 \"${v//[[:cntrl:]]/?}\" is not $3"; }

name_re='[a-z0-9]([-a-z0-9]*[a-z0-9])?'
node_re="${name_re}(\\.${name_re})*"
key_re="(${node_re}/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?"
value_re='([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?'
effect_re='(NoSchedule|PreferNoSchedule|NoExecute)'

changes_in=${CP_PARAM_NODE_CHANGES:-}
[[ "$changes_in" != *[[:cntrl:]]* ]] || refuse node_changes "$changes_in" "free of control characters"
IFS=, read -r -a changes <<<"$changes_in"
[[ ${#changes[@]} -gt 0 ]] || fail "node_changes is empty; there is nothing to apply"
nodes=()
for c in "${changes[@]}"; do
  [[ $c =~ ^(${node_re})/ ]] || refuse "change" "$c" "node/change with a Kubernetes node name"
  node=${BASH_REMATCH[1]}
  change=${c#*/}
  [[ $change =~ ^${key_re}(=${value_re}|-|(=${value_re})?:${effect_re}|:${effect_re}-)$ ]] ||
    refuse "change for node $node" "$change" "key=value, key-, key[=value]:Effect or key:Effect- in Kubernetes syntax"
  [[ " ${nodes[*]} " == *" $node "* ]] || nodes+=("$node")
done

kc=(--kubeconfig /etc/kubernetes/admin.conf)
for node in "${nodes[@]}"; do
  labels=() add=() remove=()
  present=",$(kubectl "${kc[@]}" get node "$node" -o jsonpath='{range .spec.taints[*]}{.key}:{.effect}{","}{end}')"
  for c in "${changes[@]}"; do
    [[ ${c%%/*} == "$node" ]] || continue
    change=${c#*/}
    case "$change" in
      *:*-) if [[ $present == *",${change%-},"* ]]; then remove+=("$change"); fi ;;
      *:*) add+=("$change") ;;
      *) labels+=("$change") ;;
    esac
  done
  if [[ ${#labels[@]} -gt 0 ]]; then
    kubectl "${kc[@]}" label node "$node" --overwrite "${labels[@]}"
  fi
  if [[ ${#remove[@]} -gt 0 ]]; then
    kubectl "${kc[@]}" taint node "$node" "${remove[@]}"
  fi
  if [[ ${#add[@]} -gt 0 ]]; then
    kubectl "${kc[@]}" taint node "$node" "${add[@]}" --overwrite
  fi
  echo "relabel-nodes: $node: ${#labels[@]} label changes, ${#add[@]} taints set, ${#remove[@]} removed"
done
