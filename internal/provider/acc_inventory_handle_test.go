package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// A cp_scenario on the handle of a cluster whose hosts come from an
// inventory file, through OpenTofu (one provider process per command, so
// nothing is remembered between them but the state): the handle refers
// to the file instead of listing the hosts; the first plan shows the
// scenario's DAG on the file's hosts; a worker left out of the file
// re-plans the scenario's uninstall_node on that worker, as with inline
// hosts, and apply removes its agent only; with the file deleted, the
// refresh re-checks the scenario's evidence on the hosts it kept in
// private state and destroy completes.
func TestAccInventoryHandle_scenarioLeaveDestroy(t *testing.T) {
	testAccPreCheck(t)
	c := accHosts(t, "invh", "master-1", "worker-1", "worker-2")
	pack, err := filepath.Abs(filepath.Join("testdata", "packs", "node-agent"))
	must(t, err)
	r := newTofuRun(t, accProvider(c, fmt.Sprintf("pack_dirs = [%q]", pack))+`
resource "cp_kubernetes_cluster" "k" {
  name           = "invh"
  storage        = "none"
  refresh_health = false
  inventory_file = "${path.module}/hosts.yaml"
  approvals      = [{ gate = "confirm-node-removal", option = "remove node" }, { gate = "confirm-cluster-deletion", option = "delete cluster" }]
}

resource "cp_scenario" "agent" {
  pack           = "node-agent"
  name           = "agent"
  cluster_handle = cp_kubernetes_cluster.k.handle
}
`)
	hosts := filepath.Join(r.dir, "hosts.yaml")
	must(t, os.WriteFile(hosts, []byte(hostsYAML(c, []string{"master-1"}, "worker-1", "worker-2")), 0o644))
	w1, _ := c.Host("worker-1")
	w2, _ := c.Host("worker-2")
	agent := func(host string) string {
		return strings.TrimSpace(onHost(t, c, host, "cat /var/lib/node-agent/agent 2>/dev/null || echo gone; grep -c '^remove ' /var/tmp/node-agent.log || true"))
	}

	first := r.mustTofu(0, "plan")
	handleRE := regexp.MustCompile(`\+ handle += "cp\.handle\.v1 .*\\"inventory\\":\{\\"file\\":\\"` + regexp.QuoteMeta(hosts) + `\\",\\"sha256\\":\\"[0-9a-f]{64}\\",\\"masters\\":1,\\"workers\\":2\}`)
	if !handleRE.MatchString(first) || strings.Contains(first, w1.Addr) || strings.Contains(first, w2.Addr) {
		t.Errorf("the first plan's handle does not refer to the inventory, or the plan lists a worker's address:\n%s", first)
	}
	scenario := first[strings.Index(first, `# cp_scenario.agent will be created`):]
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`node-agent\.install@1\.0\.0`),
		regexp.MustCompile(`hosts \(3\): master-1, worker-1, worker-2`),
		regexp.MustCompile(`- place-agent \(3\): master-1, worker-1, worker-2`),
	} {
		if !want.MatchString(scenario) {
			t.Errorf("the first plan of the scenario lacks %s:\n%s", want, scenario)
		}
	}
	r.mustTofu(0, "apply", "-auto-approve")
	for _, h := range []string{"master-1", "worker-1", "worker-2"} {
		if got := agent(h); got != "present\n0" {
			t.Errorf("%s after create: agent file and removals %q, want present and none", h, got)
		}
	}
	if out := r.mustTofu(0, "plan"); !strings.Contains(out, "No changes.") {
		t.Fatalf("the plan after create is not empty:\n%s", out)
	}

	must(t, os.WriteFile(hosts, []byte(hostsYAML(c, []string{"master-1"}, "worker-1")), 0o644))
	leave := r.mustTofu(0, "plan")
	at := strings.Index(leave, "# cp_scenario.agent will be updated in-place")
	if at < 0 {
		t.Fatalf("removing worker-2 from the file does not update the scenario:\n%s", leave)
	}
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`node-agent\.uninstall_node@1\.0\.0`),
		regexp.MustCompile(`(?m)^ +\+ +- remove-agent: worker-2$`),
	} {
		if !want.MatchString(leave[at:]) {
			t.Errorf("the scenario's plan after worker-2 left the file lacks %s:\n%s", want, leave[at:])
		}
	}
	r.mustTofu(0, "apply", "-auto-approve")
	for h, want := range map[string]string{"master-1": "present\n0", "worker-1": "present\n0", "worker-2": "gone\n1"} {
		if got := agent(h); got != want {
			t.Errorf("%s after worker-2 left: agent file and removals %q, want %q", h, got, want)
		}
	}
	if out := r.mustTofu(0, "plan"); !strings.Contains(out, "No changes.") {
		t.Fatalf("the plan after the leave is not empty:\n%s", out)
	}

	// Without the file the scenario's refresh re-checks its evidence on
	// the hosts it kept: no warning on the scenario (without them,
	// "Evidence not checked" with the file's error), the plan is empty
	// and destroy completes.
	must(t, os.Remove(hosts))
	onScenario := regexp.MustCompile(`(?s)(Warning|Error): [^\n]*\n\s+with cp_scenario\.agent`)
	gone := r.mustTofu(0, "plan")
	if !strings.Contains(gone, "No changes.") || onScenario.MatchString(gone) {
		t.Errorf("the plan without the file is not empty or warns on the scenario:\n%s", gone)
	}
	destroyed := r.mustTofu(0, "destroy", "-auto-approve")
	if !strings.Contains(destroyed, "Destroy complete! Resources: 2 destroyed.") || onScenario.MatchString(destroyed) {
		t.Errorf("destroy without the file:\n%s", destroyed)
	}
}

