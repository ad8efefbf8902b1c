# shellcheck shell=bash
# The drain of node $CP_HOST with the guaranteed uncordon. The including
# script defines kc (kubectl's --kubeconfig arguments) and
# uncordon_again WHY (fails with WHY after uncordoning the node, unless it
# was cordoned before the job).
#
# run_drain drains $CP_HOST within drain_timeout, kubectl's output in the
# file $drain_log, and sets drain_status to kubectl's exit status. kubectl
# runs in the background, so a TERM, INT or HUP (the engine's timeout or a
# cancel TERMs the job's process group) runs the trap at once, not when
# kubectl ends: it stops the drain and uncordons the node.
drain_log=$(mktemp)
drain=""
trap 'rm -f "$drain_log"' EXIT
# shellcheck disable=SC2317 # run by the traps run_drain sets
stopped() {
  trap - INT TERM HUP
  [[ -z "$drain" ]] || kill "$drain" 2>/dev/null || true
  uncordon_again "the drain of node $CP_HOST was stopped by SIG$1 before it finished"
}
run_drain() {
  trap 'stopped INT' INT
  trap 'stopped TERM' TERM
  trap 'stopped HUP' HUP
  kubectl "${kc[@]}" drain "$CP_HOST" --ignore-daemonsets --delete-emptydir-data --timeout="$CP_PARAM_DRAIN_TIMEOUT" >"$drain_log" 2>&1 &
  drain=$!
  drain_status=0
  wait "$drain" || drain_status=$?
  drain=""
  trap - INT TERM HUP
}
# pdb_held_why prints why a PodDisruptionBudget kept the drain from
# finishing, naming the pods whose eviction it refused (NAMESPACE/NAME,
# at most 10), or nothing when none was refused.
pdb_held_why() {
  local held pods
  mapfile -t held < <(grep -o 'error when evicting pods/"[a-z0-9.-]*" -n "[a-z0-9-]*"' "$drain_log" |
    sed -E 's|.*pods/"([^"]*)" -n "([^"]*)"|\2/\1|' | sort -u | head -n 10)
  ((${#held[@]} > 0)) || return 0
  printf -v pods '%s, ' "${held[@]}"
  echo "a PodDisruptionBudget allows no eviction of ${pods%, } from node $CP_HOST within drain_timeout $CP_PARAM_DRAIN_TIMEOUT (kubectl get pdb -A shows ALLOWED DISRUPTIONS 0)"
}
