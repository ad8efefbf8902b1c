package provider

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/intentops/terraform-provider-cp/internal/planner"
	"github.com/intentops/terraform-provider-cp/internal/testhosts"
)

// earlierOpCluster is the cluster of TestAccDrift_earlierOperation: one
// master and the given workers, without storage.
func earlierOpCluster(c *testhosts.Cluster, workers string, approvals string) string {
	return fmt.Sprintf(`
resource "cp_kubernetes_cluster" "k" {
  name      = "earlier"
  storage   = "none"
  masters   = %s
  workers   = %s
  approvals = [%s{ gate = "confirm-cluster-deletion", option = "delete cluster" }]
}
`, nodesHCL(c, "master-1"), workers, approvals)
}

// stateHosts lists, for each evidence entry and artifact of the
// resource's state, the hosts it names: an evidence entry folds the
// hosts of a job into ranges (planner.HostRanges), and its instance names
// one for a per-host job.
func stateHosts(s *terraform.State, addr string) (evidence, artifacts map[string][]string, err error) {
	rs, ok := s.RootModule().Resources[addr]
	if !ok {
		return nil, nil, fmt.Errorf("no %s in state", addr)
	}
	at := rs.Primary.Attributes
	evidence, artifacts = map[string][]string{}, map[string][]string{}
	n, _ := strconv.Atoi(at["evidence.#"])
	for i := range n {
		inst, h := at[fmt.Sprintf("evidence.%d.instance", i)], at[fmt.Sprintf("evidence.%d.host", i)]
		hosts, ok := planner.ParseHostRanges(h)
		if !ok {
			hosts = []string{h}
		}
		key := inst + " " + at[fmt.Sprintf("evidence.%d.id", i)]
		evidence[key] = append(evidence[key], hosts...)
		if j := strings.LastIndexByte(inst, '['); j > 0 && !strings.HasSuffix(inst, "[*]") {
			evidence[key] = append(evidence[key], strings.TrimSuffix(inst[j+1:], "]"))
		}
	}
	n, _ = strconv.Atoi(at["artifacts.#"])
	for i := range n {
		id := at[fmt.Sprintf("artifacts.%d.id", i)]
		artifacts[id] = append(artifacts[id], at[fmt.Sprintf("artifacts.%d.host", i)])
	}
	return evidence, artifacts, nil
}

func namesHost(hosts []string, host string) bool {
	for _, h := range hosts {
		if h == host {
			return true
		}
	}
	return false
}

// stateKeepsHost checks that the cluster's state holds the create's
// evidence modules_persisted of prepare-network on host, and no evidence
// of the hosts of gone.
func stateKeepsHost(host string, gone ...string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		evs, _, err := stateHosts(s, "cp_kubernetes_cluster.k")
		if err != nil {
			return err
		}
		found := false
		for key, hosts := range evs {
			if strings.HasPrefix(key, "prepare-network") && strings.HasSuffix(key, " modules_persisted") && namesHost(hosts, host) {
				found = true
			}
		}
		if !found {
			return fmt.Errorf("got: no evidence modules_persisted of prepare-network on %s in state want: the create's, kept after later operations; evidence: %v", host, evs)
		}
		for _, g := range gone {
			for key, hosts := range evs {
				if namesHost(hosts, g) {
					return fmt.Errorf("got: evidence %s of %v want: none of %s, which left", key, hosts, g)
				}
			}
		}
		return nil
	}
}

// stateHoldsNoHost checks that the state of addr holds no artifact or
// evidence of the hosts of gone.
func stateHoldsNoHost(addr string, gone ...string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		evs, arts, err := stateHosts(s, addr)
		if err != nil {
			return err
		}
		for _, g := range gone {
			for key, hosts := range evs {
				if namesHost(hosts, g) {
					return fmt.Errorf("got: %s keeps evidence %s of %v want: none of %s, which left", addr, key, hosts, g)
				}
			}
			for id, hosts := range arts {
				if namesHost(hosts, g) {
					return fmt.Errorf("got: %s keeps artifact %s of %s want: none of %s, which left", addr, id, g, g)
				}
			}
		}
		return nil
	}
}

// stateHasArtifact checks that the cluster's state keeps artifact id of
// host.
func stateHasArtifact(id, host string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		_, arts, err := stateHosts(s, "cp_kubernetes_cluster.k")
		if err != nil {
			return err
		}
		if !namesHost(arts[id], host) {
			return fmt.Errorf("got: artifact %s on %v want: one of %s", id, arts[id], host)
		}
		return nil
	}
}

