#!/usr/bin/env bash
# Installs the PostgreSQL server on the host, from the distribution's
# packages or from PostgreSQL's own repository (PGDG, written as a deb822
# pgdg.sources signed by the key postgresql-common ships), creates the
# cluster with pg_createcluster, writes its listen address and port into
# its conf.d (values quoted by pgconf_value, never pasted), and starts it
# through its systemd unit postgresql@VERSION-CLUSTER.
set -euo pipefail

die() {
  echo "install-postgresql-server: $*" >&2
  exit 1
}

version=${CP_PARAM_POSTGRESQL_VERSION:?}
cluster=${CP_PARAM_POSTGRESQL_CLUSTER:?}
port=${CP_PARAM_PORT:?}
repo=${CP_PARAM_APT_REPOSITORY:-distribution}
listen=${CP_PARAM_LISTEN_ADDRESS:-${CP_HOST_ADDRESS:?}}

# The values were checked at plan; check again what lands in paths and files.
[[ $version =~ ^[0-9]{2}$ ]] || die "postgresql_version $version is not a major version such as 15"
[[ $cluster =~ ^[a-z][a-z0-9_]{0,30}$ ]] || die "postgresql_cluster $cluster is not a lower-case name"
[[ $port =~ ^[0-9]{4,5}$ ]] || die "port $port is not a TCP port"
[[ $listen =~ ^[A-Za-z0-9.:-]+$ ]] || die "the host's address $listen cannot be a listen address; set listen_address"

export DEBIAN_FRONTEND=noninteractive
pgdg_sources=/etc/apt/sources.list.d/pgdg.sources
pgdg_keyring=/usr/share/postgresql-common/pgdg/apt.postgresql.org.asc
# The fingerprint PostgreSQL publishes for the repository's signing key.
pgdg_fingerprint=B97B0AFCAA1A47F044F244A07FCC7D46ACCC4CF8
pgdg_key_url=https://www.postgresql.org/media/keys/ACCC4CF8.asc

# deb822_field prints one "Name: value" field of a deb822 stanza; a value
# is one line without leading space (it would continue the field).
deb822_field() {
  [[ $2 != *$'\n'* && $2 =~ ^[^[:space:]] ]] || die "deb822 field $1: value $2 is not one word"
  printf '%s: %s\n' "$1" "$2"
}

# write_pgdg_sources writes PostgreSQL's repository as deb822, signed by
# the key postgresql-common installs (the one PostgreSQL's own instructions
# name), after checking the key's fingerprint.
write_pgdg_sources() {
  local codename fpr tmp
  if [ ! -s "$pgdg_keyring" ]; then
    apt-get update
    apt-get install -y postgresql-common
  fi
  if [ ! -s "$pgdg_keyring" ]; then
    # An older postgresql-common without the key file: PostgreSQL's manual
    # instructions download it to the same place.
    command -v curl >/dev/null 2>&1 || apt-get install -y curl ca-certificates
    install -d -m 0755 "$(dirname "$pgdg_keyring")"
    curl -fsSL -o "$pgdg_keyring" "$pgdg_key_url" ||
      die "cannot download the PGDG signing key from $pgdg_key_url; put it at $pgdg_keyring"
  fi
  if ! command -v gpg >/dev/null 2>&1; then
    apt-get install -y gnupg
  fi
  fpr=$(gpg --show-keys --with-colons "$pgdg_keyring" 2>/dev/null | awk -F: '$1 == "fpr" { print $10; exit }')
  [ "$fpr" = "$pgdg_fingerprint" ] || die "$pgdg_keyring has fingerprint ${fpr:-none}, not PGDG's $pgdg_fingerprint; reinstall postgresql-common"
  codename=$(sed -n 's/^VERSION_CODENAME=//p' /etc/os-release | tr -d '"')
  [[ $codename =~ ^[a-z]+$ ]] || die "/etc/os-release names no VERSION_CODENAME; PGDG needs the distribution's codename"
  tmp=$(mktemp "$pgdg_sources.XXXXXX")
  {
    deb822_field Types deb
    deb822_field URIs "${CP_PARAM_PGDG_URL:?}"
    deb822_field Suites "$codename-pgdg"
    deb822_field Components main
    deb822_field Signed-By "$pgdg_keyring"
  } >"$tmp"
  chmod 0644 "$tmp"
  mv -f "$tmp" "$pgdg_sources"
}

