package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/testhosts"
)

// composedHCL is a module of a cluster with Tempo and a PostgreSQL
// scenario on it, both given the cluster's handle.
func composedHCL(masters, workers string) string {
	return smallCluster(masters, workers) + `
resource "cp_tempo" "traces" {
  name           = "tracing"
  environment    = "stage"
  cluster_handle = cp_kubernetes_cluster.small.handle
  parameters     = { namespace = "tracing" }
}

resource "cp_scenario" "db" {
  pack           = "postgresql"
  name           = "orders"
  environment    = "stage"
  cluster_handle = cp_kubernetes_cluster.small.handle
  parameters     = { namespace = "orders" }
}
`
}

// composedProvider is planViewProvider with the S3 policy Tempo resolves
// its storage under (no SSH is made at plan).
func composedProvider(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	key, known := filepath.Join(dir, "id_ed25519"), filepath.Join(dir, "known_hosts")
	must(t, os.WriteFile(key, []byte("not read at plan\n"), 0o600))
	must(t, os.WriteFile(known, nil, 0o600))
	return fmt.Sprintf(`
provider "cp" {
  environment = "prod"
  actor       = "ci"
  actor_roles = ["sre", "platform_admin"]
  ssh = {
    user             = "deploy"
    private_key_file = %q
    known_hosts_file = %q
  }
  %s
}
`, key, known, s3Policy)
}

// changeOf is the change of resource addr in the output of `tofu plan`.
func changeOf(t *testing.T, out, addr string) string {
	t.Helper()
	i := strings.Index(out, "# "+addr+" ")
	if i < 0 {
		t.Fatalf("tofu plan shows no change of %s:\n%s", addr, out)
	}
	rest := out[i:]
	if j := strings.Index(rest[1:], "\n  # "); j >= 0 {
		rest = rest[:j+1]
	}
	return rest
}

// attrOf is the change of addr from attribute name's line on.
func attrOf(t *testing.T, out, addr, name string) string {
	t.Helper()
	c := changeOf(t, out, addr)
	loc := regexp.MustCompile(`\n\s*[+~] ` + name + ` += `).FindStringIndex(c)
	if loc == nil {
		t.Fatalf("no attribute %s in the change of %s:\n%s", name, addr, c)
	}
	return c[loc[1]:]
}

// planOf is the `plan` attribute of resource addr as `tofu plan` prints
// it: its heredoc, or what stands in its place ("(known after apply)").
func planOf(t *testing.T, out, addr string) string {
	t.Helper()
	rest := changeOf(t, out, addr)
	m := regexp.MustCompile(`(?s)\n\s*[+~] plan += (<<-EOT\n.*?\n\s*EOT|\(known after apply\)|"[^"]*")`).FindStringSubmatch(rest)
	if m == nil {
		t.Fatalf("no plan attribute in the change of %s:\n%s", addr, rest)
	}
	return m[1]
}

// The first plan of a module with a cluster, Tempo and a scenario on it
// shows Tempo's and the scenario's DAGs: the cluster's handle is known at
// plan (hosts, endpoint, exports and artifact ids from configuration), so
// they plan and validate in full before the cluster exists.
func TestAccComposed_firstPlanShowsDAGs(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("TF_ACC is not set")
	}
	testAccPreCheck(t)
	r := newTofuRun(t, composedProvider(t)+composedHCL(planHostsHCL("master", 1, 0), planHostsHCL("worker", 2, 1)))
	got := tofuPlan(t, r)
	if h := attrOf(t, got, "cp_kubernetes_cluster.small", "handle"); !strings.HasPrefix(h, "jsonencode(") || !strings.Contains(h, `"kubeconfig.admin"`) {
		t.Errorf("the cluster's handle is not known at plan: %s", h)
	}
	tempo := planOf(t, got, "cp_tempo.traces")
	for _, want := range []string{"Install Tempo", "deploy-tempo", "minio/install-minio", "hosts (3): master-1, worker-1, worker-2"} {
		if !strings.Contains(tempo, want) {
			t.Errorf("Tempo's first plan lacks %q:\n%s", want, tempo)
		}
	}
	db := planOf(t, got, "cp_scenario.db")
	for _, want := range []string{"deploy-postgresql", "verify-postgresql"} {
		if !strings.Contains(db, want) {
			t.Errorf("the scenario's first plan lacks %q:\n%s", want, db)
		}
	}
	// A parameter of a composed resource is checked at the first plan.
	r.write(composedProvider(t) + strings.Replace(composedHCL(planHostsHCL("master", 1, 0), planHostsHCL("worker", 2, 1)),
		`parameters     = { namespace = "orders" }`, `parameters     = { namespace = "Orders!" }`, 1))
	out, code := r.tofu("plan")
	if code == 0 || !regexp.MustCompile(`(?s)parameters\["namespace"\]`).MatchString(out) {
		t.Errorf("a bad parameter of the scenario is not refused on its path at the first plan (exit %d):\n%s", code, out)
	}
}

// hostAddrs replaces the test hosts' addresses and ports in a plan by
// their names, and digests by a placeholder, so a golden holds across
// runs.
func hostAddrs(c *testhosts.Cluster, out string) string {
	for _, h := range c.Hosts() {
		out = strings.ReplaceAll(out, h.Addr, "<addr-"+h.Name+">")
	}
	return regexp.MustCompile(`sha256:[0-9a-f]{12,64}`).ReplaceAllString(out, "sha256:<digest>")
}
