package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/intentops/terraform-provider-cp/internal/testhosts"
)

// driftHosts are the hosts of the drift test: the probe's jobs run on
// each of them.
var driftHosts = []string{"node-1", "node-2", "node-3"}

// driftConfig is the provider (with the testdata pack drift-probe and
// refresh_evidence as given, "" leaving the default) and the scenario
// installing the probe on the three hosts.
func driftConfig(t *testing.T, c *testhosts.Cluster, refresh string) string {
	t.Helper()
	pack, err := filepath.Abs(filepath.Join("testdata", "packs", "drift-probe"))
	must(t, err)
	extra := fmt.Sprintf("pack_dirs = [%q]", pack)
	if refresh != "" {
		extra += "\n  refresh_evidence = " + refresh
	}
	var hosts []string
	for _, n := range driftHosts {
		h, err := c.Host(n)
		must(t, err)
		hosts = append(hosts, fmt.Sprintf("{ name = %q, address = %q, role = \"worker\" }", h.Name, h.Addr))
	}
	return accProvider(c, extra) + fmt.Sprintf(`
resource "cp_scenario" "probe" {
  pack  = "drift-probe"
  name  = "probe"
  hosts = [%s]
}
`, strings.Join(hosts, ", "))
}

// probeFile is the path of the probe's file name on host, through the
// host's own root.
func probeFile(t *testing.T, c *testhosts.Cluster, host, name string) string {
	t.Helper()
	root, err := c.RootPath(host)
	must(t, err)
	return filepath.Join(root, "var/lib/drift-probe", name)
}

// probeRuns checks how many times each job ran on each host (the lines
// its script appended to start.log and confirm.log).
func probeRuns(t *testing.T, c *testhosts.Cluster, want map[string]int) resource.TestCheckFunc {
	return func(*terraform.State) error {
		for _, host := range driftHosts {
			for _, log := range []string{"start.log", "confirm.log"} {
				b, err := os.ReadFile(probeFile(t, c, host, log))
				if err != nil {
					return fmt.Errorf("got: %v want: the probe's %s on %s", err, log, host)
				}
				if got := strings.Count(string(b), "\n"); got != want[host] {
					return fmt.Errorf("got: %s on %s records %d runs want: %d", log, host, got, want[host])
				}
			}
		}
		return nil
	}
}

// breakProbe deletes the probe's flag on host, inside the host, so that
// the evidence flag_up of start-probe fails there.
func breakProbe(t *testing.T, c *testhosts.Cluster, host string) {
	t.Helper()
	must(t, os.Remove(probeFile(t, c, host, "flag")))
}

// connections is the number of SSH connections each drift host accepted.
func connections(t *testing.T, c *testhosts.Cluster) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, h := range driftHosts {
		n, err := c.Connections(h)
		must(t, err)
		out[h] = n
	}
	return out
}

// planShowsAttrs checks the refreshed plan of cp_scenario.probe: each
// attribute named matches its expression.
func planShowsAttrs(want map[string]string) resource.ConfigPlanChecks {
	var checks []plancheck.PlanCheck
	for attr, re := range want {
		checks = append(checks, plancheck.ExpectKnownValue("cp_scenario.probe", tfjsonpath.New(attr), knownvalue.StringRegexp(regexp.MustCompile(re))))
	}
	return resource.ConfigPlanChecks{PostApplyPostRefresh: checks}
}

