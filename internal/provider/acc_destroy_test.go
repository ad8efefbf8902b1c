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

// demoJob is a job of the demo pack: its script runs cmd as root and its
// evidence holds while check prints ok.
func demoJob(id, provides, check, cmd string) (string, string) {
	return fmt.Sprintf(`job:
  id: %[1]s
  title: %[1]s
  scope:
    expand: once
  outputs:
    provides:
      capabilities:
        - {key: %[2]s, scope: cluster}
    evidence:
      - id: done
        command: %[3]s
        expected: ok
  controls:
    idempotency: {key: "%[1]s:{cluster}"}
    timeout: 1m
    become: true
  script: scripts/%[1]s.sh
`, id, provides, check), "#!/usr/bin/env bash\nset -euo pipefail\n" + cmd + "\n"
}

// demoPack installs /var/lib/demo/installed; its uninstall archives it
// (a job before the gate) and then, past the destructive gate, removes it.
func demoPack() map[string]string {
	files := map[string]string{
		"pack.yaml": `scenario_pack:
  id: demo
  version: 1.0.0
  title: Demo
  resource_types: [demo.instance]
  actions: [install, uninstall]
  plan_templates:
    - id: demo.install
      action: install
      entrypoint: install-demo
      file: templates/install.yaml
      kind: create
    - id: demo.uninstall
      action: uninstall
      entrypoint: archive-demo
      file: templates/uninstall.yaml
      kind: destroy
`,
		"templates/install.yaml": `plan_template:
  id: demo.install
  action: install
  title: Install demo
  stages:
    - id: install
      title: Install
      jobs: [install-demo]
`,
		"templates/uninstall.yaml": `plan_template:
  id: demo.uninstall
  action: uninstall
  title: Uninstall demo
  stages:
    - id: archive
      title: Archive
      jobs: [archive-demo]
    - id: remove
      title: Remove
      jobs: [remove-demo]
  gates:
    - id: confirm-demo-uninstall
      type: destructive
      reason: The demo's data is removed.
      options: [{id: uninstall, effect: proceed}, {id: cancel operation, effect: cancel}]
      required_roles: [sre]
      before: [remove-demo]
`,
	}
	for _, j := range [][4]string{
		{"install-demo", "demo.installed", "test -f /var/lib/demo/installed && echo ok", "install -d /var/lib/demo && touch /var/lib/demo/installed"},
		{"archive-demo", "demo.archived", "test -f /var/lib/demo/archived && echo ok", "install -d /var/lib/demo && touch /var/lib/demo/archived"},
		{"remove-demo", "demo.removed", "test ! -e /var/lib/demo/installed && echo ok", "rm -f /var/lib/demo/installed"},
	} {
		y, sh := demoJob(j[0], j[1], j[2], j[3])
		files["jobs/"+j[0]+".yaml"], files["scripts/"+j[0]+".sh"] = y, sh
	}
	return files
}

// destroyHCLConfig is a cluster and a demo scenario on one of its hosts,
// applied without any approval of their destroy gates.
func destroyHCLConfig(c *testhosts.Cluster) string {
	m1, _ := c.Host("master-1")
	return `
resource "cp_kubernetes_cluster" "small" {
  name    = "small"
  storage = "none"
  masters = ` + nodesHCL(c, "master-1") + `
  workers = ` + nodesHCL(c, "worker-1") + `
}

resource "cp_scenario" "demo" {
  pack           = "demo"
  name           = "demo"
  destroy_action = "uninstall"
  hosts          = [{ name = "master-1", address = "` + m1.Addr + `", role = "master" }]
}
`
}

