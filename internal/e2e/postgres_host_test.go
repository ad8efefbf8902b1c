package e2e

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/engine"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// pgHostPlan composes postgresql-host's install on one test host.
func (e *env) pgHostPlan(name, host string, params map[string]string) *protocol.Plan {
	e.t.Helper()
	hosts := []protocol.Host{{Name: host, Address: e.addr(host), Port: e.hosts[host].Port, Role: "node"}}
	req := scenarioRequest("postgresql-host", name, "stage", hosts, params, nil, nil)
	return e.compose(req).Plan
}

// evidenceOf returns one evidence result of an instance.
func evidenceOf(t *testing.T, in engine.InstanceResult, id string) protocol.EvidenceResult {
	t.Helper()
	for _, ev := range in.Evidence {
		if ev.ID == id {
			return ev
		}
	}
	t.Fatalf("%s has no evidence %s", in.ID, id)
	return protocol.EvidenceResult{}
}

// requirePostgres fails the test unless the machine has Debian's
// PostgreSQL 15, whose files every test host sees.
func requirePostgres(t *testing.T) {
	t.Helper()
	for _, f := range []string{"/usr/bin/pg_ctlcluster", "/usr/lib/postgresql/15/bin/postgres", "/usr/lib/postgresql/15/bin/pg_dump", "/usr/bin/psql"} {
		if _, err := os.Stat(f); err != nil {
			msg := "Debian's postgresql-15 and postgresql-client-15 are not installed on the machine (" + f + "); install them (apt-get install postgresql postgresql-client)"
			if os.Getenv("CI") == "true" {
				t.Fatal(msg)
			}
			t.Skip(msg)
		}
	}
}

