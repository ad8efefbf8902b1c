package hostsim

import (
	"testing"
)

func TestPgClusterOfUnit(t *testing.T) {
	for unit, want := range map[string][2]string{
		"postgresql@15-main.service":      {"15", "main"},
		"postgresql@17-app_db.service":    {"17", "app_db"},
		"postgresql@15-a-b.service":       {"15", "a-b"},
		"postgresql.service":              {},
		"postgresql@main.service":         {},
		"postgresql@15-.service":          {},
		"postgresql@15-main.socket":       {},
		"containerd.service":              {},
		"postgresql@15-main.service.x":    {},
		"xpostgresql@15-main.service":     {},
		"postgresql@15-main/../x.service": {},
	} {
		v, c, ok := pgCluster(unit)
		if ok != (want[0] != "") || v != want[0] || c != want[1] {
			t.Errorf("pgCluster(%q) = %q %q %v, want %q %q", unit, v, c, ok, want[0], want[1])
		}
	}
}

func TestPgStartConf(t *testing.T) {
	for conf, want := range map[string]bool{
		"auto\n":                      true,
		"# Automatic startup\nauto\n": true,
		"manual\n":                    false,
		"  disabled # never\n":        false,
		"":                            true,
		"# only a comment\n":          true,
	} {
		if got := pgStartAuto(conf); got != want {
			t.Errorf("pgStartAuto(%q) = %v, want %v", conf, got, want)
		}
	}
}

// Outside a host (no real pg_ctlcluster under the root) a PostgreSQL
// unit is an ordinary emulated unit: its unit file makes it known, and
// restart makes it active without running anything.
func TestPostgresUnitsEmulatedOutsideAHost(t *testing.T) {
	e := newEnv(t)
	if (&sim{root: e.roots["w"]}).pgUnit("postgresql@15-main.service") {
		t.Fatal("a PostgreSQL unit is real outside a host")
	}
	e.fails("w", "Unit postgresql@15-main.service not found.", "systemctl", "restart", "postgresql@15-main")
	e.write("w", "/lib/systemd/system/postgresql@.service", "[Unit]\nDescription=PostgreSQL Cluster %i\n")
	e.must("w", "systemctl", "restart", "postgresql@15-main")
	if r := e.must("w", "systemctl", "is-active", "postgresql@15-main"); r.out != "active\n" {
		t.Fatalf("is-active postgresql@15-main: %q", r.out)
	}
	if r := e.run("w", "systemctl", "is-active", "--quiet", "postgresql@16-main"); r.code != 3 || r.out != "" {
		t.Fatalf("is-active --quiet of a cluster never started: exit %d %q", r.code, r.out)
	}
}
