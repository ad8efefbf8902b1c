package provider

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/intentops/terraform-provider-cp/internal/hostsim"
	"github.com/intentops/terraform-provider-cp/internal/testhosts"
)

// Removing a worker through OpenTofu (remove_node) whose drain a
// PodDisruptionBudget blocks: after drain_timeout the apply fails naming
// the node and the pods, nothing after the drain runs (the node is still
// registered), and the node is schedulable again rather than left
// cordoned by the failed removal. With the budget gone the same apply
// drains, deletes and resets it.
func TestAccRemoveNode_drainBlockedUncordons(t *testing.T) {
	testAccPreCheck(t)
	c := accHosts(t, "rm-drain", "master-1", "worker-1")
	prov := accProvider(c, "")
	cluster := func(workers string, approvals string) string {
		return fmt.Sprintf(`
resource "cp_kubernetes_cluster" "k" {
  name           = "rm-drain"
  storage        = "none"
  refresh_health = false
  masters        = %s
  workers        = %s
  parameters     = { drain_timeout = "6s" }
  approvals      = [%s{ gate = "confirm-cluster-deletion", option = "delete cluster" }]
}
`, nodesHCL(c, "master-1"), workers, approvals)
	}
	both := cluster(nodesHCL(c, "worker-1"), "")
	removed := cluster("[]", `{ gate = "confirm-node-removal", option = "remove node" }, `)
	registered := func(want bool) resource.TestCheckFunc {
		return func(*terraform.State) error { return simRegistered(c, "worker-1", want) }
	}
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: prov + both},
			{
				PreConfig: func() {
					onHost(t, c, "master-1", "cat > /tmp/web.yaml <<'EOF'\n"+day2Web+"EOF\n"+day2Kubectl+"apply -f /tmp/web.yaml")
				},
				Config: prov + removed,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue("cp_kubernetes_cluster.k", tfjsonpath.New("plan"), knownvalue.StringRegexp(regexp.MustCompile(`(?m)^  - drain-node: worker-1$`))),
				}},
				ExpectError: regexp.MustCompile(`(?s)drain-node on worker-1: a PodDisruptionBudget allows no\s+eviction of\s+default/web-[a-z0-9-]+,\s+default/web-[a-z0-9-]+\s+from\s+node\s+worker-1\s+within\s+drain_timeout\s+6s.*Node\s+worker-1\s+was\s+uncordoned\s+again,\s+takes\s+pods\s+and\s+is\s+not\s+removed`),
			},
			{
				// The failed removal left worker-1 registered and
				// schedulable; without the budget the same apply removes it.
				PreConfig: func() {
					if err := simRegistered(c, "worker-1", true); err != nil {
						t.Fatalf("after the blocked drain: %v", err)
					}
					if err := simUnschedulable(c, "worker-1", false); err != nil {
						t.Fatalf("after the blocked drain: %v", err)
					}
					onHost(t, c, "master-1", day2Kubectl+"delete poddisruptionbudget web-pdb")
				},
				Config: prov + removed,
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("cp_kubernetes_cluster.k", "operation.action", "remove_node"),
					resource.TestCheckResourceAttr("cp_kubernetes_cluster.k", "operation.status", "Completed"),
					registered(false),
				),
			},
		},
	})
}

// simRegistered checks whether a node is registered in the simulator's API
// state.
func simRegistered(c *testhosts.Cluster, name string, want bool) error {
	st, err := hostsim.ReadState(c.SimulatorStateDir())
	if err != nil {
		return err
	}
	if got := st.Nodes[name] != nil; got != want {
		return fmt.Errorf("node %s registered = %v, want %v", name, got, want)
	}
	return nil
}