// Drift as a repair through OpenTofu: the probe is installed on three
// hosts; its flag is deleted on node-2, so the evidence flag_up fails
// there. The next plan is a repair of start-probe on node-2 only, with
// the failing check and what it observed, and of confirm-probe on node-2
// (it follows); both jobs read satisfied on node-1 and node-3. Apply runs
// exactly those two instances (the run logs on the hosts), and the plan
// afterwards has no changes, its plan and summary one line of what completed. With
// refresh_evidence = false the same
// drift plans nothing and refresh opens no SSH connection; turned on
// again, the repair is planned again.
func TestAccDrift_repairOnlyTheDriftedHost(t *testing.T) {
	testAccPreCheck(t)
	c := accHosts(t, "drift", driftHosts...)
	on := driftConfig(t, c, "")
	off := driftConfig(t, c, "false")
	var before map[string]int
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: on,
				Check:  probeRuns(t, c, map[string]int{"node-1": 1, "node-2": 1, "node-3": 1}),
			},
			{
				PreConfig:          func() { breakProbe(t, c, "node-2") },
				Config:             on,
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
				ConfigPlanChecks: planShowsAttrs(map[string]string{"plan_summary": `Start: 3 jobs, 0 will run, 2 satisfied, 1 repair\n  Confirm: 3 jobs, 0 will run, 2 satisfied, 1 repair\n`, "plan": `(?s)\(2 repair, 0 will run, 4 satisfied\).*` +
					`- start-probe \(3\): node-1\.\.3\n` +
					`      satisfied, apply skips \(2\): node-1, node-3\n` +
					`      repair \(1\): node-2: evidence flag_up failed: observed "", expected up; stderr: cat: /var/lib/drift-probe/flag: No such file or directory\n` +
					`.*- confirm-probe \(3\): node-1\.\.3\n` +
					`      satisfied, apply skips \(2\): node-1, node-3\n` +
					`      repair \(1\): node-2: follows the repair of start-probe\[node-2\]\n`}),
			},
			{
				Config: on,
				Check:  probeRuns(t, c, map[string]int{"node-1": 1, "node-2": 2, "node-3": 1}),
			},
			{
				Config:           on,
				PlanOnly:         true,
				ConfigPlanChecks: planShowsAttrs(map[string]string{"plan_summary": `^[^\n]*\): completed\n$`, "plan": `^[^\n]*\): completed, 6 job instances, \d+ gates?, per-instance DAG sha256:[0-9a-f]+\n$`}),
			},
			{
				PreConfig: func() {
					breakProbe(t, c, "node-2")
					before = connections(t, c)
				},
				Config:   off,
				PlanOnly: true,
			},
			{
				PreConfig: func() {
					if after := connections(t, c); fmt.Sprint(after) != fmt.Sprint(before) {
						t.Errorf("with refresh_evidence = false the plan opened SSH connections: before %v, after %v", before, after)
					}
				},
				Config:             on,
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
				ConfigPlanChecks:   planShowsAttrs(map[string]string{"plan": `repair \(1\): node-2: evidence flag_up failed`}),
			},
		},
	})
}

// sameMarkers checks that the markers of hosts are those of before: no
// job completed there since.
func sameMarkers(t *testing.T, c *testhosts.Cluster, before *map[string][]byte, hosts ...string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		now := snapshotMarkers(t, c, hosts...)
		if len(now) != len(*before) {
			return fmt.Errorf("got: %d markers on %v want: the %d of before", len(now), hosts, len(*before))
		}
		for p, b := range *before {
			if string(now[p]) != string(b) {
				return fmt.Errorf("got: marker %s rewritten want: no job run again on %v", p, hosts)
			}
		}
		return nil
	}
}

// The same repair for a cluster: with the kernel modules file that
// prepare-network persists deleted on worker-2, the plan repairs
// prepare-network there (evidence modules_persisted) and the jobs that
// follow it for worker-2, the rest satisfied; apply writes the file again
// and runs no job on worker-1; the plan after it has no changes.
func TestAccDrift_clusterNodeRepair(t *testing.T) {
	testAccPreCheck(t)
	c := accHosts(t, "small", "master-1", "worker-1", "worker-2")
	cfg := accProvider(c, "") + smallCluster(nodesHCL(c, "master-1"), nodesHCL(c, "worker-1", "worker-2"))
	modules := func() string {
		root, err := c.RootPath("worker-2")
		must(t, err)
		return filepath.Join(root, "etc/modules-load.d/kubernetes.conf")
	}
	var worker1 map[string][]byte
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: cfg},
			{
				PreConfig:          func() { must(t, os.Remove(modules())) },
				Config:             cfg,
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue("cp_kubernetes_cluster.small", tfjsonpath.New("plan"), knownvalue.StringRegexp(regexp.MustCompile(
						`(?s)- prepare-network \(3\): master-1, worker-1, worker-2\n`+
							`      satisfied, apply skips \(2\): master-1, worker-1\n`+
							`      repair \(1\): worker-2: evidence modules_persisted failed: observed exit code 2, expected 0.*`+
							`- join-workers \(2\): worker-1, worker-2\n`+
							`      satisfied, apply skips \(1\): worker-1\n`+
							`      repair \(1\): worker-2: follows the repair of prepare-network\[worker-2\]\n.*`+
							`- verify-cluster: master-1\n`+
							`      satisfied, apply skips \(1\): master-1\n`))),
				}},
			},
			{
				PreConfig: func() { worker1 = snapshotMarkers(t, c, "worker-1") },
				Config:    cfg,
				Check: resource.ComposeTestCheckFunc(sameMarkers(t, c, &worker1, "worker-1"), func(*terraform.State) error {
					if _, err := os.Stat(modules()); err != nil {
						return fmt.Errorf("got: %v want: prepare-network wrote the modules file again on worker-2", err)
					}
					return nil
				}),
			},
			{Config: cfg, PlanOnly: true},
		},
	})
}