case $repo in
distribution) rm -f "$pgdg_sources" ;;
pgdg) write_pgdg_sources ;;
*) die "apt_repository $repo is neither distribution nor pgdg" ;;
esac

apt-get update
if ! apt-cache show "postgresql-$version" >/dev/null 2>&1; then
  if [ "$repo" = distribution ]; then
    die "the distribution has no postgresql-$version; set postgresql_version to its version (Debian 12: 15, Ubuntu 22.04: 14, Ubuntu 24.04: 16) or apt_repository = \"pgdg\""
  fi
  die "no postgresql-$version in PostgreSQL's repository ${CP_PARAM_PGDG_URL:-}; check pgdg_url and that apt-get update reached it"
fi
apt-get install -y "postgresql-$version" "postgresql-client-$version"

# cluster_status prints the cluster's status column of pg_lsclusters
# (online, down), nothing when it does not exist.
cluster_status() {
  pg_lsclusters -h | awk -v v="$version" -v c="$cluster" '$1 == v && $2 == c { print $4 }'
}
if [ -z "$(cluster_status)" ]; then
  pg_createcluster "$version" "$cluster" --port "$port"
fi

etc=/etc/postgresql/$version/$cluster
[ -f "$etc/postgresql.conf" ] || die "$etc/postgresql.conf is missing; pg_createcluster did not create the cluster"
grep -Eq "^[[:space:]]*include_dir[[:space:]]*=[[:space:]]*'conf\.d'" "$etc/postgresql.conf" ||
  die "$etc/postgresql.conf does not include conf.d; restore the distribution's file"

# pgconf_value quotes a value for postgresql.conf: single quotes, with
# every single quote doubled.
pgconf_value() {
  local v=${1//\'/\'\'}
  printf "'%s'" "$v"
}
mkdir -p "$etc/conf.d"
conf=$etc/conf.d/50-cp-postgresql-host.conf
tmp=$(mktemp "$etc/conf.d/.cp.XXXXXX")
{
  echo "# Written by the postgresql-host pack (install-postgresql-server); changes are overwritten."
  printf 'listen_addresses = %s\n' "$(pgconf_value "$listen")"
  printf 'password_encryption = %s\n' "$(pgconf_value scram-sha-256)"
  printf 'port = %s\n' "$(pgconf_value "$port")"
} >"$tmp"
chown postgres:postgres "$tmp"
chmod 0644 "$tmp"
changed=0
cmp -s "$tmp" "$conf" || changed=1
mv -f "$tmp" "$conf"
# Started with the host, as the distribution's postgresql.service does for
# every cluster whose start.conf says auto.
if [ "$(tr -d '[:space:]' <"$etc/start.conf" 2>/dev/null || true)" != auto ]; then
  printf 'auto\n' >"$etc/start.conf"
  chown postgres:postgres "$etc/start.conf"
fi

unit=postgresql@$version-$cluster
if [ "$changed" = 1 ] || ! systemctl is-active --quiet "$unit"; then
  systemctl restart "$unit"
fi
for _ in $(seq 60); do
  if pg_isready -q -h /var/run/postgresql -p "$port"; then
    echo "install-postgresql-server: PostgreSQL $version cluster $cluster is online on $listen:$port"
    exit 0
  fi
  sleep 1
done
die "cluster $version/$cluster does not accept connections on port $port after 60s; see /var/log/postgresql/postgresql-$version-$cluster.log"
