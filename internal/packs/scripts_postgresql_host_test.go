package packs

import (
	"strings"
	"testing"
)

// pgHostServer is a host for install-postgresql-server: pg_createcluster
// writes the distribution's postgresql.conf (with its include_dir), and
// pg_lsclusters lists what it created.
func pgHostServer(t *testing.T) *scriptHost {
	h := newScriptHost(t)
	h.stub("apt-cache", ``)
	h.stub("chown", ``)
	h.stub("pg_isready", ``)
	h.stub("pg_createcluster", `mkdir -p "$HOME/etc/postgresql/$1/$2/conf.d"
printf "include_dir = 'conf.d'\n" >"$HOME/etc/postgresql/$1/$2/postgresql.conf"`)
	h.stub("pg_lsclusters", `for d in "$HOME"/etc/postgresql/*/*; do
  [ -f "$d/postgresql.conf" ] && echo "$(basename "$(dirname "$d")") $(basename "$d") 5432 online postgres /var/lib/postgresql /var/log/postgresql.log"
done; true`)
	return h
}

var pgHostServerPaths = []string{"/etc/postgresql", "/etc/apt/sources.list.d/pgdg.sources"}

// postgresql_version and postgresql_cluster name the packages, the
// cluster pg_createcluster creates and the unit restarted; port goes to
// pg_createcluster and conf.d; listen_address, when set, replaces the
// host's address in listen_addresses. Every value is quoted in conf.d.
func TestInstallPostgresqlServerVersionAndAddress(t *testing.T) {
	const script = "postgresql-host/scripts/install-postgresql-server.sh"
	h := pgHostServer(t)
	succeeded(t, h.run(script, packEnv(t, "postgresql-host", map[string]string{
		"postgresql_version": "16", "postgresql_cluster": "ledger", "port": "5433", "listen_address": "10.1.2.3"}), pgHostServerPaths...))
	calls := h.log(h.calls)
	for _, want := range []string{"apt-get install -y postgresql-16 postgresql-client-16", "pg_createcluster 16 ledger --port 5433", "systemctl restart postgresql@16-ledger"} {
		if !strings.Contains(calls, want) {
			t.Errorf("no call %q in\n%s", want, calls)
		}
	}
	conf := h.read("/etc/postgresql/16/ledger/conf.d/50-cp-postgresql-host.conf")
	for _, want := range []string{"\nlisten_addresses = '10.1.2.3'\n", "\nport = '5433'\n", "\npassword_encryption = 'scram-sha-256'\n"} {
		if !strings.Contains(conf, want) {
			t.Errorf("conf.d lacks %q:\n%s", want, conf)
		}
	}
	if got := h.read("/etc/postgresql/16/ledger/start.conf"); got != "auto\n" {
		t.Errorf("start.conf %q, want auto", got)
	}

	// Without listen_address: the host's address. The cluster exists, so
	// pg_createcluster is not run again.
	h2 := pgHostServer(t)
	h2.write("/etc/postgresql/15/main/postgresql.conf", "include_dir = 'conf.d'\n")
	succeeded(t, h2.run(script, packEnv(t, "postgresql-host", nil), pgHostServerPaths...))
	if conf := h2.read("/etc/postgresql/15/main/conf.d/50-cp-postgresql-host.conf"); !strings.Contains(conf, "\nlisten_addresses = '10.0.0.11'\n") {
		t.Errorf("default listen_addresses is not the host's address:\n%s", conf)
	}
	if calls := h2.log(h2.calls); strings.Contains(calls, "pg_createcluster") {
		t.Errorf("pg_createcluster ran for an existing cluster:\n%s", calls)
	}
}

// The distribution without the version: a clear error naming both ways
// out, before anything is installed.
func TestInstallPostgresqlServerVersionMissing(t *testing.T) {
	const script = "postgresql-host/scripts/install-postgresql-server.sh"
	h := pgHostServer(t)
	h.stub("apt-cache", `exit 100`)
	refused(t, h, h.run(script, packEnv(t, "postgresql-host", map[string]string{"postgresql_version": "17"}), pgHostServerPaths...),
		`the distribution has no postgresql-17; set postgresql_version to its version (Debian 12: 15, Ubuntu 22.04: 14, Ubuntu 24.04: 16) or apt_repository = "pgdg"`)
	if calls := h.log(h.calls); strings.Contains(calls, "apt-get install") || strings.Contains(calls, "pg_createcluster") {
		t.Errorf("installed after the refusal:\n%s", calls)
	}
}

// PGDG with a postgresql-common that ships no key file: the key is
// downloaded as PostgreSQL's manual instructions say, its fingerprint
// checked, and pgdg.sources written for the host's codename and the
// default pgdg_url.
func TestInstallPostgresqlServerPGDGKeyDownload(t *testing.T) {
	const script = "postgresql-host/scripts/install-postgresql-server.sh"
	h := pgHostServer(t)
	h.write("/etc/os-release", "ID=ubuntu\nVERSION_CODENAME=noble\n")
	h.stub("curl", `while [ $# -gt 0 ]; do
  if [ "$1" = -o ]; then echo '-----BEGIN PGP PUBLIC KEY BLOCK-----' >"$2"; fi
  shift
done`)
	h.stub("gpg", `echo 'pub:-:4096:1:7FCC7D46ACCC4CF8:1366794389:::-:::scESC::::::23::0:'
echo 'fpr:::::::::B97B0AFCAA1A47F044F244A07FCC7D46ACCC4CF8:'`)
	paths := append([]string{"/usr/share/postgresql-common/pgdg/apt.postgresql.org.asc", "/etc/os-release"}, pgHostServerPaths...)
	succeeded(t, h.run(script, packEnv(t, "postgresql-host", map[string]string{"apt_repository": "pgdg"}), paths...))
	calls := h.log(h.calls)
	if !strings.Contains(calls, "curl -fsSL -o "+h.path("/usr/share/postgresql-common/pgdg/apt.postgresql.org.asc")+" https://www.postgresql.org/media/keys/ACCC4CF8.asc") {
		t.Errorf("the PGDG key was not downloaded:\n%s", calls)
	}
	want := "Types: deb\nURIs: https://apt.postgresql.org/pub/repos/apt\nSuites: noble-pgdg\nComponents: main\n" +
		"Signed-By: " + h.path("/usr/share/postgresql-common/pgdg/apt.postgresql.org.asc") + "\n"
	if got := h.read("/etc/apt/sources.list.d/pgdg.sources"); got != want {
		t.Errorf("pgdg.sources:\n%s\nwant:\n%s", got, want)
	}
	if !strings.Contains(calls, "apt-get install -y postgresql-15 postgresql-client-15") {
		t.Errorf("postgresql-15 not installed:\n%s", calls)
	}

	// Another key: refused, no source written.
	h2 := pgHostServer(t)
	h2.write("/etc/os-release", "VERSION_CODENAME=noble\n")
	h2.write("/usr/share/postgresql-common/pgdg/apt.postgresql.org.asc", "-----BEGIN PGP PUBLIC KEY BLOCK-----\n")
	h2.stub("gpg", `echo 'fpr:::::::::0000000000000000000000000000000000000000:'`)
	refused(t, h2, h2.run(script, packEnv(t, "postgresql-host", map[string]string{"apt_repository": "pgdg"}), paths...),
		"has fingerprint 0000000000000000000000000000000000000000, not PGDG's B97B0AFCAA1A47F044F244A07FCC7D46ACCC4CF8")
	if h2.exists("/etc/apt/sources.list.d/pgdg.sources") {
		t.Error("pgdg.sources written for a foreign key")
	}
}