// TestPostgresHostBackupRestoreCheck installs PostgreSQL 15 from Debian's
// real packages on a test host through the postgresql-host pack: the
// cluster runs for real (started by the simulated systemctl through
// pg_ctlcluster), the application role reaches its database over TCP
// with its generated password, and the backups' evidence is a real
// pg_restore of the latest dump. The restore check then fails on a
// truncated dump and on a missing one, a new apply repairs it, and a
// pg_dump older than the server is refused.
func TestPostgresHostBackupRestoreCheck(t *testing.T) {
	requirePostgres(t)
	const name = "pg-host"
	e := startHosts(t, name, "db-1")
	plan := e.pgHostPlan(name, "db-1", map[string]string{"database": "shop", "username": "shop_owner", "backup_keep": "2"})
	res := e.runCompleted(plan, engine.RunInput{})

	srv := instance(t, res, "install-postgresql-server[db-1]")
	for _, id := range []string{"cluster_online", "service_active", "listens_as_configured"} {
		if ev := evidenceOf(t, srv, id); !ev.Passed {
			t.Errorf("install-postgresql-server evidence %s: observed %q", id, ev.Observed)
		}
	}
	bk := instance(t, res, "configure-postgresql-backups[db-1]")
	if ev := evidenceOf(t, bk, "latest_backup_restores"); !ev.Passed || !strings.HasPrefix(ev.Observed, "restored ") {
		t.Fatalf("latest_backup_restores: passed %v observed %q", ev.Passed, ev.Observed)
	}

	// The server is the real postmaster, and is-active follows it.
	if got := strings.TrimSpace(e.sudo(t, "db-1", "pg_lsclusters -h")); !strings.HasPrefix(got, "15 main 5432 online postgres") {
		t.Fatalf("pg_lsclusters: %q", got)
	}
	if got := strings.TrimSpace(e.sudo(t, "db-1", "runuser -u postgres -- psql -X -At -c 'SELECT version()'")); !strings.HasPrefix(got, "PostgreSQL 15.") {
		t.Fatalf("psql on the host: %q", got)
	}

	// systemctl is-active follows the postmaster: stopped behind the
	// unit's back it is failed, and a restart starts it again.
	unit := "postgresql@15-main"
	e.sudo(t, "db-1", "pg_ctlcluster --skip-systemctl-redirect 15 main stop")
	if got := strings.TrimSpace(e.sudo(t, "db-1", "systemctl is-active "+unit+" || true")); got != "failed" {
		t.Fatalf("systemctl is-active %s after the postmaster stopped: %q, want failed", unit, got)
	}
	e.sudo(t, "db-1", "systemctl restart "+unit)
	if got := strings.TrimSpace(e.sudo(t, "db-1", "systemctl is-active "+unit+" && pg_lsclusters -h | cut -d' ' -f4")); got != "active\nonline" {
		t.Fatalf("after systemctl restart %s: %q, want active and online", unit, got)
	}

	// The application connects from here, over TCP, with its password.
	password := pgHostPassword(t, e, "db-1")
	if got := psqlFrom(t, e.addr("db-1"), "shop_owner", "shop", password, "SELECT current_user || ' ' || current_database()"); got != "shop_owner shop" {
		t.Fatalf("psql from the test as shop_owner: %q", got)
	}
	if out, err := psqlFromErr(e.addr("db-1"), "shop_owner", "shop", "wrong"+password, "SELECT 1"); err == nil {
		t.Fatalf("a wrong password connected: %s", out)
	}

	// The backup is real and root-only.
	dir := "/var/backups/postgresql/15-main"
	if got := strings.TrimSpace(e.sudo(t, "db-1", "stat -c '%a %U' "+dir+" && find "+dir+" -name 'shop-*.dump' -perm 0600 | wc -l")); got != "700 root\n1" {
		t.Fatalf("backup directory: %q, want 700 root and one 0600 dump", got)
	}
	if got := e.sudo(t, "db-1", "pg_restore --list $(ls "+dir+"/shop-*.dump | tail -n1)"); !strings.Contains(got, "TABLE public cp_backup_sentinel") {
		t.Fatalf("pg_restore --list of the dump:\n%s", got)
	}
	if cron := e.sudo(t, "db-1", "cat /etc/cron.d/cp-postgresql-backup-15-main"); !strings.Contains(cron, "\n0 3 * * * root /usr/local/sbin/cp-postgresql-backup backup 15 main shop 2\n") {
		t.Fatalf("cron file:\n%s", cron)
	}

	check := "/usr/local/sbin/cp-postgresql-backup restore-check 15 main shop"
	t.Run("truncated dump", func(t *testing.T) {
		e.sudo(t, "db-1", "f=$(ls "+dir+"/shop-*.dump | tail -n1); head -c 200 \"$f\" >/tmp/x && cat /tmp/x >\"$f\"")
		if code, out := e.exitOf(t, "db-1", check); code == 0 || !strings.Contains(out, "the dump is broken") {
			t.Fatalf("restore check of a truncated dump: exit %d\n%s", code, out)
		}
	})
	t.Run("missing dump", func(t *testing.T) {
		e.sudo(t, "db-1", "rm -f "+dir+"/shop-*.dump")
		if code, out := e.exitOf(t, "db-1", check); code == 0 || !strings.Contains(out, "no dump of shop in "+dir) {
			t.Fatalf("restore check without a dump: exit %d\n%s", code, out)
		}
	})
	t.Run("apply again repairs", func(t *testing.T) {
		res := e.run(plan, engine.RunInput{OperationID: name + ".repair"})
		requireCompleted(t, res)
		if in := instance(t, res, "configure-postgresql-backups[db-1]"); in.Status != engine.StatusDone {
			t.Fatalf("configure-postgresql-backups after the dump was lost: %s, want it run again (its evidence failed)", in.Status)
		}
		if in := instance(t, res, "create-postgresql-database[db-1]"); in.Status != engine.StatusSatisfied {
			t.Errorf("create-postgresql-database: %s, want satisfied", in.Status)
		}
		if got := pgHostPassword(t, e, "db-1"); got != password {
			t.Errorf("the password changed on a second apply")
		}
		if code, out := e.exitOf(t, "db-1", check); code != 0 || !strings.HasPrefix(out, "restored ") {
			t.Fatalf("restore check after the repair: exit %d\n%s", code, out)
		}
	})
	t.Run("keeps backup_keep dumps", func(t *testing.T) {
		for i := 0; i < 3; i++ {
			e.sudo(t, "db-1", "sleep 1; /usr/local/sbin/cp-postgresql-backup backup 15 main shop 2")
		}
		if got := strings.TrimSpace(e.sudo(t, "db-1", "ls "+dir+" | grep -c '\\.dump$'")); got != "2" {
			t.Fatalf("dumps kept with backup_keep 2: %s", got)
		}
	})
	t.Run("stale dump", func(t *testing.T) {
		// The newest dump replaced by an older one: it restores, but
		// without the token the newest backup wrote.
		e.sudo(t, "db-1", "set -- $(ls "+dir+"/shop-*.dump | sort); cp \"$1\" \"$2\"")
		if code, out := e.exitOf(t, "db-1", check); code == 0 || !strings.Contains(out, "not the backup's") {
			t.Fatalf("restore check of a stale dump: exit %d\n%s", code, out)
		}
		e.sudo(t, "db-1", "/usr/local/sbin/cp-postgresql-backup backup 15 main shop 2")
	})
	t.Run("pg_dump older than the server", func(t *testing.T) {
		// An older client, as when postgresql-client is behind the
		// server: pg_dump reports PostgreSQL 14.
		bin := "/usr/lib/postgresql/15/bin/pg_dump"
		e.sudo(t, "db-1", "mv "+bin+" "+bin+".real && printf '#!/bin/sh\\necho \"pg_dump (PostgreSQL) 14.13\"\\n' >"+bin+" && chmod 0755 "+bin)
		defer e.sudo(t, "db-1", "mv "+bin+".real "+bin)
		before := e.sudo(t, "db-1", "ls "+dir)
		code, out := e.exitOf(t, "db-1", "/usr/local/sbin/cp-postgresql-backup backup 15 main shop 2")
		if code == 0 || !strings.Contains(out, "is PostgreSQL 14, older than the server's 15; install postgresql-client-15") {
			t.Fatalf("backup with pg_dump 14 against server 15: exit %d\n%s", code, out)
		}
		if after := e.sudo(t, "db-1", "ls "+dir); after != before {
			t.Errorf("a refused backup changed the backups:\n%s\nthen\n%s", before, after)
		}
	})
	t.Run("client_cidrs", func(t *testing.T) {
		// The server's own reading of pg_hba.conf: the host itself and
		// exactly the networks given, for the role and its database.
		rules := e.pgHostPlan(name, "db-1", map[string]string{"database": "shop", "username": "shop_owner", "backup_keep": "2",
			"client_cidrs": "10.20.0.0/16,fd00:1::/64"})
		res := e.runCompleted(rules, engine.RunInput{OperationID: name + ".cidrs"})
		if in := instance(t, res, "create-postgresql-database[db-1]"); in.Status != engine.StatusDone {
			t.Fatalf("create-postgresql-database with new client_cidrs: %s, want run again", in.Status)
		}
		got := e.sudo(t, "db-1", "runuser -u postgres -- psql -X -At -F ' ' -c \"SELECT type, array_to_string(database, ','), array_to_string(user_name, ','), coalesce(address, ''), coalesce(netmask, ''), auth_method FROM pg_hba_file_rules ORDER BY line_number\"")
		want := "local all postgres   peer\nlocal all all   peer\n" +
			"host shop shop_owner samehost  scram-sha-256\n" +
			"host shop shop_owner 10.20.0.0 255.255.0.0 scram-sha-256\n" +
			"host shop shop_owner fd00:1:: ffff:ffff:ffff:ffff:: scram-sha-256\n"
		if got != want {
			t.Fatalf("pg_hba_file_rules:\n%s\nwant:\n%s", got, want)
		}
	})
	t.Run("password nowhere but the root-only file", func(t *testing.T) {
		for _, in := range res.Instances {
			for _, l := range in.LogTail {
				if strings.Contains(l, password) {
					t.Errorf("%s log holds the password: %s", in.ID, l)
				}
			}
			for _, ev := range in.Evidence {
				if strings.Contains(ev.Observed, password) {
					t.Errorf("%s evidence %s holds the password", in.ID, ev.ID)
				}
			}
		}
		if out := e.sudo(t, "db-1", "grep -rl "+password+" /var/log /tmp /var/backups /etc/postgresql /etc/cron.d /usr/local/sbin 2>/dev/null || true"); strings.TrimSpace(out) != "" {
			t.Errorf("the password is in files on the host:\n%s", out)
		}
	})
}

