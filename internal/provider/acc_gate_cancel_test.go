package provider

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/intentops/terraform-provider-cp/internal/hostsim"
	"github.com/intentops/terraform-provider-cp/internal/testhosts"
)

// simRelease checks whether the simulator's cluster has a Helm release.
func simRelease(c *testhosts.Cluster, key string, want bool) resource.TestCheckFunc {
	return func(*terraform.State) error {
		st, err := hostsim.ReadState(c.SimulatorStateDir())
		if err != nil {
			return err
		}
		if _, ok := st.Releases[key]; ok != want {
			keys := make([]string, 0, len(st.Releases))
			for k := range st.Releases {
				keys = append(keys, k)
			}
			return fmt.Errorf("release %s present: %v, want %v (releases %q)", key, ok, want, keys)
		}
		return nil
	}
}

// The option "cancel operation" of the destructive gate
// confirm-tempo-uninstall cancels the destroy: the operation ends
// Cancelled, the resource stays, and the release is still installed on
// the cluster. Approving "uninstall" afterwards lets the destroy run.
func TestAccGate_cancelAtDestructiveGate(t *testing.T) {
	testAccPreCheck(t)
	c := accHosts(t, "small", "master-1", "worker-1")
	prov := accProvider(c, s3Policy)
	cluster := smallCluster(nodesHCL(c, "master-1"), nodesHCL(c, "worker-1"))
	tempo := func(option string) string {
		return `
resource "cp_tempo" "t" {
  name           = "tracing-cancel"
  environment    = "stage"
  cluster_handle = cp_kubernetes_cluster.small.handle
  parameters     = { namespace = "tracing-cancel" }
  approvals      = [{ gate = "confirm-tempo-uninstall", option = "` + option + `" }]
}
`
	}
	const release = "tracing-cancel/tempo"
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: prov + cluster + tempo("cancel operation"),
				Check:  simRelease(c, release, true),
			},
			{
				Config:      prov + cluster,
				ExpectError: regexp.MustCompile(`\(Cancelled\)`),
			},
			{
				Config: prov + cluster + tempo("uninstall"),
				Check:  simRelease(c, release, true),
			},
		},
		CheckDestroy: simRelease(c, release, false),
	})
}
