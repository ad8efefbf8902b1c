package provider

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/intentops/terraform-provider-cp/internal/hostsim"
)

// The pinned CNI releases through OpenTofu: a one-master cluster with cni
// cilium installs the chart cilium 1.19.6 from the archive install-cni
// pulled and checked against the pinned digest (the simulator serves the
// release's real archive), and one with flannel applies the pinned
// release's real manifest after its check; both nodes become Ready.
func TestAccDay2_pinnedCNIReleases(t *testing.T) {
	testAccPreCheck(t)
	for _, cni := range []string{"cilium", "flannel"} {
		t.Run(cni, func(t *testing.T) {
			name := "cni-" + cni
			c := accHosts(t, name, "master-1")
			config := accProvider(c, "") + day2Cluster(c, name, []string{"master-1"}, nil, fmt.Sprintf("cni = %q", cni))
			resource.Test(t, resource.TestCase{
				PreCheck:                 func() { testAccPreCheck(t) },
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps: []resource.TestStep{{
					Config: config,
					Check: resource.ComposeAggregateTestCheckFunc(
						resource.TestCheckResourceAttr("cp_kubernetes_cluster.k", "operation.status", "Completed"),
						func(*terraform.State) error {
							st, err := hostsim.ReadState(c.SimulatorStateDir())
							if err != nil {
								return err
							}
							if st.CNI != cni || !st.NodeReady("master-1") {
								return fmt.Errorf("CNI %q, master-1 Ready %v; want %s and Ready", st.CNI, st.NodeReady("master-1"), cni)
							}
							if cni == "cilium" {
								r := st.Releases["kube-system/cilium"]
								if r == nil || r.Chart != "cilium" || r.Version != hostsim.PinnedCiliumVersion {
									return fmt.Errorf("cilium release %+v, want the chart cilium %s", r, hostsim.PinnedCiliumVersion)
								}
							}
							return nil
						},
					),
				}},
			})
		})
	}
}
