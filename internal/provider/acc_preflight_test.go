package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/intentops/terraform-provider-cp/internal/hostsim"
)

// Host preflight through OpenTofu: with worker-1's clock not
// NTP-synchronized the create fails at preflight-host[worker-1], saying
// how to fix it, before anything is installed on any host (no kernel
// modules file of prepare-network); once the clock is synchronized the
// next apply completes.
func TestAccPreflight_unsynchronizedClockStopsTheCreate(t *testing.T) {
	testAccPreCheck(t)
	c := accHosts(t, "preflight", "master-1", "worker-1")
	cfg := accProvider(c, "") + `
resource "cp_kubernetes_cluster" "k" {
  name      = "preflight"
  storage   = "none"
  approvals = [{ gate = "confirm-cluster-deletion", option = "delete cluster" }]
  masters   = ` + nodesHCL(c, "master-1") + `
  workers   = ` + nodesHCL(c, "worker-1") + `
}
`
	file := func(host, name string) string {
		root, err := c.RootPath(host)
		must(t, err)
		return filepath.Join(root, name)
	}
	ntp := file("worker-1", hostsim.NTPSynchronizedFile)
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				PreConfig: func() {
					must(t, os.MkdirAll(filepath.Dir(ntp), 0o755))
					must(t, os.WriteFile(ntp, []byte("no\n"), 0o644))
				},
				Config:      cfg,
				ExpectError: regexp.MustCompile(`(?s)preflight-host\[worker-1\] failed.*not NTP-synchronized.*timedatectl set-ntp true`),
			},
			{
				PreConfig: func() {
					for _, h := range []string{"master-1", "worker-1"} {
						if _, err := os.Stat(file(h, "etc/modules-load.d/kubernetes.conf")); err == nil {
							t.Fatalf("prepare-network ran on %s after a failed preflight", h)
						}
					}
					must(t, os.Remove(ntp))
				},
				Config: cfg,
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("cp_kubernetes_cluster.k", "operation.status", "Completed"),
					func(*terraform.State) error {
						if _, err := os.Stat(file("worker-1", "var/lib/cp/kubernetes/preflight-passed")); err != nil {
							return fmt.Errorf("worker-1 has no preflight-passed marker: %w", err)
						}
						return nil
					},
				),
			},
		},
	})
}
