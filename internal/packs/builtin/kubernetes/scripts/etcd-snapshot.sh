#!/usr/bin/env bash
# Saves an etcd snapshot on this master with the kubeadm etcd client
# certificates, as a root-only file under /var/lib/cp/kubernetes/etcd-snapshots,
# and writes the etcd.snapshot artifact: the file's name, its sha256 and
# what `snapshot status` reports of it. "latest" records the newest one.
set -euo pipefail

fail() { echo "etcd-snapshot on ${CP_HOST:-?}: $*" >&2; exit 1; }
# refuse NAME VALUE FORM fails quoting at most 200 characters of VALUE.
refuse() { local v=${2:0:200}; fail "$1 \"${v//[[:cntrl:]]/?}\" is not $3"; }
# check NAME VALUE REGEX FORM refuses VALUE unless it matches REGEX.
check() { [[ $2 =~ $3 ]] || refuse "$1" "$2" "$4"; }

check etcd_snapshot_keep "${CP_PARAM_ETCD_SNAPSHOT_KEEP:-}" '^[1-9][0-9]{0,2}$' "a whole number from 1 to 999"
check "role of host ${CP_HOST:-?}" "${CP_HOST_ROLE:-}" '^master$' "master: etcd runs on the masters"

pki=/etc/kubernetes/pki/etcd
for f in "$pki/ca.crt" "$pki/healthcheck-client.crt" "$pki/healthcheck-client.key"; do
  [[ -s "$f" ]] || fail "$f is missing: this host has no kubeadm etcd client certificate; run the snapshot on a master created by kubeadm"
done
export DEBIAN_FRONTEND=noninteractive
if ! command -v etcdctl >/dev/null; then
  apt-get update
  apt-get install -y etcd-client
fi
export ETCDCTL_API=3
etcd=(etcdctl --endpoints=https://127.0.0.1:2379 --cacert="$pki/ca.crt" --cert="$pki/healthcheck-client.crt" --key="$pki/healthcheck-client.key")
# etcdutl (etcd 3.5 on) reads snapshot files; etcdctl did before it.
status() {
  if command -v etcdutl >/dev/null; then etcdutl snapshot status "$1" -w json; else etcdctl snapshot status "$1" -w json; fi
}

dir=/var/lib/cp/kubernetes/etcd-snapshots
install -d -m 0700 "$dir"
name="etcd-$(date -u +%Y%m%dT%H%M%SZ).db"
umask 077
"${etcd[@]}" snapshot save "$dir/$name.part" >/dev/null || fail "etcdctl snapshot save failed; is etcd healthy? (etcdctl endpoint health on $CP_HOST)"
mv -f "$dir/$name.part" "$dir/$name"
chmod 0600 "$dir/$name"
st=$(status "$dir/$name" | tr -d '[:space:]')
[[ "$st" =~ ^\{\"hash\":[0-9]+,\"revision\":[0-9]+,\"totalKey\":[0-9]+,\"totalSize\":[0-9]+(,\"version\":\"[0-9.]+\")?\}$ ]] ||
  fail "snapshot status of $dir/$name is not the JSON etcdutl prints: ${st:0:200}"
sum=$(sha256sum "$dir/$name" | cut -d' ' -f1)
[[ "$sum" =~ ^[0-9a-f]{64}$ ]] || fail "sha256sum printed no digest for $dir/$name"

# latest is "sha256  name", as sha256sum -c reads it in $dir.
printf '%s  %s\n' "$sum" "$name" >"$dir/latest.part"
mv -f "$dir/latest.part" "$dir/latest"
{
  printf 'host=%s\n' "$CP_HOST"
  printf 'file=%s/%s\n' "$dir" "$name"
  printf 'sha256=%s\n' "$sum"
  printf 'status=%s\n' "$st"
} >"$CP_OUTPUT_DIR/etcd.snapshot"

# Keep the newest etcd_snapshot_keep snapshots.
mapfile -t old < <(find "$dir" -maxdepth 1 -name 'etcd-*.db' -printf '%f\n' | sort -r | tail -n +"$((10#$CP_PARAM_ETCD_SNAPSHOT_KEEP + 1))")
for f in "${old[@]}"; do
  rm -f -- "${dir:?}/$f"
done
echo "etcd-snapshot: $dir/$name sha256:$sum $st"
