package provider

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

func clusterHCL(masters, workers, extra string) string {
	return fmt.Sprintf(`
resource "cp_kubernetes_cluster" "prod" {
  name                     = "prod-k8s"
  region                   = "eu-central"
  require_ha_control_plane = true
  cni                      = "calico"
  container_runtime        = "containerd"
  storage                  = "longhorn"
  parameters               = { control_plane_endpoint = %q }
  masters                  = %s
  workers                  = %s
  %s
}
`, firstAddress(masters)+":6443", masters, workers, extra)
}

var addressRE = regexp.MustCompile(`address\s*=\s*"([^"]+)"`)

// firstAddress is the first address in a hosts list's HCL: the first
// master's, which the test hosts' simulated API server answers on as the
// control-plane endpoint (a load balancer in a real deployment).
func firstAddress(hostsHCL string) string {
	if m := addressRE.FindStringSubmatch(hostsHCL); m != nil {
		return m[1]
	}
	return ""
}

// Seed scenario 1 through OpenTofu against real SSH test hosts: create ->
// empty plan -> add a worker -> remove it behind the destructive gate ->
// upgrade -> import by a master's address (verified against the state).
// Importing into a fresh state and planning nothing is covered through the
// CLI in TestAccKubernetesCluster_killedApplyResumesAndKeepsSecrets.
func TestAccKubernetesCluster_lifecycle(t *testing.T) {
	testAccPreCheck(t)
	c := accHosts(t, "prod-k8s", "master-1", "master-2", "master-3", "worker-1", "worker-2", "worker-3", "worker-4", "worker-5", "worker-6")
	prov := accProvider(c, "")
	masters := nodesHCL(c, "master-1", "master-2", "master-3")
	five := nodesHCL(c, "worker-1", "worker-2", "worker-3", "worker-4", "worker-5")
	six := nodesHCL(c, "worker-1", "worker-2", "worker-3", "worker-4", "worker-5", "worker-6")
	m1, _ := c.Host("master-1")
	addr := "cp_kubernetes_cluster.prod"
	status := func(want string) statecheck.StateCheck {
		return statecheck.ExpectKnownValue(addr, tfjsonpath.New("operation").AtMapKey("status"), knownvalue.StringExact(want))
	}
	// Created one minor below the default, then upgraded to it.
	created := "\n  kubernetes_version = \"1.33.6\""
	upgraded := `kubernetes_version = "1.34.2"`
	deletion := `approvals = [{ gate = "confirm-cluster-deletion", option = "delete cluster" }]`
	removal := `approvals = [{ gate = "confirm-node-removal", option = "remove node" }, { gate = "approve-upgrade", option = "upgrade" }, { gate = "confirm-cluster-deletion", option = "delete cluster" }]`
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: prov + clusterHCL(masters, five, deletion+created),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionCreate),
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("plan_summary"), knownvalue.StringRegexp(regexp.MustCompile(`(?s)kubernetes.create@1.0.0.*Join workers`))),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					status("Completed"),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("operation").AtMapKey("phases_done"), knownvalue.Int64Exact(10)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("health"), knownvalue.StringExact("healthy")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("api_endpoint"), knownvalue.StringExact("https://"+m1.Addr+":6443")),
					statecheck.ExpectIdentity(addr, map[string]knownvalue.Check{
						"name": knownvalue.StringExact("prod-k8s"), "address": knownvalue.StringExact(m1.Addr), "port": knownvalue.Null(),
					}),
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					// The kubeconfig is kept by reference, never by value.
					resource.TestCheckTypeSetElemNestedAttrs(addr, "artifacts.*", map[string]string{"id": "kubeconfig.admin", "sensitivity": "secret", "value": ""}),
					resource.TestMatchTypeSetElemNestedAttrs(addr, "artifacts.*", map[string]*regexp.Regexp{"id": regexp.MustCompile(`^kubeconfig\.admin$`), "ref": regexp.MustCompile(`^master-1:/`)}),
					resource.TestMatchTypeSetElemNestedAttrs(addr, "evidence.*", map[string]*regexp.Regexp{"instance": regexp.MustCompile(`^verify-cluster`), "passed": regexp.MustCompile(`^true$`)}),
					resource.TestCheckNoResourceAttr(addr, "kubeconfig"),
				),
			},
			{
				// Adding a worker plans add_node for just that host.
				Config: prov + clusterHCL(masters, six, deletion+created),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("plan_summary"), knownvalue.StringRegexp(regexp.MustCompile(`kubernetes.add_node@1.0.0`))),
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("plan"), knownvalue.StringRegexp(regexp.MustCompile(`(?m)^  - join-worker: worker-6$`))),
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("planned_instances").AtMapKey("join-worker[worker-6]").AtMapKey("host"), knownvalue.StringExact("worker-6")),
				}},
				ConfigStateChecks: []statecheck.StateCheck{status("Completed")},
				Check:             resource.TestCheckResourceAttr(addr, "operation.action", "add_node"),
			},
			{
				// Removing it plans remove_node behind the destructive gate, approved in HCL.
				Config: prov + clusterHCL(masters, five, removal+created),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("plan"), knownvalue.StringRegexp(regexp.MustCompile(`(?s)confirm-node-removal \(destructive\): approved by ci with option "remove node".*- drain-node: worker-6\n`))),
				}},
				ConfigStateChecks: []statecheck.StateCheck{status("Completed")},
				Check:             resource.TestCheckResourceAttr(addr, "operation.action", "remove_node"),
			},
			{
				// A version change plans a rolling upgrade.
				Config: prov + clusterHCL(masters, five, removal+"\n  "+upgraded),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("plan_summary"), knownvalue.StringRegexp(regexp.MustCompile(`kubernetes.upgrade@1.0.0`))),
				}},
				ConfigStateChecks: []statecheck.StateCheck{status("Completed")},
				Check:             resource.TestCheckResourceAttr(addr, "operation.action", "upgrade"),
			},
			{
				ResourceName:                         addr,
				ImportState:                          true,
				ImportStateId:                        "prod-k8s@" + m1.Addr,
				ImportStateVerify:                    true,
				ImportStateVerifyIdentifierAttribute: "name",
				ImportStateVerifyIgnore: []string{"plan_summary", "plan", "planned_instances", "plan_digest", "operation", "evidence", "capabilities", "nodes",
					"health", "timeouts", "approvals", "handle", "artifacts"},
			},
			{
				// Import by identity in an import block (OpenTofu 1.12): the
				// approvals, which the record does not keep, are an update.
				Config:             prov + clusterHCL(masters, five, removal+"\n  "+upgraded),
				ResourceName:       addr,
				ImportState:        true,
				ImportStateKind:    resource.ImportBlockWithResourceIdentity,
				ExpectNonEmptyPlan: true,
			},
			{
				// Approving the deletion gate changes no intent: nothing runs.
				Config: prov + clusterHCL(masters, five, upgraded+"\n  "+deletion),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("operation").AtMapKey("status"), knownvalue.StringExact("Completed")),
				}},
			},
		},
	})
}
