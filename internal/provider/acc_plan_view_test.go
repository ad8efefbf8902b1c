package provider

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// -update rewrites the goldens of `tofu plan -no-color` (testdata/*.golden)
// instead of comparing against them; CP_UPDATE_GOLDEN=1 does the same.
var updateGolden = flag.Bool("update", false, "rewrite the testdata goldens of tofu plan")

// planHostsHCL lists n hosts named prefix-1..n on 10.0.base.1.. (plan
// makes no SSH connection, so no host needs to exist).
func planHostsHCL(prefix string, n, base int) string {
	parts := make([]string, n)
	for i := range n {
		parts[i] = fmt.Sprintf("{ name = %q, address = %q }", fmt.Sprintf("%s-%d", prefix, i+1), fmt.Sprintf("10.%d.%d.%d", base, (i/250)%250, i%250+1))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// planViewProvider is a provider logging in with key files that exist
// (plan checks them; it makes no SSH connection).
func planViewProvider(t *testing.T) string {
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
}
`, key, known)
}

// planViewConfig is planViewProvider and a cluster of the given masters
// and workers.
func planViewConfig(t *testing.T, masters, workers int, extra string) string {
	return planViewProvider(t) + clusterHCL(planHostsHCL("master", masters, 0), planHostsHCL("worker", workers, 1), extra)
}

// write replaces the configuration of r (after the required_providers
// block newTofuRun wrote).
func (r *tofuRun) write(config string) {
	r.t.Helper()
	must(r.t, os.WriteFile(filepath.Join(r.dir, "main.tf"), []byte(`terraform {
  required_providers {
    cp = { source = "intentops/cp" }
  }
}
`+config), 0o644))
}

// tofuPlan runs `tofu plan -no-color` in r and returns its output with
// the machine-specific paths replaced by placeholders.
func tofuPlan(t *testing.T, r *tofuRun) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c := r.cmd(ctx, filepath.Join(t.TempDir(), "tofu.log"), "plan")
	out, err := c.CombinedOutput()
	if err != nil {
		t.Fatalf("tofu plan: %v\n%s", err, out)
	}
	return normalizePlan(string(out), r.dir)
}

var tempPathRE = regexp.MustCompile(`/tmp/[^\s"]*`)

func normalizePlan(out, dir string) string {
	out = strings.ReplaceAll(out, filepath.Dir(dir), "<tmp>")
	return tempPathRE.ReplaceAllString(out, "<tmp-path>")
}

func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *updateGolden || os.Getenv("CP_UPDATE_GOLDEN") == "1" {
		must(t, os.MkdirAll("testdata", 0o755))
		must(t, os.WriteFile(p, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("read golden %s: %v (run with -update to write it)", p, err)
	}
	if string(want) != got {
		t.Errorf("tofu plan differs from %s (run with -update to accept):\n--- got\n%s\n--- want\n%s", p, got, want)
	}
}

func lineCount(s string) int { return strings.Count(s, "\n") }

// The diff of a 3 masters + 7 workers create is the compact plan: each
// job once with its hosts, the digest, and the per-instance map as one
// line; a step with a gate shows it waiting (with a warning naming it,
// its roles and the HCL to paste), then approved by the provider's actor
// with the option given once the approval is in the configuration.
func TestAccPlanView_create3x7(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("TF_ACC is not set")
	}
	testAccPreCheck(t)
	r := newTofuRun(t, planViewConfig(t, 3, 7, ""))
	got := tofuPlan(t, r)
	checkGolden(t, "plan_3_7.golden", got)
	if n := lineCount(got); n > 150 {
		t.Errorf("tofu plan of a 3+7 create is %d lines, want at most 150", n)
	}
	for _, want := range []string{
		"hosts (10): master-1..3, worker-1..7",
		"join-workers (7): worker-1..7",
		"planned_instances        = (sensitive value)",
		`plan_digest              = "sha256:`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("tofu plan lacks %q:\n%s", want, got)
		}
	}
	// The per-instance map is in full, keyed by instance id, in the
	// saved plan's JSON.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	logs := t.TempDir()
	if out, err := r.cmd(ctx, filepath.Join(logs, "plan.log"), "plan", "-out=p.tfplan").CombinedOutput(); err != nil {
		t.Fatalf("tofu plan -out: %v\n%s", err, out)
	}
	js, err := r.cmd(ctx, filepath.Join(logs, "show.log"), "show", "-json", "p.tfplan").Output()
	if err != nil {
		t.Fatalf("tofu show -json: %v", err)
	}
	var shown struct {
		ResourceChanges []struct {
			Change struct {
				After struct {
					PlannedInstances map[string]struct {
						Host  string   `json:"host"`
						Hosts string   `json:"hosts"`
						Count int      `json:"count"`
						Needs []string `json:"needs"`
					} `json:"planned_instances"`
				} `json:"after"`
			} `json:"change"`
		} `json:"resource_changes"`
	}
	must(t, json.Unmarshal(js, &shown))
	if len(shown.ResourceChanges) != 1 {
		t.Fatalf("want one resource change in the plan JSON, got %d", len(shown.ResourceChanges))
	}
	pi := shown.ResourceChanges[0].Change.After.PlannedInstances
	count := 0
	for _, e := range pi {
		count += e.Count
	}
	jw, init := pi["join-workers[*]"], pi["init-control-plane[master-1]"]
	if count != 127 || jw.Hosts != "worker-1..7" || jw.Count != 7 || !slices.Contains(jw.Needs, "install-kubernetes-packages[host]") || init.Host != "master-1" {
		t.Errorf("planned_instances in tofu show -json: %d entries for %d instances, join-workers[*] = %+v, init-control-plane[master-1] = %+v; "+
			"want 127 instances, the join on worker-1..7 with each worker's own packages, the init by its id", len(pi), count, jw, init)
	}
}

// certsHCL is a certificate renewal on two masters: its plan holds the
// approve-certificate-renewal gate before the renewals.
func certsHCL(t *testing.T, extra string) string {
	t.Helper()
	return planViewProvider(t) + `
resource "cp_scenario" "certs" {
  pack   = "kubernetes"
  action = "renew_certificates"
  name   = "prod-k8s"
  hosts  = [{ name = "master-1", address = "10.0.0.1", role = "master" }, { name = "master-2", address = "10.0.0.2", role = "master" }]
  ` + extra + `
}
`
}

// A gate without an approval shows as waiting in the plan, with the HCL to
// paste, and a warning names it and its roles; with the approval in the
// configuration it shows approved by the provider's actor with that
// option, and no warning.
func TestAccPlanView_gateWaitingThenApproved(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("TF_ACC is not set")
	}
	testAccPreCheck(t)
	r := newTofuRun(t, certsHCL(t, ""))
	waiting := tofuPlan(t, r)
	checkGolden(t, "plan_gate_waiting.golden", waiting)
	for _, want := range []string{
		"approve-certificate-renewal (approval): waiting for a decision by an actor with role platform_admin or sre",
		"- gate approve-certificate-renewal: waiting",
		"Warning: Gate approve-certificate-renewal is waiting",
		"decided by an actor with role platform_admin or sre",
		`  approvals = [{ gate = "approve-certificate-renewal", option = "renew" }]`,
	} {
		if !strings.Contains(waiting, want) {
			t.Errorf("the waiting plan lacks %q:\n%s", want, waiting)
		}
	}
	r.write(certsHCL(t, `approvals = [{ gate = "approve-certificate-renewal", option = "renew" }]`))
	approved := tofuPlan(t, r)
	checkGolden(t, "plan_gate_approved.golden", approved)
	for _, want := range []string{
		`approve-certificate-renewal (approval): approved by ci with option "renew"`,
		"- gate approve-certificate-renewal: approved",
	} {
		if !strings.Contains(approved, want) {
			t.Errorf("the approved plan lacks %q:\n%s", want, approved)
		}
	}
	if strings.Contains(approved, "Warning: Gate") || strings.Contains(approved, "to decide, add to the resource") {
		t.Errorf("the approved gate still warns or offers the HCL to paste:\n%s", approved)
	}
	// The same approval by an actor holding none of the gate's roles: the
	// plan shows the gate waiting with the decision refused and why, and a
	// warning on the approval names the gate, its roles and the actor's
	// (apply would stop at the gate).
	r.write(strings.Replace(certsHCL(t, `approvals = [{ gate = "approve-certificate-renewal", option = "renew" }]`),
		`actor_roles = ["sre", "platform_admin"]`, `actor_roles = []`, 1))
	out, code := r.tofu("plan")
	flat := strings.Join(strings.Fields(out), " ")
	if code != 0 || !strings.Contains(flat, `Warning: Gate waits: the approver lacks its role`) ||
		!strings.Contains(flat, `approvals[0]: gate approve-certificate-renewal waits: option "renew" needs an actor holding one of the roles "sre", "platform_admin", but actor "ci" holds none`) ||
		!strings.Contains(flat, `the decision of ci (option "renew") is refused: actor ci holds no role, not one of the gate's roles`) {
		t.Errorf("an approval by an actor without the gate's roles does not show the gate waiting with a warning on approvals[0] (exit %d):\n%s", code, out)
	}
}

// hostEntryRE matches the lines of one `{ name, address }` element of the
// masters and workers lists as `tofu plan` echoes them.
var hostEntryRE = regexp.MustCompile(`(?m)^ *\+ \{\n *\+ address = "[^"]*"\n *\+ name +\= "[^"]*"\n *\},\n`)

// A 1,000-node create: what the provider adds to the echo of the
// configuration's 1,000 hosts (4 lines each, which OpenTofu prints as
// given) is at most 200 lines of `tofu plan`.
func TestAccPlanView_create1000(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("TF_ACC is not set")
	}
	testAccPreCheck(t)
	got := tofuPlan(t, newTofuRun(t, planViewConfig(t, 3, 997, `pod_cidr = "10.244.0.0/14"`)))
	rest := hostEntryRE.ReplaceAllString(got, "")
	if hosts := len(hostEntryRE.FindAllString(got, -1)); hosts != 1000 {
		t.Fatalf("found %d host entries in the plan, want 1000:\n%s", hosts, got)
	}
	t.Logf("tofu plan of a 1,000-node create: %d lines, %d without the hosts' echo", lineCount(got), lineCount(rest))
	// What the provider adds, besides the hosts' echo, is a golden too.
	checkGolden(t, "plan_1000.golden", rest)
	if n := lineCount(rest); n > 200 {
		t.Errorf("tofu plan of a 1,000-node create is %d lines besides the hosts, want at most 200:\n%s", n, rest)
	}
	if !strings.Contains(got, "hosts (1000): master-1..3, worker-1..997") || !strings.Contains(got, "join-workers (997): worker-1..997") {
		t.Errorf("the hosts are not shown as ranges:\n%s", got)
	}
}