// destroyedAndDiagnostics is what `tofu plan -destroy` says beyond the
// removal of each attribute of the state (recorded values: timestamps,
// fingerprints): the resources destroyed, the summary line and the
// diagnostics.
// stableValues masks what differs from run to run in a full plan: times,
// durations, digests and fingerprints, operation and record ids, the
// provider's development-override banner.
func stableValues(out string) string {
	for _, r := range []struct{ re, with string }{
		// The nodes' table: ages and the machine's kernel vary.
		{`(?s)(id +?= "cluster_health_report"\n.*?value +?= )<<-EOT\n.*?EOT`, "${1}<health report>"},
		{`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)`, "<time>"},
		{`\.[0-9a-f]{8}"`, `.<id>"`},
		// The machine's size in each node's facts.
		{`\b(cpus|memory_mb|disk_free_gb)=\d+`, "${1}=<n>"},
		// WireGuard public keys, drawn on each node.
		{`"[A-Za-z0-9+/]{43}="`, `"<key>"`},
		{`\b[0-9a-f]{12,64}\b`, "<hex>"},
		{`"\d+(\.\d+)?(ms|s|m)"`, `"<duration>"`},
	} {
		out = regexp.MustCompile(r.re).ReplaceAllString(out, r.with)
	}
	if i := strings.Index(out, "OpenTofu used the selected providers"); i >= 0 {
		out = out[i:]
	}
	return out
}

func destroyedAndDiagnostics(out string) string {
	var b strings.Builder
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "Plan: ") {
			b.WriteString(strings.Join(lines[i:], "\n"))
			break
		}
		if strings.HasPrefix(strings.TrimSpace(l), "# ") {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// demoFile reports whether /var/lib/demo/<name> is on master-1 (a file
// deleted there leaves a whiteout, not a regular file, in the upper
// directory).
func demoFile(t *testing.T, c *testhosts.Cluster, name string) bool {
	t.Helper()
	h, err := c.Host("master-1")
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(h.Upper, "var/lib/demo", name))
	return err == nil && fi.Mode().IsRegular()
}

