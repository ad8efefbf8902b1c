package provider

import (
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// cp_plan's targets are the hosts the target_nodes jobs expand over: a
// remove_node targeting worker-2 drains worker-2, and no other worker;
// a target that is not one of the hosts is refused.
func TestAccPlanDataSource_targets(t *testing.T) {
	addr := "data.cp_plan.cluster"
	plan := func(targets string) string {
		return `
data "cp_plan" "cluster" {
  pack   = "kubernetes"
  action = "remove_node"
  name   = "prod-k8s"
  hosts = concat(
    [{ name = "master-1", address = "10.0.0.1", role = "master" }],
    [for i in range(1, 4) : { name = "worker-${i}", address = "10.0.1.${i}", role = "worker" }],
  )
  targets            = ` + targets + `
  state_artifacts    = [{ id = "kubeconfig.admin" }]
  state_capabilities = ["kubernetes.api"]
}

output "drains" {
  value = join(",", sort([for k in keys(data.cp_plan.cluster.planned_instances) : k if length(regexall("^drain-node", k)) > 0]))
}
`
	}
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: plan(`["worker-2"]`),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("planned_instances").AtMapKey("drain-node[worker-2]").AtMapKey("host"), knownvalue.StringExact("worker-2")),
			},
			Check: resource.TestCheckOutput("drains", "drain-node[worker-2]"),
		}, {
			Config:      plan(`["worker-9"]`),
			ExpectError: regexp.MustCompile(`worker-9`),
		}},
	})
}
