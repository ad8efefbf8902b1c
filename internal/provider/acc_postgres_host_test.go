package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// PostgreSQL on a host through OpenTofu (issue 17, "PostgreSQL on a host,
// with a real backup and a restore check"): a cp_scenario of the
// postgresql-host pack on a test host whose PostgreSQL 15 is Debian's real
// package. Apply completes; the host has a real pg_dump -Fc backup in its
// root-only directory, which pg_restore here lists; the restore-check
// evidence passed in state; psql from the test reaches the database over
// TCP as the application role; the generated password is in none of the
// state, the CLI output or OpenTofu's debug logs. A value outside a
// parameter's type is refused at plan with the parameter named, and
// changes nothing on the host. Destroy runs the pack's uninstall, approved
// in HCL, and drops the cluster.
func TestAccPostgresHost_backupAndRestoreCheck(t *testing.T) {
	testAccPreCheck(t)
	if _, err := os.Stat("/usr/lib/postgresql/15/bin/postgres"); err != nil {
		t.Fatalf("Debian's postgresql-15 is not installed on the machine (run scripts/prereqs.sh): %v", err)
	}
	c := accHosts(t, "pghost", "db-1")
	h, err := c.Host("db-1")
	must(t, err)
	scenario := func(params string) string {
		return accProvider(c, "") + fmt.Sprintf(`
resource "cp_scenario" "pg" {
  pack           = "postgresql-host"
  name           = "orders-db"
  hosts          = [{ name = %q, address = %q }]
  parameters     = { %s }
  destroy_action = "uninstall"
  approvals      = [{ gate = "confirm-postgresql-uninstall", option = "uninstall" }]
}
`, h.Name, h.Addr, params)
	}
	r := newTofuRun(t, "")
	var outputs strings.Builder

	// Bad input: refused at plan, naming the parameter and its allowed
	// values; nothing runs on the host.
	r.setConfig(scenario(`database = "orders", apt_repository = "ppa"`))
	out, code := r.tofu("plan")
	outputs.WriteString(out)
	if code == 0 || !strings.Contains(out, `parameters["apt_repository"]: "ppa" is not one of distribution, pgdg`) {
		t.Fatalf("got: plan with apt_repository = \"ppa\" exit %d want: refused naming apt_repository and its values\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(h.Upper, "etc/postgresql/15/main/conf.d/50-cp-postgresql-host.conf")); err == nil {
		t.Fatal("got: a refused plan configured the cluster want: nothing on the host")
	}

	r.setConfig(scenario(`database = "orders", username = "orders_app", backup_schedule = "30 2 * * *"`))
	outputs.WriteString(r.mustTofu(0, "apply", "-auto-approve"))

	stateBytes, err := os.ReadFile(filepath.Join(r.dir, "terraform.tfstate"))
	must(t, err)
	var state struct {
		Resources []struct {
			Type      string `json:"type"`
			Instances []struct {
				Attributes struct {
					Operation map[string]any `json:"operation"`
					Evidence  []struct {
						Instance string `json:"instance"`
						ID       string `json:"id"`
						Passed   bool   `json:"passed"`
						Observed string `json:"observed"`
					} `json:"evidence"`
					Artifacts []struct {
						ID          string `json:"id"`
						Sensitivity string `json:"sensitivity"`
						Value       string `json:"value"`
						Ref         string `json:"ref"`
					} `json:"artifacts"`
				} `json:"attributes"`
			} `json:"instances"`
		} `json:"resources"`
	}
	must(t, json.Unmarshal(stateBytes, &state))
	if len(state.Resources) != 1 || len(state.Resources[0].Instances) != 1 {
		t.Fatalf("got: state %s want: one cp_scenario", stateBytes)
	}
	attrs := state.Resources[0].Instances[0].Attributes
	if attrs.Operation["status"] != "Completed" {
		t.Fatalf("got: operation %v want: Completed", attrs.Operation)
	}
	evidence := map[string]string{}
	for _, ev := range attrs.Evidence {
		if !ev.Passed {
			t.Errorf("got: evidence %s of %s failed (%q) want: passed", ev.ID, ev.Instance, ev.Observed)
		}
		evidence[ev.ID] = ev.Observed
	}
	if got := evidence["latest_backup_restores"]; !strings.HasPrefix(got, "restored ") || !strings.Contains(got, " from orders-") {
		t.Fatalf("got: latest_backup_restores %q want: the restore check of the latest orders dump", got)
	}
	for _, id := range []string{"cluster_online", "service_active", "application_role_connects", "backup_scheduled"} {
		if _, ok := evidence[id]; !ok {
			t.Errorf("got: no evidence %s in state want: it", id)
		}
	}
	var connection string
	for _, a := range attrs.Artifacts {
		switch a.ID {
		case "postgresql.host.connection":
			connection = a.Value
		case "postgresql.host.credentials":
			if a.Sensitivity != "secret" || a.Value != "" || a.Ref == "" {
				t.Errorf("got: credentials artifact sensitivity %q value %q ref %q want: a secret kept by reference", a.Sensitivity, a.Value, a.Ref)
			}
		}
	}
	if !strings.Contains(connection, "host="+h.Addr) || !strings.Contains(connection, "dbname=orders") || !strings.Contains(connection, "user=orders_app") {
		t.Errorf("got: connection artifact %q want: the host's address, orders, orders_app", connection)
	}

	// The backup is real: a custom-format dump in a root-only directory,
	// which the machine's pg_restore reads.
	dir := filepath.Join(h.Upper, "var/backups/postgresql/15-main")
	fi, err := os.Stat(dir)
	must(t, err)
	if fi.Mode().Perm() != 0o700 {
		t.Errorf("got: backup directory mode %o want: 700", fi.Mode().Perm())
	}
	dumps, _ := filepath.Glob(filepath.Join(dir, "orders-*.dump"))
	sort.Strings(dumps)
	if len(dumps) == 0 {
		t.Fatalf("got: no dump in %s want: the backup taken at apply", dir)
	}
	list, err := exec.Command("pg_restore", "--list", dumps[len(dumps)-1]).CombinedOutput()
	if err != nil || !strings.Contains(string(list), "TABLE public cp_backup_sentinel") {
		t.Fatalf("got: pg_restore --list %v\n%s want: a custom-format dump with the sentinel", err, list)
	}
	cron, err := os.ReadFile(filepath.Join(h.Upper, "etc/cron.d/cp-postgresql-backup-15-main"))
	must(t, err)
	if !strings.Contains(string(cron), "\n30 2 * * * root /usr/local/sbin/cp-postgresql-backup backup 15 main orders 7\n") {
		t.Errorf("got: cron file\n%s want: the backup at backup_schedule", cron)
	}

	// psql from here, over TCP, as the application role.
	creds, err := os.ReadFile(filepath.Join(h.Upper, "var/lib/cp/postgresql-host/15-main/credentials.env"))
	must(t, err)
	password := strings.TrimSpace(strings.TrimPrefix(string(creds), "PGPASSWORD="))
	if len(password) != 48 {
		t.Fatalf("got: credentials file %q want: a generated password", creds)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	psql := exec.CommandContext(ctx, "psql", "-X", "-At", "-h", h.Addr, "-U", "orders_app", "-d", "orders",
		"-c", "SELECT current_user || ' ' || current_database() || ' ' || (SELECT count(*) FROM pg_tables WHERE tablename = 'cp_backup_sentinel')")
	psql.Env = append(os.Environ(), "PGPASSWORD="+password, "PGCONNECT_TIMEOUT=10")
	got, err := psql.CombinedOutput()
	if err != nil || strings.TrimSpace(string(got)) != "orders_app orders 1" {
		t.Fatalf("got: psql as orders_app: %v %q want: orders_app orders 1", err, got)
	}

	// Destroy runs uninstall, approved in HCL: the cluster is dropped on
	// the host (read through the host's own view of its overlay), its
	// credentials go, its dumps stay.
	outputs.WriteString(r.mustTofu(0, "destroy", "-auto-approve"))
	root, err := c.RootPath("db-1")
	must(t, err)
	for _, p := range []string{"etc/postgresql/15/main", "var/lib/postgresql/15/main"} {
		if _, err := os.Lstat(filepath.Join(root, p)); err == nil {
			t.Errorf("got: /%s on the host after destroy want: dropped by pg_dropcluster", p)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "usr/lib/postgresql/15/bin/postgres")); err != nil {
		t.Errorf("got: %v want: the packages kept", err)
	}
	if _, err := os.Stat(filepath.Join(h.Upper, "var/lib/cp/postgresql-host/15-main")); err == nil {
		t.Error("got: the credentials kept after destroy want: removed")
	}
	if kept, _ := filepath.Glob(filepath.Join(dir, "orders-*.dump")); len(kept) != len(dumps) {
		t.Errorf("got: %d dumps after destroy want: the %d kept", len(kept), len(dumps))
	}

	// The password is nowhere in what OpenTofu keeps or prints.
	secrets := map[string]string{"the database password": password}
	absent(t, "the state file", string(stateBytes), secrets)
	absent(t, "the CLI output", outputs.String(), secrets)
	logs, _ := filepath.Glob(filepath.Join(r.dir, "tofu-*.log"))
	if len(logs) == 0 {
		t.Fatal("got: no OpenTofu debug log want: the apply's")
	}
	for _, l := range logs {
		b, err := os.ReadFile(l)
		must(t, err)
		absent(t, filepath.Base(l), string(b), secrets)
	}
}