// Evidence of an earlier operation is checked again, and a host that
// leaves leaves the state. A cluster of a master and two workers is
// created, then worker-3 is added (add_node). The file prepare-network
// persists is deleted on worker-1, an original node that add_node did
// not touch: the create's evidence modules_persisted is still in state,
// so the refresh checks it and the next plan repairs prepare-network on
// worker-1, and the jobs following it there, and nothing on another
// host. With the file back, worker-2 is removed (remove_node): apply
// leaves what the plan of the removal shows (OpenTofu checks it), and the
// refresh after drops worker-2's evidence and node-scoped artifacts,
// while the cluster-scoped ones and the other nodes' stay; the plan after
// has no changes.
func TestAccDrift_earlierOperation(t *testing.T) {
	testAccPreCheck(t)
	c := accHosts(t, "earlier", "master-1", "worker-1", "worker-2", "worker-3")
	prov := accProvider(c, "")
	created := prov + earlierOpCluster(c, nodesHCL(c, "worker-1", "worker-2"), "")
	added := prov + earlierOpCluster(c, nodesHCL(c, "worker-1", "worker-2", "worker-3"), "")
	removed := prov + earlierOpCluster(c, nodesHCL(c, "worker-1", "worker-3"), `{ gate = "confirm-node-removal", option = "remove node" }, `)
	modules := func() string {
		root, err := c.RootPath("worker-1")
		must(t, err)
		return filepath.Join(root, "etc/modules-load.d/kubernetes.conf")
	}
	var kept []byte
	otherRepair := regexp.MustCompile(`repair \(\d+\): [^\n]*(master-1|worker-2|worker-3)`)
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: created},
			{
				Config: added,
				Check: resource.ComposeTestCheckFunc(
					resource.TestCheckResourceAttr("cp_kubernetes_cluster.k", "operation.action", "add_node"),
					stateKeepsHost("worker-1"),
				),
			},
			{
				PreConfig: func() {
					b, err := os.ReadFile(modules())
					must(t, err)
					kept = b
					must(t, os.Remove(modules()))
				},
				Config:             added,
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue("cp_kubernetes_cluster.k", tfjsonpath.New("plan"), knownvalue.StringRegexp(regexp.MustCompile(
						`(?s)- prepare-network \(4\): [^\n]*\n`+
							`(      [^\n]*\n)*`+
							`      repair \(1\): worker-1: evidence modules_persisted failed: observed exit code 2, expected 0.*`+
							`repair \(1\): worker-1: follows the repair of prepare-network\[worker-1\]`))),
					noPlanMatch("cp_kubernetes_cluster.k", "plan", otherRepair),
				}},
			},
			{
				PreConfig: func() { must(t, os.WriteFile(modules(), kept, 0o644)) },
				Config:    removed,
				Check: resource.ComposeTestCheckFunc(
					resource.TestCheckResourceAttr("cp_kubernetes_cluster.k", "operation.action", "remove_node"),
					resource.TestCheckResourceAttr("cp_kubernetes_cluster.k", "operation.status", "Completed"),
					stateKeepsHost("worker-1"),
					stateHasArtifact("host.identity", "worker-2"),
				),
			},
			{
				RefreshState: true,
				Check: resource.ComposeTestCheckFunc(
					stateKeepsHost("worker-1", "worker-2"),
					stateHoldsNoHost("cp_kubernetes_cluster.k", "worker-2"),
					stateHasArtifact("host.identity", "worker-3"),
					stateHasArtifact("kubeconfig.admin", "master-1"),
					stateHasArtifact("etcd.snapshot", "master-1"),
				),
			},
			{Config: removed, PlanOnly: true},
		},
	})
}

// noPlanMatch is a plan check that the planned attribute of addr, a
// string, does not match re.
func noPlanMatch(addr, attr string, re *regexp.Regexp) plancheck.PlanCheck {
	return notMatching{addr: addr, attr: attr, re: re}
}

type notMatching struct {
	addr, attr string
	re         *regexp.Regexp
}

func (n notMatching) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	for _, rc := range req.Plan.ResourceChanges {
		if rc.Address != n.addr || rc.Change == nil {
			continue
		}
		after, _ := rc.Change.After.(map[string]any)
		s, _ := after[n.attr].(string)
		if m := n.re.FindString(s); m != "" {
			resp.Error = fmt.Errorf("got: %s's planned %s holds %q want: nothing matching %s:\n%s", n.addr, n.attr, m, n.re, s)
		}
		return
	}
	resp.Error = fmt.Errorf("got: no change of %s in the plan want: one", n.addr)
}
