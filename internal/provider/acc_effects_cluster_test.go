package provider

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// expose_kubeconfig and refresh_health, each both ways, on one small
// cluster through OpenTofu and real sshd hosts (refresh_evidence off, so
// that node health is the only thing a refresh reads of the nodes):
//
//   - expose_kubeconfig false: no kubeconfig in state; true: the state's
//     sensitive kubeconfig is the admin kubeconfig the kubeconfig.admin
//     artifact refers to, byte for byte; asked for by an actor without a
//     role of its visible_to_roles: refused at plan on expose_kubeconfig;
//     false again: gone from state.
//   - refresh_health true: a managed label changed on the API server is
//     read back and the next apply puts it back (relabel); false: the same
//     change is not seen, the plan is empty and the label stays changed.
func TestAccEffects_clusterKubeconfigAndHealth(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("TF_ACC is not set")
	}
	testAccPreCheck(t)
	c := accHosts(t, "effects-k8s", "master-1", "worker-1")
	prov := accProvider(c, "refresh_evidence = false")
	noRoles := strings.Replace(prov, `actor_roles = ["sre", "platform_admin"]`, `actor_roles = []`, 1)
	if noRoles == prov {
		t.Fatal("accProvider no longer sets actor_roles as this test expects")
	}
	m1, _ := c.Host("master-1")
	w1, _ := c.Host("worker-1")
	addr := "cp_kubernetes_cluster.k"
	cluster := func(p, extra string) string {
		return p + fmt.Sprintf(`
resource "cp_kubernetes_cluster" "k" {
  name      = "effects-k8s"
  storage   = "none"
  masters   = [{ name = "master-1", address = %q }]
  workers   = [{ name = "worker-1", address = %q, labels = { tier = "app" } }]
  approvals = [{ gate = "confirm-cluster-deletion", option = "delete cluster" }]
%s
}
`, m1.Addr, w1.Addr, extra)
	}
	kubectl := "sudo kubectl --kubeconfig /etc/kubernetes/admin.conf "
	// adminKubeconfig reads, on its host, the file the kubeconfig.admin
	// artifact of the state refers to.
	adminKubeconfig := func(s *terraform.State) (string, error) {
		rs := s.RootModule().Resources[addr]
		if rs == nil {
			return "", fmt.Errorf("%s not in state", addr)
		}
		for k, v := range rs.Primary.Attributes {
			if !strings.HasSuffix(k, ".id") || v != "kubeconfig.admin" {
				continue
			}
			ref := rs.Primary.Attributes[strings.TrimSuffix(k, ".id")+".ref"]
			host, file, ok := strings.Cut(ref, ":")
			if !ok || host != "master-1" {
				return "", fmt.Errorf("kubeconfig.admin ref %q, want master-1:<path>", ref)
			}
			return onHost(t, c, host, "sudo cat -- "+shellWord(file)), nil
		}
		return "", fmt.Errorf("no kubeconfig.admin artifact in state")
	}
	tier := func(want string) resource.TestCheckFunc {
		return func(*terraform.State) error {
			if got := onHost(t, c, "master-1", kubectl+"get node worker-1 -o jsonpath='{.metadata.labels.tier}'"); got != want {
				return fmt.Errorf("kubectl reads tier=%q on worker-1, want %q", got, want)
			}
			return nil
		}
	}
	drift := func() { onHost(t, c, "master-1", kubectl+"label node worker-1 --overwrite tier=drifted") }
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				// expose_kubeconfig unset (false): no kubeconfig in state.
				Config: cluster(prov, ""),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(addr, "operation.status", "Completed"),
					resource.TestCheckResourceAttr(addr, "expose_kubeconfig", "false"),
					resource.TestCheckNoResourceAttr(addr, "kubeconfig"),
					tier("app"),
				),
			},
			{
				// An actor without a role of the kubeconfig's
				// visible_to_roles is refused at plan.
				Config:   cluster(noRoles, "  expose_kubeconfig = true"),
				PlanOnly: true,
				// The detail names the attribute once.
				ExpectError: regexp.MustCompile(`(?s)Artifact not visible to the actor.*expose_kubeconfig = true\n\s*\n\s*expose_kubeconfig: artifact kubeconfig\.admin\s+is\s+visible\s+to\s+the\s+roles\s+"platform_admin",\s+"sre"\s+only,\s+and\s+actor\s+"ci"\s+holds\s+none`),
			},
			{
				// true: the admin kubeconfig itself, in the sensitive
				// attribute; nothing runs on the hosts for it.
				Config: cluster(prov, "  expose_kubeconfig = true"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
					plancheck.ExpectSensitiveValue(addr, tfjsonpath.New("kubeconfig")),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(addr, "operation.action", "create"),
					func(s *terraform.State) error {
						want, err := adminKubeconfig(s)
						if err != nil {
							return err
						}
						got := s.RootModule().Resources[addr].Primary.Attributes["kubeconfig"]
						if got == "" || got != want || !strings.Contains(got, "kind: Config") {
							return fmt.Errorf("kubeconfig in state (%d bytes) is not the admin kubeconfig on master-1 (%d bytes)", len(got), len(want))
						}
						return nil
					},
				),
			},
			{
				// false again: gone from state.
				Config: cluster(prov, "  expose_kubeconfig = false"),
				Check:  resource.TestCheckNoResourceAttr(addr, "kubeconfig"),
			},
			{
				// refresh_health on (default): a managed label changed on
				// the API server is read back and put back.
				PreConfig: drift,
				Config:    cluster(prov, ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(addr, "operation.action", "relabel"),
					tier("app"),
				),
			},
			{
				Config: cluster(prov, "  refresh_health = false"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
				}},
				Check: resource.TestCheckResourceAttr(addr, "operation.action", "relabel"),
			},
			{
				// refresh_health off: the same change is not read, so
				// nothing is planned and the label stays as changed.
				PreConfig: drift,
				Config:    cluster(prov, "  refresh_health = false"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionNoop),
				}},
				Check: tier("drifted"),
			},
		},
	})
}
