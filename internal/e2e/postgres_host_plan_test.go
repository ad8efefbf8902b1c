package e2e

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/packs"
	"github.com/intentops/terraform-provider-cp/internal/planner"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

var updatePgGolden = flag.Bool("update-postgres-golden", false, "rewrite testdata/postgres_host_*.golden")

// The compact plans of postgresql-host's install (three hosts, one job
// each per host, chained by node-scoped capabilities) and uninstall (its
// destructive gate before the drop), against goldens; no host is needed.
func TestPostgresHostPlanGolden(t *testing.T) {
	cat, err := packs.LoadBuiltin()
	if err != nil {
		t.Fatal(err)
	}
	hosts := []protocol.Host{
		{Name: "db-1", Address: "10.0.0.11", Role: "node"},
		{Name: "db-2", Address: "10.0.0.12", Role: "node"},
		{Name: "db-3", Address: "10.0.0.13", Role: "node"},
	}
	for _, action := range []string{"install", "uninstall"} {
		t.Run(action, func(t *testing.T) {
			req := scenarioRequest("postgresql-host", "orders-db", "stage", hosts, map[string]string{"database": "orders"}, nil, nil)
			req.Intent.Action, req.PlanID = action, "orders-db."+action
			req.Catalog, req.Now = cat, time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
			c, err := planner.Compose(req)
			if err != nil {
				t.Fatalf("compose %s: %v", action, err)
			}
			if action == "install" {
				// Each host's jobs wait only for that host's: a slow host
				// holds back no other.
				found := false
				for _, in := range c.Plan.Instances {
					if in.JobID == "create-postgresql-database" && in.Host == "db-2" {
						found = true
						if !slices.Equal(in.Needs, []string{"install-postgresql-server[db-2]"}) {
							t.Errorf("create-postgresql-database[db-2] needs %v, want only install-postgresql-server[db-2]", in.Needs)
						}
					}
				}
				if !found {
					t.Error("no instance create-postgresql-database on db-2")
				}
			}
			got := planner.RenderCompact(c.Plan, planner.ViewState{})
			file := filepath.Join("testdata", "postgres_host_"+action+".golden")
			if *updatePgGolden || os.Getenv("CP_UPDATE_GOLDEN") == "1" {
				if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%v (run with -update-postgres-golden to write it)", err)
			}
			if got != string(want) {
				t.Errorf("compact plan of %s:\ngot:\n%s\nwant:\n%s", action, got, want)
			}
		})
	}
}