// exitOf runs a command as root on a host and returns its exit code and
// combined output.
func (e *env) exitOf(t *testing.T, host, cmd string) (int, string) {
	t.Helper()
	out := e.sudo(t, host, "{ "+cmd+"; } 2>&1; echo \"exit=$?\"")
	i := strings.LastIndex(out, "exit=")
	if i < 0 {
		t.Fatalf("%s: %s: no exit status in\n%s", host, cmd, out)
	}
	code, err := strconv.Atoi(strings.TrimSpace(out[i+len("exit="):]))
	if err != nil {
		t.Fatalf("%s: %s: exit status %q", host, cmd, out[i:])
	}
	return code, out[:i]
}

// pgHostPassword reads the generated password from the host's root-only
// credentials file.
func pgHostPassword(t *testing.T, e *env, host string) string {
	t.Helper()
	out := e.sudo(t, host, "sed -n 's/^PGPASSWORD=//p' /var/lib/cp/postgresql-host/15-main/credentials.env")
	pw := strings.TrimSpace(out)
	if len(pw) != 48 {
		t.Fatalf("credentials.env holds no generated password: %q", out)
	}
	return pw
}

// psqlFrom runs a query with the machine's psql against a host over TCP,
// the password in the environment.
func psqlFrom(t *testing.T, addr, user, db, password, query string) string {
	t.Helper()
	out, err := psqlFromErr(addr, user, db, password, query)
	if err != nil {
		t.Fatalf("psql -h %s -U %s -d %s: %v\n%s", addr, user, db, err, out)
	}
	return strings.TrimSpace(out)
}

