package provider

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
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
