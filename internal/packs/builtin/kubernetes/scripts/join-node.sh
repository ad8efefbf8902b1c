#!/usr/bin/env bash
# Joins this host to the cluster with kubeadm: as a control-plane node when
# its role is master, as a worker otherwise. Secrets travel in a 0600 config
# file, never on the command line.
set -euo pipefail

# A host whose node the API server lists (asked with the node's own
# kubelet.conf) and, for a master, that has its kube-apiserver manifest, is
# joined and left as it is. A retry after a failed kubeadm join finds what
# that attempt left, which kubeadm's preflight refuses: such leftovers are
# removed with kubeadm reset -f, the CNI configuration and the Kubernetes
# and CNI iptables chains (which kubeadm reset documents it leaves) before
# joining again. A host is never reset when its join completed (the marker
# /var/lib/cp/kubernetes/joined) or when the API server cannot say whether
# its node exists (unreachable, not "not found").

fail() { echo "join-node on ${CP_HOST:-?}: $*" >&2; exit 1; }
# refuse NAME VALUE FORM fails quoting at most 200 characters of VALUE.
refuse() { local v=${2:0:200}; fail "$1 \"${v//[[:cntrl:]]/?}\" is not $3"; }
# check NAME VALUE REGEX FORM refuses VALUE unless it matches REGEX: every
# value is checked here before any use, whatever the pack declares.
check() { [[ $2 =~ $3 ]] || refuse "$1" "$2" "$4"; }


check host "${CP_HOST:-}" '^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$' "a Kubernetes node name"

state=/var/lib/cp/kubernetes
# leftovers prints what a kubeadm init or join left on this host.
leftovers() {
  local p
  for p in /etc/kubernetes/kubelet.conf /etc/kubernetes/bootstrap-kubelet.conf /etc/kubernetes/pki/ca.crt \
    /etc/kubernetes/manifests/kube-apiserver.yaml /etc/kubernetes/manifests/etcd.yaml \
    /var/lib/kubelet/config.yaml /var/lib/etcd/member; do
    [[ -e "$p" ]] && printf '%s ' "$p"
  done
  return 0
}
# reset_leftovers runs kubeadm reset -f, then removes the CNI configuration files
# and the Kubernetes and CNI iptables chains, which kubeadm reset leaves
# (as k3s-killall.sh does: everything else in the tables is restored as it
# was, so the host's own firewall rules stay).
reset_leftovers() {
  echo "join-node: a previous attempt left kubeadm state on $CP_HOST ($1); kubeadm reset -f before retrying"
  kubeadm reset -f
  # The CNI configuration goes, its directory stays: containerd 2.x's CRI
  # plugin watches it and stops for good (CRI service fatal, "cni conf dir
  # is removed") when the directory itself is removed.
  find /etc/cni/net.d -mindepth 1 -delete 2>/dev/null || true
  local t
  for t in iptables ip6tables; do
    if command -v "$t-save" >/dev/null && command -v "$t-restore" >/dev/null; then
      "$t-save" | { grep -v -e KUBE- -e CNI- -e cali- -e cali: -e FLANNEL -e flannel -e CILIUM || true; } | "$t-restore"
    fi
  done
}