// A cluster handle whose inventory file is missing, or holds other hosts
// than the handle's SHA-256 says, is a plan error on cp_scenario's
// cluster_handle naming the file and the expected digest; nothing
// connects anywhere.
func TestAccInventoryHandle_unavailableAtPlan(t *testing.T) {
	dir := t.TempDir()
	file := writeInventory(t, dir, "hosts.yaml", "masters:\n  - { name: master-1, address: 127.0.0.251 }\n")
	want := strings.Repeat("ab", 32)
	handle := func(f string) string {
		return `cp.handle.v1 {"kind":"kubernetes.cluster","name":"gone-k8s","inventory":{"file":"` + f + `","sha256":"` + want +
			`","masters":1,"workers":0},"artifacts":[],"record":"gone-k8s"}`
	}
	for _, tc := range []struct{ name, file, want string }{
		{"missing file", filepath.Join(dir, "gone.yaml"), `gone.yaml does not exist, the handle expects SHA-256 ` + want},
		{"other digest", file, `hosts.yaml has SHA-256 [0-9a-f]{64}, the handle expects ` + want},
	} {
		t.Run(strings.ReplaceAll(tc.name, " ", "_"), func(t *testing.T) {
			resource.Test(t, resource.TestCase{
				PreCheck:                 func() { testAccPreCheck(t) },
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps: []resource.TestStep{{
					Config: badConfigProvider(t) + fmt.Sprintf(`
resource "cp_scenario" "s" {
  pack           = "kubernetes"
  action         = "upgrade"
  name           = "gone-k8s"
  cluster_handle = %q
}
`, handle(tc.file)),
					PlanOnly:           true,
					ExpectNonEmptyPlan: true,
					ExpectError: regexp.MustCompile(`(?s)Cluster inventory file unavailable.*with cp_scenario\.s.*cluster_handle.*` +
						strings.ReplaceAll(tc.want, " ", `\s+`) + `.*cp_kubernetes_cluster`),
				}},
			})
		})
	}
}
