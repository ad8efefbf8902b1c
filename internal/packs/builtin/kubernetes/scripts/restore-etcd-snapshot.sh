#!/usr/bin/env bash
# Restores an etcd snapshot taken by etcd-snapshot on this master, as the
# etcd and kubeadm documentation describe for a stacked etcd.
set -euo pipefail

# Stop the control-plane static pods (move their manifests out), restore
# the snapshot into a new data directory, swap it in for the static pod's
# data directory (the old one is kept beside it), put the manifests back,
# and wait for etcd and the API. Only a cluster with one master: restoring
# several members needs every member restored from the same snapshot with
# the cluster's peer URLs, which this job does not do. The member's peer
# URL is the node address (node_addresses, else the SSH address): the
# address kubeadm advertised and etcd's manifest listens on.

fail() { echo "restore-etcd-snapshot on ${CP_HOST:-?}: $*" >&2; exit 1; }
# refuse NAME VALUE FORM fails quoting at most 200 characters of VALUE.
refuse() { local v=${2:0:200}; fail "$1 \"${v//[[:cntrl:]]/?}\" is not $3"; }
# check NAME VALUE REGEX FORM refuses VALUE unless it matches REGEX.
check() { [[ $2 =~ $3 ]] || refuse "$1" "$2" "$4"; }

check host "${CP_HOST:-}" '^[a-z0-9]([a-z0-9.-]{0,61}[a-z0-9])?$' "a Kubernetes node name etcd can use as its member name"
check etcd_snapshot "${CP_PARAM_ETCD_SNAPSHOT:-}" '^(latest|etcd-[0-9]{8}T[0-9]{6}Z\.db)$' \
  "latest or a snapshot file name such as etcd-20260101T120000Z.db"
# node_address HOST ADDRESS prints HOST's entry of node_addresses (the
# address kubeadm advertised, which etcd's peer URL holds), else ADDRESS
# (its SSH address).
node_address() {
  local e entries
  IFS=, read -r -a entries <<<"${CP_PARAM_NODE_ADDRESSES:-}"
  for e in "${entries[@]}"; do
    if [[ "${e%%=*}" == "$1" ]]; then printf '%s' "${e#*=}"; return; fi
  done
  printf '%s' "$2"
}
node_ip=$(node_address "$CP_HOST" "${CP_HOST_ADDRESS:-}")
check "node address of host $CP_HOST" "$node_ip" '^([0-9]{1,3}\.){3}[0-9]{1,3}$' "an IPv4 address etcd peers on (set node_address)"
masters=0
IFS=, read -ra hosts <<<"${CP_HOSTS:-}"
for h in "${hosts[@]}"; do
  read -r _ _ role <<<"$h"
  [[ "$role" == master ]] && masters=$((masters + 1))
done
((masters == 1)) || fail "the cluster has $masters masters; this restore handles one master only (restore each member by hand from the same snapshot, see etcd's disaster recovery guide)"

dir=/var/lib/cp/kubernetes/etcd-snapshots
name=$CP_PARAM_ETCD_SNAPSHOT
if [[ "$name" == latest ]]; then
  [[ -s "$dir/latest" ]] || fail "$dir/latest is missing: no snapshot was taken on $CP_HOST; run the snapshot action first"
  name=$(awk 'NR == 1 {print $2}' "$dir/latest")
  check "snapshot named in $dir/latest" "$name" '^etcd-[0-9]{8}T[0-9]{6}Z\.db$' "a snapshot file name"
fi
[[ -s "$dir/$name" ]] || fail "$dir/$name is missing; the snapshots on $CP_HOST are: $(find "$dir" -maxdepth 1 -name 'etcd-*.db' -printf '%f ' | head -c 200)"
if grep -q "  $name\$" "$dir/latest" 2>/dev/null; then
  (cd "$dir" && sha256sum -c --status latest) || fail "$dir/$name does not match the sha256 recorded when it was taken; refusing to restore it"
fi

manifests=/etc/kubernetes/manifests
held=/var/lib/cp/kubernetes/restore-manifests
data=/var/lib/etcd
new="$data.restore-$(date -u +%Y%m%dT%H%M%SZ)"
[[ ! -e "$held/etcd.yaml" ]] || fail "$held/etcd.yaml is held from an interrupted restore; move it and kube-apiserver.yaml back to $manifests, check etcd, then retry"
[[ -s "$manifests/etcd.yaml" ]] || fail "$manifests/etcd.yaml is missing: this is not a kubeadm master with a stacked etcd"
grep -q -- "path: $data\$" "$manifests/etcd.yaml" || fail "$manifests/etcd.yaml does not mount $data; a data directory other than kubeadm's default is not handled"
# kubeadm's manifest names the peer URL etcd advertises; a restore with
# another one would start a member its manifest does not match.
peer=$(sed -n 's/^ *- --initial-advertise-peer-urls=//p' "$manifests/etcd.yaml" | head -n 1)
[[ -z "$peer" || "$peer" == "https://$node_ip:2380" ]] ||
  fail "$manifests/etcd.yaml advertises the peer URL ${peer:0:100}, not https://$node_ip:2380 of node address $node_ip; set node_address of $CP_HOST to the address etcd runs on"

export DEBIAN_FRONTEND=noninteractive
if ! command -v etcdctl >/dev/null; then
  apt-get update
  apt-get install -y etcd-client
fi
export ETCDCTL_API=3
restore=(etcdctl snapshot restore)
command -v etcdutl >/dev/null && restore=(etcdutl snapshot restore)

# Stop the API server and etcd: the kubelet stops a static pod whose
# manifest leaves the directory (it checks every 20s).
install -d -m 0700 "$held"
for m in kube-apiserver etcd; do
  if [[ -e "$manifests/$m.yaml" ]]; then mv -f "$manifests/$m.yaml" "$held/$m.yaml"; fi
done
sleep 25
"${restore[@]}" "$dir/$name" --data-dir "$new" --name "$CP_HOST" \
  --initial-cluster "$CP_HOST=https://$node_ip:2380" \
  --initial-advertise-peer-urls "https://$node_ip:2380" ||
  fail "restoring $dir/$name into $new failed; the manifests are held in $held: move them back to $manifests to start the old etcd"
old="$data.before-restore-$(date -u +%Y%m%dT%H%M%SZ)"
if [[ -d "$data" ]]; then mv "$data" "$old"; fi
mv "$new" "$data"
chmod 0700 "$data"
for m in etcd kube-apiserver; do
  mv -f "$held/$m.yaml" "$manifests/$m.yaml"
done
printf '%s\n' "$name" >/var/lib/cp/kubernetes/etcd-restored-from

etcd=(etcdctl --endpoints=https://127.0.0.1:2379 --cacert=/etc/kubernetes/pki/etcd/ca.crt
  --cert=/etc/kubernetes/pki/etcd/healthcheck-client.crt --key=/etc/kubernetes/pki/etcd/healthcheck-client.key)
deadline=$((SECONDS + 600))
until "${etcd[@]}" endpoint health >/dev/null 2>&1 && kubectl --kubeconfig /etc/kubernetes/admin.conf get --raw=/readyz >/dev/null 2>&1; do
  ((SECONDS < deadline)) || fail "etcd or the API did not come back within 10m after the restore; the previous data directory is $old"
  sleep 5
done
echo "restore-etcd-snapshot: $CP_HOST restored from $name; the previous data directory is kept in $old"
