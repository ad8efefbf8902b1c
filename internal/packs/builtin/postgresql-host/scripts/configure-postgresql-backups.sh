#!/usr/bin/env bash
set -euo pipefail
# Backups of the host's cluster, and their restore check. Run as the job,
# it installs itself as /usr/local/sbin/cp-postgresql-backup, schedules
# "cp-postgresql-backup backup" in /etc/cron.d, takes a backup now and
# restores it (the job's evidence runs the restore check again). Installed,
# it is:
#
#   cp-postgresql-backup backup VERSION CLUSTER DATABASE KEEP
#   cp-postgresql-backup restore-check VERSION CLUSTER DATABASE
#
# backup writes a fresh token into the database's cp_backup_sentinel, dumps
# the database with pg_dump -Fc into /var/backups/postgresql/VERSION-CLUSTER
# (root only), refusing a pg_dump older than the server, and keeps the KEEP
# newest dumps. restore-check restores the latest dump into a scratch
# database with pg_restore and reads the token back: it fails when the
# dump is missing, unreadable, or holds another token.

program=/usr/local/sbin/cp-postgresql-backup
backups_root=/var/backups/postgresql

die() {
  echo "cp-postgresql-backup: $*" >&2
  exit 1
}

check_target() {
  [[ $1 =~ ^[0-9]{2}$ ]] || die "version $1 is not a major version such as 15"
  [[ $2 =~ ^[a-z][a-z0-9_]{0,30}$ ]] || die "cluster $2 is not a lower-case name"
  [[ $3 =~ ^[a-z_][a-z0-9_]{0,62}$ ]] || die "database $3 is not a lower-case SQL identifier"
}

# cluster_port prints the port of an online cluster (pg_lsclusters).
cluster_port() {
  local line
  line=$(pg_lsclusters -h | awk -v v="$1" -v c="$2" '$1 == v && $2 == c { print $3, $4 }')
  [ -n "$line" ] || die "no cluster $1/$2 on this host (pg_lsclusters)"
  [ "${line#* }" = online ] || die "cluster $1/$2 is ${line#* }, not online; start it with systemctl restart postgresql@$1-$2"
  [[ ${line% *} =~ ^[0-9]+$ ]] || die "pg_lsclusters reports port ${line% *} for $1/$2"
  printf '%s' "${line% *}"
}

pgsql() { # PORT DB ARGS...
  local port=$1 db=$2
  shift 2
  PGOPTIONS="-c client_min_messages=warning" runuser -u postgres -- psql -X -q -At -v ON_ERROR_STOP=1 -h /var/run/postgresql -p "$port" -d "$db" "$@"
}

# major prints the major version in a "(PostgreSQL) 15.18" version line.
major() {
  sed -n 's/.*(PostgreSQL) \([0-9][0-9]*\).*/\1/p' | head -n1
}

