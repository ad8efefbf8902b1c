package provider

import (
	"errors"
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/intentops/terraform-provider-cp/internal/testhosts"
)

// packProviderHCL is a provider block for the probe-pack acceptance
// tests: actor ci, the packs of packDir, extra provider arguments, and
// ssh logging in to the test hosts of c as their first host's user.
func packProviderHCL(c *testhosts.Cluster, packDir, extra string) string {
	h := c.Hosts()[0]
	return fmt.Sprintf(`
provider "cp" {
  actor     = "ci"
  pack_dirs = [%q]
  %s
  ssh = {
    user             = %q
    private_key_file = %q
    known_hosts_file = %q
  }
}
`, packDir, extra, h.User, c.KeyPath(), c.KnownHostsPath())
}

// gatesProvider is a provider block in environment qa for actor ci with
// roles (an HCL list), the packs of packDir, ssh logging in to the test
// hosts of c, and policy: further provider arguments (capability_policy,
// policy_rules, organization).
func gatesProvider(c *testhosts.Cluster, packDir, roles, policy string) string {
	h := c.Hosts()[0]
	return fmt.Sprintf(`
provider "cp" {
  environment = "qa"
  actor       = "ci"
  actor_roles = %s
  pack_dirs   = [%q]
  ssh = {
    user             = %q
    private_key_file = %q
    known_hosts_file = %q
  }
  %s
}
`, roles, packDir, h.User, c.KeyPath(), c.KnownHostsPath(), policy)
}

// storagelessClusterHCL is the cp_kubernetes_cluster "k" named name with
// master-1 of c as its master and the hosts workers of c as its workers,
// without storage and with its deletion confirmed; extra goes inside the
// resource block.
func storagelessClusterHCL(c *testhosts.Cluster, name string, workers []string, extra string) string {
	return fmt.Sprintf(`
resource "cp_kubernetes_cluster" "k" {
  name      = %q
  storage   = "none"
  approvals = [{ gate = "confirm-cluster-deletion", option = "delete cluster" }]
  masters   = %s
  workers   = %s
%s
}
`, name, nodesHCL(c, "master-1"), nodesHCL(c, workers...), extra)
}

// thingUserScenarioHCL is the cp_scenario "probe" of the thing-user pack
// (thingPacks) on host h as its master, with approvals (an HCL list).
func thingUserScenarioHCL(h testhosts.Host, approvals string) string {
	return fmt.Sprintf(`
resource "cp_scenario" "probe" {
  pack      = "thing-user"
  name      = "probe"
  hosts     = [{ name = %q, address = %q, role = "master" }]
  approvals = %s
}
`, h.Name, h.Addr, approvals)
}

// importVerifyStep imports addr by id and verifies the imported state
// against the applied one, but for plan_summary and plan: refresh keeps
// one line of the completed operation's plan and summary (completedPlan,
// completedSummary).
func importVerifyStep(addr, id string) resource.TestStep {
	return resource.TestStep{
		ResourceName:            addr,
		ImportState:             true,
		ImportStateId:           id,
		ImportStateVerify:       true,
		ImportStateVerifyIgnore: []string{"plan_summary", "plan"},
	}
}

// costGateSteps are the last steps of a cost confirmation of the
// thing-user scenario on h (thingUserScenarioHCL), under finance (a
// provider block whose actor holds finance) and sre (the same provider
// block, its actor holding sre only): applying without the confirmation
// stops at confirm-cost-dedicated-thing; a confirmation by sre, with
// neither the creation nor its consumer run on h, is refused at plan, the
// gate waiting; confirmed by finance, the thing is created and used.
func costGateSteps(t *testing.T, h testhosts.Host, finance, sre string) []resource.TestStep {
	const confirm = `[{ gate = "confirm-cost-dedicated-thing", option = "create dedicated_thing" }]`
	return []resource.TestStep{
		{
			Config:      finance + thingUserScenarioHCL(h, `[]`),
			ExpectError: regexp.MustCompile(`(?s)stopped at a gate \(WaitingForApproval\).*confirm-cost-dedicated-thing \(cost_confirmation\)`),
		},
		{
			PreConfig: func() {
				markerFiles(t, h, map[string]string{"var/lib/thing/make-thing": "", "var/lib/thing/use-thing": ""})
			},
			// A confirmation by an actor without the gate's role: the
			// plan shows the gate waiting, with the decision refused.
			Config:             sre + thingUserScenarioHCL(h, confirm),
			PlanOnly:           true,
			ExpectNonEmptyPlan: true,
			ConfigPlanChecks:   planShows(`(?s)confirm-cost-dedicated-thing \(cost confirmation\).*waiting for a decision by an actor with role finance; the decision of \S+ \(option "[^"]+"\) is refused: actor \S+ holds roles sre, not one of the gate's roles`),
		},
		{
			Config: finance + thingUserScenarioHCL(h, confirm),
			Check: func(*terraform.State) error {
				return errors.Join(markerFile(h, "var/lib/thing/make-thing", "ran"), markerFile(h, "var/lib/thing/use-thing", "ran"))
			},
		},
	}
}