left=$(leftovers)
if [[ -n "$left" ]]; then
  registered=unknown out=""
  if [[ -s /etc/kubernetes/kubelet.conf ]]; then
    if out=$(kubectl --kubeconfig /etc/kubernetes/kubelet.conf get node "$CP_HOST" -o name 2>&1); then
      registered=yes
    elif [[ "$out" == *"(NotFound)"* || "$out" == *"invalid configuration"* || "$out" == *"error loading config file"* ]]; then
      # Not found, or a kubelet.conf kubectl (and so the kubelet) cannot load.
      registered=no
    fi
    out=${out//[[:cntrl:]]/ }
  else
    registered=no
  fi
  if [[ $registered == yes && ( "${CP_HOST_ROLE:-}" != master || -s /etc/kubernetes/manifests/kube-apiserver.yaml ) ]]; then
    mkdir -p "$state"
    [[ -e "$state/joined" ]] || date -u +%Y-%m-%dT%H:%M:%SZ >"$state/joined"
    echo "join-node: $CP_HOST already joined"
    exit 0
  fi
  [[ ! -e "$state/joined" ]] ||
    fail "$CP_HOST joined the cluster before but its node is not registered now (${out:0:200}); it is not reset: run the reset-node job (remove_node) to start it over"
  [[ $registered == no || $registered == yes ]] ||
    fail "cannot tell whether $CP_HOST joined: the API server did not answer (${out:0:200}); fix its reachability and retry (a joined node is never reset)"
  reset_leftovers "$left"
fi
# node_address HOST ADDRESS prints HOST's entry of node_addresses, else
# ADDRESS (its SSH address).
node_address() {
  local e entries
  IFS=, read -r -a entries <<<"${CP_PARAM_NODE_ADDRESSES:-}"
  for e in "${entries[@]}"; do
    if [[ "${e%%=*}" == "$1" ]]; then printf '%s' "${e#*=}"; return; fi
  done
  printf '%s' "$2"
}
# node_ip_args API IP prints nodeRegistration's kubeletExtraArgs giving the
# kubelet IP as its node IP: a list of name/value pairs in v1beta4, a map
# in v1beta3.
node_ip_args() {
  if [[ "$1" == kubeadm.k8s.io/v1beta3 ]]; then
    printf '  kubeletExtraArgs:\n    node-ip: "%s"\n' "$2"
  else
    printf '  kubeletExtraArgs:\n    - name: node-ip\n      value: "%s"\n' "$2"
  fi
}

endpoint="${CP_PARAM_CONTROL_PLANE_ENDPOINT:-$(node_address "${CP_FIRST_MASTER:-}" "${CP_FIRST_MASTER_ADDRESS:-}"):6443}"
check control_plane_endpoint "$endpoint" \
  '^([A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?|\[[0-9A-Fa-f:.]{2,45}\]|[0-9A-Fa-f:.]{2,45}):[0-9]{1,5}$' \
  "an address:port such as 10.0.0.10:6443"
version="${CP_PARAM_KUBERNETES_VERSION:-}"
version=${version#v}
check kubernetes_version "$version" '^1\.([0-9]{1,3})\.[0-9]{1,3}$' "a version such as 1.31.2"
api=kubeadm.k8s.io/v1beta3
(( 10#${BASH_REMATCH[1]} >= 31 )) && api=kubeadm.k8s.io/v1beta4
# A worker reached by a DNS name without a node address keeps the
# kubelet's own choice of node IP; a master needs an IP to advertise.
node_ip=$(node_address "$CP_HOST" "${CP_HOST_ADDRESS:-}")
ip_re='^(([0-9]{1,3}\.){3}[0-9]{1,3}|[0-9A-Fa-f:]{2,39})$'
node_args=""
if [[ "$node_ip" =~ $ip_re ]]; then
  node_args=$(node_ip_args "$api" "$node_ip")
elif [[ "${CP_HOST_ROLE:-}" == master ]]; then
  refuse "node address of host $CP_HOST" "$node_ip" "an IP address kubeadm can advertise (set node_address)"
else
  check "address of host $CP_HOST" "$node_ip" '^[A-Za-z0-9.:][A-Za-z0-9.:-]{0,252}$' "an IP address or host name"
fi
token=$(tr -d '[:space:]' <"$CP_ARTIFACT_KUBEADM_JOIN_TOKEN")
hash=$(tr -d '[:space:]' <"$CP_ARTIFACT_KUBEADM_CA_CERT_HASH")
[[ -n "$token" && -n "$hash" ]] || fail "the join token or CA hash artifact is empty"
[[ "$token" =~ ^[a-z0-9]{6}\.[a-z0-9]{16}$ ]] || fail "the kubeadm.join_token artifact is not a bootstrap token; run generate-join-token"
[[ "$hash" =~ ^sha256:[0-9a-f]{64}$ ]] || fail "the kubeadm.ca_cert_hash artifact is not sha256:<64 hex>; run generate-join-token"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
umask 077
cat >"$work/join.yaml" <<YAML
apiVersion: $api
kind: JoinConfiguration
discovery:
  bootstrapToken:
    apiServerEndpoint: "$endpoint"
    token: "$token"
    caCertHashes: ["$hash"]
nodeRegistration:
  name: "$CP_HOST"
  criSocket: unix:///run/containerd/containerd.sock
${node_args}
YAML
if [[ "$CP_HOST_ROLE" == master ]]; then
  certkey=$(tr -d '[:space:]' <"${CP_ARTIFACT_KUBEADM_CERTIFICATE_KEY:?a master needs the kubeadm.certificate_key artifact}")
  [[ "$certkey" =~ ^[0-9a-f]{64}$ ]] || fail "the kubeadm.certificate_key artifact is not 64 hex digits; run init-control-plane again"
  cat >>"$work/join.yaml" <<YAML
controlPlane:
  localAPIEndpoint:
    advertiseAddress: "$node_ip"
    bindPort: 6443
  certificateKey: "$certkey"
YAML
fi
kubeadm join --config "$work/join.yaml"
mkdir -p "$state"
date -u +%Y-%m-%dT%H:%M:%SZ >"$state/joined"
echo "join-node: $CP_HOST joined as $CP_HOST_ROLE"
