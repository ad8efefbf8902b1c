package provider

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// A node that leaves the cluster loses what cp_scenario put on it: the
// testdata pack node-agent places an agent file on every node (install);
// removing worker-2 from the cluster makes the scenario's next plan show
// the pack's uninstall_node on worker-2 alone, and the apply removes the
// agent there (its log says so) while worker-1 and master-1 keep theirs.
// The plan after that is empty: the scenario's handle no longer lists
// worker-2, and from the refresh after the leave its state keeps no
// evidence or artifact of worker-2.
func TestAccScenario_uninstallOnNodeLeave(t *testing.T) {
	testAccPreCheck(t)
	c := accHosts(t, "leave", "master-1", "worker-1", "worker-2")
	pack, err := filepath.Abs(filepath.Join("testdata", "packs", "node-agent"))
	must(t, err)
	prov := accProvider(c, fmt.Sprintf("pack_dirs = [%q]", pack))
	scenario := `
resource "cp_scenario" "agent" {
  pack           = "node-agent"
  name           = "agent"
  cluster_handle = cp_kubernetes_cluster.k.handle
}
`
	both := day2Cluster(c, "leave", []string{"master-1"}, []string{"worker-1", "worker-2"}, "")
	one := strings.Replace(day2Cluster(c, "leave", []string{"master-1"}, []string{"worker-1"}, `approvals = [{ gate = "confirm-node-removal", option = "remove node" }, { gate = "confirm-cluster-deletion", option = "delete cluster" }]`),
		"  approvals      = [{ gate = \"confirm-cluster-deletion\", option = \"delete cluster\" }]\n", "", 1)
	agent := func(host string) string {
		return strings.TrimSpace(onHost(t, c, host, "cat /var/lib/node-agent/agent 2>/dev/null || echo gone; grep -c '^remove ' /var/tmp/node-agent.log || true"))
	}
	hasAgent := func(want map[string]string) resource.TestCheckFunc {
		return func(*terraform.State) error {
			for h, w := range want {
				if got := agent(h); got != w {
					return fmt.Errorf("%s: agent file and removals %q, want %q", h, got, w)
				}
			}
			return nil
		}
	}
	addr := "cp_scenario.agent"
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: prov + both + scenario,
				Check:  hasAgent(map[string]string{"master-1": "present\n0", "worker-1": "present\n0", "worker-2": "present\n0"}),
			},
			{
				Config: prov + one + scenario,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("plan_summary"), knownvalue.StringRegexp(regexp.MustCompile(`(?s)node-agent\.uninstall_node@1\.0\.0.*node-agent\.install@1\.0\.0`))),
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("plan"), knownvalue.StringRegexp(regexp.MustCompile(`(?m)^  - remove-agent: worker-2$`))),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(addr, "operation.status", "Completed"),
					hasAgent(map[string]string{"master-1": "present\n0", "worker-1": "present\n0", "worker-2": "gone\n1"}),
				),
			},
			{RefreshState: true, Check: stateHoldsNoHost(addr, "worker-2")},
		},
	})
}