# newest_client prints the newest installed pg_dump or pg_restore.
newest_client() {
  local f best="" best_v=0 v
  for f in /usr/lib/postgresql/*/bin/"$1"; do
    [ -x "$f" ] || continue
    v=$(basename "$(dirname "$(dirname "$f")")")
    [[ $v =~ ^[0-9]+$ ]] || continue
    if [ "$v" -gt "$best_v" ]; then
      best=$f best_v=$v
    fi
  done
  [ -n "$best" ] || die "no $1 installed under /usr/lib/postgresql; install postgresql-client-VERSION"
  printf '%s' "$best"
}

# client_for prints the newest pg_dump or pg_restore after checking that
# it is not older than the server: an older client refuses a newer
# server's catalog (pg_dump: "aborting because of server version mismatch").
client_for() { # TOOL PORT
  local tool bin client server
  tool=$1
  bin=$(newest_client "$tool")
  client=$("$bin" --version | major)
  server=$(pgsql "$2" postgres -c 'SHOW server_version_num')
  [[ $client =~ ^[0-9]+$ && $server =~ ^[0-9]+$ ]] || die "cannot read the versions of $bin ($client) and the server ($server)"
  server=$((server / 10000))
  if [ "$client" -lt "$server" ]; then
    die "$bin is PostgreSQL $client, older than the server's $server; install postgresql-client-$server (a dump needs a $tool at least as new as the server)"
  fi
  printf '%s' "$bin"
}

backup() { # VERSION CLUSTER DATABASE KEEP
  local version=$1 cluster=$2 db=$3 keep=$4 port dir token stamp pg_dump tmp
  check_target "$version" "$cluster" "$db"
  [[ $keep =~ ^[1-9][0-9]{0,3}$ ]] || die "keep $keep is not a count of dumps"
  port=$(cluster_port "$version" "$cluster")
  pg_dump=$(client_for pg_dump "$port")
  dir=$backups_root/$version-$cluster
  install -d -m 0700 "$backups_root" "$dir"
  token=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
  pgsql "$port" "$db" -v token="$token" <<'SQL' >/dev/null
INSERT INTO public.cp_backup_sentinel (id, token, written_at) VALUES (1, :'token', now())
ON CONFLICT (id) DO UPDATE SET token = EXCLUDED.token, written_at = EXCLUDED.written_at;
SQL
  stamp=$(date -u +%Y%m%dT%H%M%SZ)
  tmp=$(mktemp "$dir/.dump.XXXXXX")
  if ! runuser -u postgres -- "$pg_dump" -Fc -h /var/run/postgresql -p "$port" -d "$db" >"$tmp"; then
    rm -f "$tmp"
    die "pg_dump of $db in $version/$cluster failed"
  fi
  chmod 0600 "$tmp"
  mv -f "$tmp" "$dir/$db-$stamp.dump"
  printf '%s\n' "$token" >"$dir/$db-$stamp.token"
  chmod 0600 "$dir/$db-$stamp.token"
  # Keep the newest KEEP dumps (names sort by time).
  local all=() i
  mapfile -t all < <(find "$dir" -maxdepth 1 -name "$db-*.dump" -printf '%f\n' | sort)
  for ((i = 0; i < ${#all[@]} - keep; i++)); do
    rm -f "$dir/${all[i]}" "$dir/${all[i]%.dump}.token"
  done
  echo "backup $dir/$db-$stamp.dump"
}

drop_scratch() { # PORT DB
  pgsql "$1" postgres -v db="$2" <<'SQL' >/dev/null
DROP DATABASE IF EXISTS :"db";
SQL
}

restore_check() { # VERSION CLUSTER DATABASE
  local version=$1 cluster=$2 db=$3 port dir latest want got pg_restore scratch
  check_target "$version" "$cluster" "$db"
  port=$(cluster_port "$version" "$cluster")
  dir=$backups_root/$version-$cluster
  latest=$(find "$dir" -maxdepth 1 -name "$db-*.dump" -printf '%f\n' 2>/dev/null | sort | tail -n1)
  [ -n "$latest" ] || die "no dump of $db in $dir; run $program backup $version $cluster $db KEEP"
  want=$(cat "$dir/${latest%.dump}.token" 2>/dev/null || true)
  [[ $want =~ ^[0-9a-f]{32}$ ]] || die "$dir/${latest%.dump}.token is missing; the dump $latest was not written by a backup"
  pg_restore=$(client_for pg_restore "$port")
  scratch=cp_restore_check
  pgsql "$port" postgres -v db="$scratch" <<'SQL' >/dev/null
DROP DATABASE IF EXISTS :"db";
CREATE DATABASE :"db";
SQL
  if ! runuser -u postgres -- "$pg_restore" --exit-on-error --no-owner -h /var/run/postgresql -p "$port" -d "$scratch" <"$dir/$latest"; then
    drop_scratch "$port" "$scratch" || true
    die "pg_restore of $dir/$latest failed: the dump is broken"
  fi
  got=$(pgsql "$port" "$scratch" -c 'SELECT token FROM public.cp_backup_sentinel WHERE id = 1') || got=""
  drop_scratch "$port" "$scratch"
  [ "$got" = "$want" ] || die "the restored $latest holds sentinel ${got:-none}, not the backup's $want"
  echo "restored $want from $latest"
}

case ${1:-job} in
backup)
  [ $# -eq 5 ] || die "usage: $program backup VERSION CLUSTER DATABASE KEEP"
  backup "$2" "$3" "$4" "$5"
  exit 0
  ;;
restore-check)
  [ $# -eq 4 ] || die "usage: $program restore-check VERSION CLUSTER DATABASE"
  restore_check "$2" "$3" "$4"
  exit 0
  ;;
job) ;;
*) die "unknown command $1; use backup or restore-check" ;;
esac

# The job: install the program and its schedule, back up now, check.
version=${CP_PARAM_POSTGRESQL_VERSION:?}
cluster=${CP_PARAM_POSTGRESQL_CLUSTER:?}
database=${CP_PARAM_DATABASE:?}
keep=${CP_PARAM_BACKUP_KEEP:?}
schedule=${CP_PARAM_BACKUP_SCHEDULE:?}
check_target "$version" "$cluster" "$database"
[[ $keep =~ ^[1-9][0-9]{0,3}$ ]] || die "backup_keep $keep is not a count of dumps"
# A cron schedule as the pack's cron type allows it: five fields of
# digits, * , - / or one @word; nothing else can reach the cron line.
[[ $schedule =~ ^(@[a-z]+|[0-9*,/-]+( [0-9*,/-]+){4})$ ]] || die "backup_schedule $schedule is not a cron schedule"

install -D -m 0750 "${BASH_SOURCE[0]}" "$program"
if ! command -v cron >/dev/null 2>&1 && [ ! -x /usr/sbin/cron ]; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y cron
fi
crontab=/etc/cron.d/cp-postgresql-backup-$version-$cluster
tmp=$(mktemp "/etc/cron.d/.cp-postgresql-backup.XXXXXX")
{
  echo "# Written by the postgresql-host pack (configure-postgresql-backups); changes are overwritten."
  echo "SHELL=/bin/sh"
  echo "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
  printf '%s root %s backup %s %s %s %s\n' "$schedule" "$program" "$version" "$cluster" "$database" "$keep"
} >"$tmp"
chmod 0644 "$tmp"
mv -f "$tmp" "$crontab"
"$program" backup "$version" "$cluster" "$database" "$keep"
"$program" restore-check "$version" "$cluster" "$database"