// Destroy is planned and decided without a prior apply: `tofu plan
// -destroy` warns with each destroy's DAG and gates (waiting, with the
// provider entry to paste); a destroy whose gate is not decided, or is
// decided to cancel, runs nothing, not even the job before the gate (the
// demo stays installed, unarchived and in state, and the next plan
// re-creates nothing); destroy_approvals with an unknown option or from an
// actor without the gate's role are refused; with the entries in the
// provider block only, the plan shows the gates approved and the destroy
// runs.
func TestAccDestroy_plannedAndApprovedInProvider(t *testing.T) {
	testAccPreCheck(t)
	c := accHosts(t, "small", "master-1", "worker-1")
	packDir := writePack(t, demoPack())
	config := destroyHCLConfig(c)
	withProvider := func(roles, approvals string) string {
		p := accProvider(c, fmt.Sprintf("pack_dirs = [%q]\n  destroy_approvals = %s\n", packDir, approvals))
		return strings.Replace(p, `actor_roles = ["sre", "platform_admin"]`, "actor_roles = "+roles, 1) + config
	}
	r := newTofuRun(t, withProvider(`["sre", "platform_admin"]`, "[]"))
	r.mustTofu(0, "apply", "-auto-approve")
	untouched := func(what string) {
		t.Helper()
		if !demoFile(t, c, "installed") || demoFile(t, c, "archived") {
			t.Fatalf("%s: a job of the destroy ran (installed %v, archived %v)", what, demoFile(t, c, "installed"), demoFile(t, c, "archived"))
		}
		if st := r.mustTofu(0, "state", "list"); !strings.Contains(st, "cp_scenario.demo") || !strings.Contains(st, "cp_kubernetes_cluster.small") {
			t.Fatalf("%s: the state lost a resource:\n%s", what, st)
		}
	}
	untouched("after apply")

	// The destroy's plan, with no decision anywhere.
	waiting := sortWarnings(hostAddrs(c, normalizePlan(r.mustTofu(0, "plan", "-destroy"), r.dir)))
	checkGolden(t, "plan_destroy.golden", destroyedAndDiagnostics(waiting))
	checkGolden(t, "plan_destroy_full.golden", stableValues(waiting))
	for _, want := range []string{
		"Warning: Destroy of cp_scenario demo runs uninstall",
		"Warning: Destroy of cp_kubernetes_cluster small runs delete",
		"- archive-demo",
		"- reset-node (2): master-1, worker-1",
		"confirm-cluster-deletion (destructive): waiting for a decision by an actor with role platform_admin",
		`to decide, add to the provider block: destroy_approvals = [{ resource = "cp_scenario", name = "demo", gate = "confirm-demo-uninstall", option = "uninstall" }]`,
	} {
		if !strings.Contains(waiting, want) {
			t.Errorf("tofu plan -destroy lacks %q:\n%s", want, waiting)
		}
	}

	// Undecided: nothing runs, nothing is forgotten, nothing re-created.
	out := r.mustTofu(1, "destroy", "-auto-approve")
	if !regexp.MustCompile(`(?s)Destroy of cp_scenario demo waits at 1 gate\(s\).*confirm-demo-uninstall.*no job ran`).MatchString(out) {
		t.Errorf("the undecided destroy does not stop before its jobs:\n%s", out)
	}
	untouched("after an undecided destroy")
	if plan := r.mustTofu(0, "plan"); !strings.Contains(plan, "No changes.") {
		t.Errorf("the plan after a destroy stopped at a gate changes something:\n%s", plan)
	}

	// Decided to cancel: nothing runs either.
	r.setConfig(withProvider(`["sre", "platform_admin"]`, `[{ resource = "cp_scenario", name = "demo", gate = "confirm-demo-uninstall", option = "cancel operation" }]`))
	out = r.mustTofu(1, "destroy", "-auto-approve")
	if !strings.Contains(out, "(Cancelled)") || !strings.Contains(out, "no job ran") {
		t.Errorf("the cancelled destroy does not say it was cancelled before its jobs:\n%s", out)
	}
	untouched("after a cancelled destroy")

	// Refused at plan: an option the gate has not, an actor without the role.
	r.setConfig(withProvider(`["sre", "platform_admin"]`, `[{ resource = "cp_scenario", name = "demo/demo", gate = "confirm-demo-uninstall", option = "remove" }]`))
	out = r.mustTofu(1, "plan", "-destroy")
	if !regexp.MustCompile(`(?s)Unknown option \(provider "cp" destroy_approvals\[0\]\).*no option "remove"`).MatchString(out) {
		t.Errorf("a destroy approval with an unknown option is not refused on its entry:\n%s", out)
	}
	r.setConfig(withProvider(`["sre"]`, `[{ resource = "cp_kubernetes_cluster", name = "small", gate = "confirm-cluster-deletion", option = "delete cluster" }]`))
	out = r.mustTofu(0, "plan", "-destroy")
	if !regexp.MustCompile(`(?s)Gate waits: the approver lacks its role \(provider "cp" destroy_approvals\[0\]\).*platform_admin`).MatchString(out) ||
		!regexp.MustCompile(`(?s)confirm-cluster-deletion \(destructive\): waiting for a decision by an actor with role platform_admin; the decision of \S+ \(option "delete cluster"\) is refused`).MatchString(out) {
		t.Errorf("a destroy approval by an actor without the gate's role does not warn and show the gate waiting:\n%s", out)
	}
	untouched("after refused destroy approvals")

	// Approved in the provider block only: the plan shows who approved,
	// and the destroy runs.
	r.setConfig(withProvider(`["sre", "platform_admin"]`, `[
    { resource = "cp_scenario", name = "demo", gate = "confirm-demo-uninstall", option = "uninstall" },
    { resource = "cp_kubernetes_cluster", name = "small", gate = "confirm-cluster-deletion", option = "delete cluster" },
  ]`))
	approved := r.mustTofu(0, "plan", "-destroy")
	for _, want := range []string{
		`confirm-demo-uninstall (destructive): approved by ci with option "uninstall"`,
		`confirm-cluster-deletion (destructive): approved by ci with option "delete cluster"`,
	} {
		if !strings.Contains(approved, want) {
			t.Errorf("the approved destroy plan lacks %q:\n%s", want, approved)
		}
	}
	if strings.Contains(approved, "waiting") {
		t.Errorf("an approved destroy gate still shows waiting:\n%s", approved)
	}
	r.mustTofu(0, "destroy", "-auto-approve")
	if demoFile(t, c, "installed") || !demoFile(t, c, "archived") {
		t.Errorf("the approved destroy did not run its jobs")
	}
	if st, _ := r.tofu("state", "list"); strings.TrimSpace(st) != "" {
		t.Errorf("resources left in state after the destroy:\n%s", st)
	}
}
