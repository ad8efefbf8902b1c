#!/usr/bin/env bash
# Creates the application role and database in the host's cluster, with a
# password generated once on the host and kept root-only; writes
# pg_hba.conf so the role may connect from the host itself (samehost) and
# from client_cidrs with scram-sha-256 (each field quoted by hba_field) and reloads the server. Values reach SQL
# only as psql variables (:'var', :"var"); the password reaches psql
# through its environment, never a command line.
set -euo pipefail

die() {
  echo "create-postgresql-database: $*" >&2
  exit 1
}

version=${CP_PARAM_POSTGRESQL_VERSION:?}
cluster=${CP_PARAM_POSTGRESQL_CLUSTER:?}
port=${CP_PARAM_PORT:?}
database=${CP_PARAM_DATABASE:?}
username=${CP_PARAM_USERNAME:?}
listen=${CP_PARAM_LISTEN_ADDRESS:-${CP_HOST_ADDRESS:?}}

[[ $version =~ ^[0-9]{2}$ ]] || die "postgresql_version $version is not a major version such as 15"
[[ $cluster =~ ^[a-z][a-z0-9_]{0,30}$ ]] || die "postgresql_cluster $cluster is not a lower-case name"
[[ $port =~ ^[0-9]{4,5}$ ]] || die "port $port is not a TCP port"
[[ $database =~ ^[a-z_][a-z0-9_]{0,62}$ ]] || die "database $database is not a lower-case SQL identifier"
[[ $username =~ ^[a-z_][a-z0-9_]{0,62}$ ]] || die "username $username is not a lower-case SQL identifier"

# The password: generated once, kept root-only on the host, reused by every
# later run so a retry does not change it under the application.
state=/var/lib/cp/postgresql-host/$version-$cluster
credentials=$state/credentials.env
install -d -m 0700 "$state"
if [ ! -s "$credentials" ]; then
  (
    umask 077
    printf 'PGPASSWORD=%s\n' "$(od -An -N24 -tx1 /dev/urandom | tr -d ' \n')" >"$credentials.tmp"
    mv -f "$credentials.tmp" "$credentials"
  )
fi
chmod 0600 "$credentials"
password=$(sed -n 's/^PGPASSWORD=//p' "$credentials")
[[ $password =~ ^[0-9a-f]{48}$ ]] || die "$credentials holds no generated password; remove it to generate a new one"

pgsql() {
  runuser -u postgres -- psql -X -q -v ON_ERROR_STOP=1 -h /var/run/postgresql -p "$port" "$@"
}

PG_APP_PASSWORD=$password pgsql -d postgres -v role="$username" -v db="$database" <<'SQL'
-- Never log this session's statements, not even one that fails: the
-- password is in ALTER ROLE's text.
SET log_statement = 'none';
SET log_min_error_statement = 'panic';
SET log_min_duration_statement = -1;
\set pw `printf '%s' "$PG_APP_PASSWORD"`
SELECT NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = :'role') AS create_role \gset
\if :create_role
CREATE ROLE :"role" LOGIN;
\endif
ALTER ROLE :"role" WITH LOGIN PASSWORD :'pw';
\unset pw
SELECT NOT EXISTS (SELECT 1 FROM pg_database WHERE datname = :'db') AS create_db \gset
\if :create_db
CREATE DATABASE :"db" OWNER :"role";
\endif
SQL

# The backups' sentinel: each backup writes a token into it before the
# dump, and the restore check reads it back from the restored copy.
pgsql -d "$database" <<'SQL'
CREATE TABLE IF NOT EXISTS public.cp_backup_sentinel (
  id integer PRIMARY KEY,
  token text NOT NULL,
  written_at timestamptz NOT NULL DEFAULT now()
);
SQL

# hba_field quotes a database or role name for pg_hba.conf.
hba_field() {
  [[ $1 != *'"'* ]] || die "pg_hba.conf: $1 holds a double quote"
  printf '"%s"' "$1"
}
hba=/etc/postgresql/$version/$cluster/pg_hba.conf
tmp=$(mktemp "$hba.XXXXXX")
{
  echo "# Written by the postgresql-host pack (create-postgresql-database); changes are overwritten."
  echo "# TYPE DATABASE USER ADDRESS METHOD"
  echo "local all postgres peer"
  echo "local all all peer"
  # The host itself (the evidence connects over TCP to listen_address).
  printf 'host %s %s samehost scram-sha-256\n' "$(hba_field "$database")" "$(hba_field "$username")"
  IFS=, read -ra cidrs <<<"${CP_PARAM_CLIENT_CIDRS:?}"
  for cidr in "${cidrs[@]}"; do
    [[ $cidr =~ ^[0-9a-fA-F.:]+/[0-9]{1,3}$ ]] || die "client_cidrs: $cidr is not a CIDR"
    printf 'host %s %s %s scram-sha-256\n' "$(hba_field "$database")" "$(hba_field "$username")" "$cidr"
  done
} >"$tmp"
chown postgres:postgres "$tmp"
chmod 0640 "$tmp"
mv -f "$tmp" "$hba"
errors=$(pgsql -d postgres -At -c 'SELECT count(*) FROM pg_hba_file_rules WHERE error IS NOT NULL')
[ "$errors" = 0 ] || die "the server refuses $errors line(s) of $hba; see pg_hba_file_rules"
pgsql -d postgres -At -c 'SELECT pg_reload_conf()' >/dev/null

printf 'PGUSER=%s\nPGPASSWORD=%s\n' "$username" "$password" >"$CP_OUTPUT_DIR/postgresql.host.credentials"
printf 'host=%s\nport=%s\ndbname=%s\nuser=%s\n' "$listen" "$port" "$database" "$username" >"$CP_OUTPUT_DIR/postgresql.host.connection"
echo "create-postgresql-database: database $database owned by $username on $listen:$port"