func psqlFromErr(addr, user, db, password, query string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "psql", "-X", "-At", "-h", addr, "-p", "5432", "-U", user, "-d", db, "-c", query)
	cmd.Env = append(os.Environ(), "PGPASSWORD="+password, "PGCONNECT_TIMEOUT=10")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestPostgresHostPGDGRepository installs from PostgreSQL's own apt
// repository: the job writes pgdg.sources in deb822 form, signed by the
// PGDG key Debian's postgresql-common ships (its fingerprint read by the
// host's real gpg), for the host's codename and the pgdg_url given (a
// mirror); apt-get update reads it. The download cannot happen here, so
// the packages are the machine's; what is checked is the repository
// configuration. A keyring with another key is refused before any source
// is written.
func TestPostgresHostPGDGRepository(t *testing.T) {
	requirePostgres(t)
	const name = "pg-pgdg"
	e := startHosts(t, name, "db-1", "db-2")
	const mirror = "https://pgdg.mirror.example.internal/pub/repos/apt"
	res := e.runCompleted(e.pgHostPlan(name, "db-1", map[string]string{"apt_repository": "pgdg", "pgdg_url": mirror}), engine.RunInput{})
	codename := strings.TrimSpace(e.sudo(t, "db-1", ". /etc/os-release && echo $VERSION_CODENAME"))
	want := "Types: deb\nURIs: " + mirror + "\nSuites: " + codename + "-pgdg\nComponents: main\n" +
		"Signed-By: /usr/share/postgresql-common/pgdg/apt.postgresql.org.asc\n"
	if got := e.sudo(t, "db-1", "cat /etc/apt/sources.list.d/pgdg.sources"); got != want {
		t.Fatalf("pgdg.sources:\n%s\nwant:\n%s", got, want)
	}
	if got := strings.TrimSpace(e.sudo(t, "db-1", "stat -c '%a %U' /etc/apt/sources.list.d/pgdg.sources")); got != "644 root" {
		t.Errorf("pgdg.sources mode: %s", got)
	}
	srv := instance(t, res, "install-postgresql-server[db-1]")
	if !strings.Contains(strings.Join(srv.LogTail, "\n"), " "+mirror+" InRelease") {
		t.Errorf("apt-get update did not read the PGDG source:\n%s", strings.Join(srv.LogTail, "\n"))
	}

	// The distribution again: the PGDG source goes.
	e.runCompleted(e.pgHostPlan(name+"-dist", "db-1", map[string]string{"apt_repository": "distribution"}), engine.RunInput{OperationID: name + ".dist"})
	if code, out := e.exitOf(t, "db-1", "test -e /etc/apt/sources.list.d/pgdg.sources"); code == 0 {
		t.Errorf("pgdg.sources kept with apt_repository = distribution: %s", out)
	}

	// A cluster of its own, created by the real pg_createcluster beside
	// the package's 15/main, on its own port.
	e.runCompleted(e.pgHostPlan(name+"-ledger", "db-2", map[string]string{"postgresql_cluster": "ledger", "port": "5433", "database": "ledger"}),
		engine.RunInput{OperationID: name + ".ledger"})
	if got := e.sudo(t, "db-2", "pg_lsclusters -h | cut -d' ' -f1-4"); !strings.Contains(got, "15 ledger 5433 online\n") {
		t.Fatalf("pg_lsclusters after postgresql_cluster = ledger, port = 5433:\n%s", got)
	}
	if got := strings.TrimSpace(e.sudo(t, "db-2", "systemctl is-active postgresql@15-ledger; ls /var/backups/postgresql")); got != "active\n15-ledger" {
		t.Fatalf("unit and backups of 15/ledger: %q", got)
	}

	// The umbrella unit restarts every cluster whose start.conf says auto
	// (not the package's 15/main once it says manual); disable --now
	// stops a cluster's postmaster.
	pidOf := func() string { return strings.TrimSpace(e.sudo(t, "db-2", "head -n1 /run/postgresql/15-ledger.pid")) }
	before := pidOf()
	e.sudo(t, "db-2", "echo manual >/etc/postgresql/15/main/start.conf && systemctl restart postgresql")
	if after := pidOf(); after == before {
		t.Errorf("systemctl restart postgresql left 15/ledger's postmaster %s running", before)
	}
	if got := e.sudo(t, "db-2", "systemctl is-active postgresql; pg_lsclusters -h | awk '{print $1, $2, $3, $4}'"); got != "active\n15 ledger 5433 online\n15 main 5432 down\n" {
		t.Errorf("after systemctl restart postgresql:\n%s", got)
	}
	e.sudo(t, "db-2", "systemctl disable --now postgresql@15-ledger")
	if got := e.sudo(t, "db-2", "systemctl is-active postgresql@15-ledger; pg_lsclusters -h | awk '{print $1, $2, $3, $4}'"); got != "inactive\n15 ledger 5433 down\n15 main 5432 down\n" {
		t.Errorf("after systemctl disable --now postgresql@15-ledger:\n%s", got)
	}

	// Another key in PGDG's keyring file is refused, and nothing is written.
	e.sudo(t, "db-2", "cp /usr/share/keyrings/debian-archive-keyring.gpg /usr/share/postgresql-common/pgdg/apt.postgresql.org.asc")
	bad := e.run(e.pgHostPlan(name+"-bad", "db-2", map[string]string{"apt_repository": "pgdg"}), engine.RunInput{OperationID: name + ".bad"})
	in := instance(t, bad, "install-postgresql-server[db-2]")
	if in.Status != engine.StatusFailed || !strings.Contains(strings.Join(in.LogTail, "\n"), "not PGDG's B97B0AFCAA1A47F044F244A07FCC7D46ACCC4CF8; reinstall postgresql-common") {
		t.Fatalf("a foreign key in the PGDG keyring: %s\n%s", in.Status, strings.Join(in.LogTail, "\n"))
	}
	if code, _ := e.exitOf(t, "db-2", "test -e /etc/apt/sources.list.d/pgdg.sources"); code == 0 {
		t.Error("pgdg.sources written with a foreign key")
	}
}

