package provider

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/intentops/terraform-provider-cp/internal/testhosts"
)

// sandboxImageOnHosts checks that containerd on every host, as the test
// host's real containerd reads its configuration (containerd config
// dump), has image as its sandbox image: sandbox_image (containerd 1.x)
// or pinned_images' sandbox (2.x).
func sandboxImageOnHosts(t *testing.T, c *testhosts.Cluster, image string, hosts ...string) resource.TestCheckFunc {
	re := regexp.MustCompile(`(?m)^\s*(sandbox_image|sandbox) = ["']` + regexp.QuoteMeta(image) + `["']\s*$`)
	return func(*terraform.State) error {
		for _, h := range hosts {
			dump := onHost(t, c, h, "sudo containerd config dump")
			if !re.MatchString(dump) {
				var got []string
				for _, l := range strings.Split(dump, "\n") {
					if strings.Contains(l, "sandbox") {
						got = append(got, strings.TrimSpace(l))
					}
				}
				return fmt.Errorf("%s: containerd's sandbox image is not %s: %q", h, image, got)
			}
		}
		return nil
	}
}

// An air-gapped upgrade through OpenTofu: a cluster created at 1.33.6
// with image_repository runs containerd with the pause image kubeadm 1.33
// lists under the repository (pause:3.10); the upgrade to 1.34.2 installs
// kubeadm 1.34, which lists pause:3.10.1, and then every node's containerd
// runs with that one. The upgrade's evidence, containerd_sandbox_image
// among it, holds: the operation completes.
func TestAccDay2_upgradeSetsSandboxImage(t *testing.T) {
	testAccPreCheck(t)
	c := accHosts(t, "upgrade-pause", "master-1", "worker-1")
	prov := accProvider(c, "")
	params := `parameters     = { image_repository = "` + airgapImageRepo + `" }`
	before := day2Cluster(c, "upgrade-pause", []string{"master-1"}, []string{"worker-1"}, `kubernetes_version = "1.33.6"
  `+params)
	after := day2Cluster(c, "upgrade-pause", []string{"master-1"}, []string{"worker-1"}, `kubernetes_version = "1.34.2"
  `+params+`
  approvals          = [{ gate = "approve-upgrade", option = "upgrade" }, { gate = "confirm-cluster-deletion", option = "delete cluster" }]`)
	after = strings.Replace(after, "  approvals      = [{ gate = \"confirm-cluster-deletion\", option = \"delete cluster\" }]\n", "", 1)
	addr := "cp_kubernetes_cluster.k"
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: prov + before,
				Check:  sandboxImageOnHosts(t, c, airgapImageRepo+"/pause:3.10", "master-1", "worker-1"),
			},
			{
				Config: prov + after,
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(addr, "operation.action", "upgrade"),
					resource.TestCheckResourceAttr(addr, "operation.status", "Completed"),
					sandboxImageOnHosts(t, c, airgapImageRepo+"/pause:3.10.1", "master-1", "worker-1"),
				),
			},
		},
	})
}
