package provider

import (
	"fmt"
	"strings"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/testhosts"
)

// accHosts starts real OpenSSH test hosts with the host simulator for an
// acceptance test; they are stopped when the test ends. Under CI=true a
// machine that cannot start them fails the test.
func accHosts(t *testing.T, cluster string, names ...string) *testhosts.Cluster {
	t.Helper()
	return testhosts.Require(t, testhosts.Options{Names: names, Simulator: true, SimulatorCluster: cluster})
}

// accProvider is a provider block logging in to the test hosts.
func accProvider(c *testhosts.Cluster, extra string) string {
	h := c.Hosts()[0]
	return fmt.Sprintf(`
provider "cp" {
  environment = "prod"
  actor       = "ci"
  actor_roles = ["sre", "platform_admin"]
  ssh = {
    user             = %q
    private_key_file = %q
    known_hosts_file = %q
  }
  %s
}
`, h.User, c.KeyPath(), c.KnownHostsPath(), extra)
}

// nodesHCL lists hosts as `{ name, address }` objects.
func nodesHCL(c *testhosts.Cluster, names ...string) string {
	var parts []string
	for _, n := range names {
		h, err := c.Host(n)
		if err != nil {
			panic(err)
		}
		parts = append(parts, fmt.Sprintf("{ name = %q, address = %q }", h.Name, h.Addr))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
