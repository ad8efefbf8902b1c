#!/usr/bin/env bash
# Waits until the API server is ready (/readyz, which includes etcd), every
# host of the intent is a Ready node and the cluster's system workloads in
# kube-system run (every Deployment Available, every DaemonSet ready on
# every node it wants), this master has a recent WireGuard handshake with
# every peer, and writes a short health report.
set -euo pipefail

fail() { echo "verify-cluster: $*" >&2; exit 1; }
# refuse NAME VALUE FORM fails quoting at most 200 characters of VALUE.
refuse() { local v=${2:0:200}; fail "$1 \"${v//[[:cntrl:]]/?}\" is not $3"; }
# check NAME VALUE REGEX FORM refuses VALUE unless it matches REGEX: every
# value is checked here before any use, whatever the pack declares.
check() { [[ $2 =~ $3 ]] || refuse "$1" "$2" "$4"; }

check node_ready_timeout "${CP_PARAM_NODE_READY_TIMEOUT:-}" '^[+]?(([0-9]{1,15}([.][0-9]{0,15})?|[.][0-9]{1,15})(ns|us|µs|μs|ms|s|m|h)){1,7}$' "a duration such as 5m or 1h30m"

kc=(--kubeconfig /etc/kubernetes/admin.conf)
want=$(tr , '\n' <<<"${CP_HOSTS:-}" | grep -c . || true)
kubectl "${kc[@]}" get --raw=/readyz >/dev/null || fail "the API server is not ready"
kubectl "${kc[@]}" wait --for=condition=Ready nodes --all --timeout="$CP_PARAM_NODE_READY_TIMEOUT"
got=$(kubectl "${kc[@]}" get nodes -o name | grep -c . || true)
[[ "$got" == "$want" ]] || fail "$got nodes registered, the intent has $want hosts"
kubectl "${kc[@]}" -n kube-system wait --for=condition=Available deployment --all --timeout="$CP_PARAM_NODE_READY_TIMEOUT"
# daemonsets_ready prints every kube-system DaemonSet that is not ready on
# all the nodes it is scheduled to, as name=ready/desired; nothing when all are.
daemonsets_ready() {
  local out
  out=$(kubectl "${kc[@]}" -n kube-system get daemonsets \
    -o jsonpath='{range .items[*]}{.metadata.name}={.status.numberReady}/{.status.desiredNumberScheduled}{"\n"}{end}') || return 1
  awk -F'[=/]' 'NF && $2 + 0 != $3 + 0 {printf "%s ", $0}' <<<"$out"
}
for _ in $(seq 1 60); do
  pending=$(daemonsets_ready) && [[ -z "$pending" ]] && break
  sleep 5
done
pending=$(daemonsets_ready) || fail "cannot list the DaemonSets of kube-system"
[[ -z "$pending" ]] || fail "kube-system DaemonSets not ready on every node: ${pending:0:200}"
# Every WireGuard peer of this master has a recent handshake: the
# interfaces come up with PersistentKeepalive, which starts one at once,
# so a peer without one after two minutes is down, has another key than
# the one it published or cannot be reached at its endpoint.
stale_peers() {
  local hs now
  hs=$(wg show wg0 latest-handshakes) || return 1
  now=$(date +%s)
  awk -v now="$now" 'NF && ($2 !~ /^[0-9]+$/ || $2 == 0 || now - $2 > 300) {printf "%s ", $1}' <<<"$hs"
}
for _ in $(seq 1 24); do
  stale=$(stale_peers) && [[ -z "$stale" ]] && break
  sleep 5
done
stale=$(stale_peers) || fail "cannot read wg0's handshakes; is wg-quick@wg0 up?"
[[ -z "$stale" ]] || fail "no WireGuard handshake with peers ${stale:0:400}(their public keys): check that wg-quick@wg0 runs on them and that their WireGuard port is reachable over UDP"
{
  kubectl "${kc[@]}" get nodes -o wide
  kubectl "${kc[@]}" -n kube-system get deployments \
    -o jsonpath='{range .items[*]}deployment/{.metadata.name} {.status.availableReplicas}/{.spec.replicas}{"\n"}{end}'
  kubectl "${kc[@]}" -n kube-system get daemonsets \
    -o jsonpath='{range .items[*]}daemonset/{.metadata.name} {.status.numberReady}/{.status.desiredNumberScheduled}{"\n"}{end}'
} >"$CP_OUTPUT_DIR/cluster_health_report"
echo "verify-cluster: API ready, $got of $want nodes Ready, kube-system workloads running, WireGuard peers answering"