// TestPostgresHostUninstall: uninstall waits at confirm-postgresql-uninstall;
// "cancel operation" ends it Cancelled with the cluster still online;
// "uninstall" drops the real cluster (pg_dropcluster), its schedule and
// credentials, and keeps its dumps.
func TestPostgresHostUninstall(t *testing.T) {
	requirePostgres(t)
	const name = "pg-uninstall"
	e := startHosts(t, name, "db-1")
	e.runCompleted(e.pgHostPlan(name, "db-1", nil), engine.RunInput{})
	hosts := []protocol.Host{{Name: "db-1", Address: e.addr("db-1"), Port: e.hosts["db-1"].Port, Role: "node"}}
	req := scenarioRequest("postgresql-host", name, "stage", hosts, nil, nil, nil)
	req.Intent.Action, req.PlanID = "uninstall", name+".uninstall"
	plan := e.compose(req).Plan
	online := func() string {
		return strings.TrimSpace(e.sudo(t, "db-1", "pg_lsclusters -h | awk '$1 == 15 && $2 == \"main\" { print $4 }'"))
	}
	decide := func(option string) []protocol.Decision {
		return []protocol.Decision{{Gate: "confirm-postgresql-uninstall", Option: option, Actor: "e2e", Roles: []string{"sre"}}}
	}

	res := e.run(plan, engine.RunInput{OperationID: name + ".wait"})
	if res.Operation.Status != protocol.StatusWaitingForApproval || online() != "online" {
		t.Fatalf("uninstall without a decision: %s, cluster %s; want waiting with the cluster online\n%s", res.Operation.Status, online(), describe(res))
	}
	res = e.run(plan, engine.RunInput{OperationID: name + ".cancel", Decisions: decide("cancel operation")})
	if res.Operation.Status != protocol.StatusCancelled || online() != "online" {
		t.Fatalf("uninstall cancelled: %s, cluster %s; want Cancelled with the cluster online", res.Operation.Status, online())
	}
	res = e.runCompleted(plan, engine.RunInput{OperationID: name + ".proceed", Decisions: decide("uninstall")})
	if got := online(); got != "" {
		t.Fatalf("after uninstall pg_lsclusters lists 15/main as %q", got)
	}
	if code, out := e.exitOf(t, "db-1", "test -e /var/lib/postgresql/15/main || test -e /etc/postgresql/15/main || test -e /etc/cron.d/cp-postgresql-backup-15-main || test -e /var/lib/cp/postgresql-host/15-main"); code == 0 {
		t.Errorf("data directory, schedule or credentials left after uninstall: %s", out)
	}
	if got := strings.TrimSpace(e.sudo(t, "db-1", "ls /var/backups/postgresql/15-main | grep -c '\\.dump$'")); got != "1" {
		t.Errorf("dumps after uninstall: %s, want the one kept", got)
	}
	if got := strings.TrimSpace(e.sudo(t, "db-1", "systemctl is-active postgresql@15-main || true")); got == "active" {
		t.Errorf("postgresql@15-main still active after uninstall")
	}
}
