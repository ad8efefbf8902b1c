#!/usr/bin/env bash
# Drops the host's cluster: its backup schedule first (no backup of a
# cluster being dropped), then the cluster with pg_dropcluster --stop (data
# directory, configuration, log), then its root-only credentials. The
# dumps under /var/backups/postgresql and the packages stay; a file someone
# else put in the cluster's configuration directory stays with it.
set -euo pipefail

die() {
  echo "remove-postgresql-cluster: $*" >&2
  exit 1
}

version=${CP_PARAM_POSTGRESQL_VERSION:?}
cluster=${CP_PARAM_POSTGRESQL_CLUSTER:?}
[[ $version =~ ^[0-9]{2}$ ]] || die "postgresql_version $version is not a major version such as 15"
[[ $cluster =~ ^[a-z][a-z0-9_]{0,30}$ ]] || die "postgresql_cluster $cluster is not a lower-case name"

rm -f "/etc/cron.d/cp-postgresql-backup-$version-$cluster"
if command -v pg_lsclusters >/dev/null 2>&1 &&
  [ -n "$(pg_lsclusters -h | awk -v v="$version" -v c="$cluster" '$1 == v && $2 == c')" ]; then
  # pg_dropcluster removes the files it knows, and conf.d only when empty:
  # the pack's own conf.d file, and the directories it leaves empty, go
  # after it.
  pg_dropcluster --stop "$version" "$cluster"
  rm -f "/etc/postgresql/$version/$cluster/conf.d/50-cp-postgresql-host.conf"
  rmdir "/etc/postgresql/$version/$cluster/conf.d" "/etc/postgresql/$version/$cluster" "/etc/postgresql/$version" 2>/dev/null || true
  echo "remove-postgresql-cluster: dropped cluster $version/$cluster"
else
  echo "remove-postgresql-cluster: no cluster $version/$cluster"
fi
rm -rf "/var/lib/cp/postgresql-host/$version-$cluster"
if [ -d "/var/backups/postgresql/$version-$cluster" ]; then
  echo "remove-postgresql-cluster: its dumps stay in /var/backups/postgresql/$version-$cluster"
fi
