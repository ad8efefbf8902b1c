package provider

import (
	"fmt"

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
