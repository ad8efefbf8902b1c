package provider

import (
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

const s3Policy = `
  capability_policy = {
    "object_storage.s3" = {
      environments = {
        stage = { allowed_providers = ["shared_minio", "dedicated_minio"], default_provider = "shared_minio" }
        prod  = { allowed_providers = ["aws_s3", "dedicated_minio"], require_approval = true, approval_roles = ["sre", "platform_admin"] }
      }
    }
  }`

// smallCluster has Longhorn: the MinIO that Tempo's tests create needs a
// StorageClass for its volume, as on a real cluster.
func smallCluster(masters, workers string) string {
	return `
resource "cp_kubernetes_cluster" "small" {
  name    = "small"
  storage = "longhorn"
  approvals = [{ gate = "confirm-cluster-deletion", option = "delete cluster" }]
  masters = ` + masters + `
  workers = ` + workers + `
}
`
}

// Seed scenario 3: in stage an absent S3 is created as a MinIO
// sub-operation; in prod the same intent stops at an approval gate with
// instructions, and proceeds once approved in HCL.
func TestAccTempo_stageAndProd(t *testing.T) {
	testAccPreCheck(t)
	c := accHosts(t, "small", "master-1", "worker-1")
	m1, _ := c.Host("master-1")
	prov := accProvider(c, s3Policy)
	cluster := smallCluster(nodesHCL(c, "master-1"), nodesHCL(c, "worker-1"))
	stage := `
resource "cp_tempo" "stage" {
  name           = "tracing-stage"
  environment    = "stage"
  cluster_handle = cp_kubernetes_cluster.small.handle
  parameters     = { namespace = "tracing-stage" }
  approvals      = [{ gate = "confirm-tempo-uninstall", option = "uninstall" }]
}
`
	prod := func(extra string) string {
		return `
resource "cp_tempo" "prod" {
  name           = "tracing-prod"
  environment    = "prod"
  cluster_handle = cp_kubernetes_cluster.small.handle
  parameters     = { namespace = "tracing-prod" }
  ` + extra + `
}
`
	}
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: prov + cluster + stage,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("cp_tempo.stage", tfjsonpath.New("operation").AtMapKey("status"), knownvalue.StringExact("Completed")),
					statecheck.ExpectKnownValue("cp_tempo.stage", tfjsonpath.New("plan"), knownvalue.StringRegexp(regexp.MustCompile(`(?s)Sub-operations:.*minio.*minio/install-minio.*deploy-tempo`))),
					statecheck.ExpectKnownValue("cp_tempo.stage", tfjsonpath.New("capabilities").AtSliceIndex(0).AtMapKey("key"), knownvalue.StringExact("observability.tracing")),
				},
			},
			// Import by a master's address and Tempo's name: the record
			// cp keeps on the masters is the state.
			importVerifyStep("cp_tempo.stage", "tracing-stage@"+m1.Addr),
			{
				ResourceName:  "cp_tempo.stage",
				ImportState:   true,
				ImportStateId: "tracing-none@" + m1.Addr,
				ExpectError:   regexp.MustCompile(`(?s)Cannot import tempo.*keeps no record of tempo tempo/tracing-none`),
			},
			{
				Config:      prov + cluster + stage + prod(""),
				ExpectError: regexp.MustCompile(`(?s)stopped at a gate.*approve-dedicated-minio.*required roles: sre, platform_admin.*approvals = \[\{ gate = "approve-dedicated-minio"`),
			},
			{
				Config: prov + cluster + stage + prod(`approvals = [{ gate = "approve-dedicated-minio", option = "create dedicated_minio" }, { gate = "confirm-tempo-uninstall", option = "uninstall" }]`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue("cp_tempo.prod", tfjsonpath.New("plan"), knownvalue.StringRegexp(regexp.MustCompile(`approve-dedicated-minio`))),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("cp_tempo.prod", tfjsonpath.New("operation").AtMapKey("status"), knownvalue.StringExact("Completed")),
				},
			},
		},
	})
}

// Seed scenario 2 through cp_node: add one worker against the cluster's
// handle; destroy removes it behind the approved destructive gate.
func TestAccNode_addAndRemove(t *testing.T) {
	testAccPreCheck(t)
	c := accHosts(t, "small", "master-1", "worker-1", "worker-2")
	w2, _ := c.Host("worker-2")
	prov := accProvider(c, "")
	cluster := smallCluster(nodesHCL(c, "master-1"), nodesHCL(c, "worker-1"))
	node := `
resource "cp_node" "w2" {
  cluster_handle = cp_kubernetes_cluster.small.handle
  node           = { name = "worker-2", address = "` + w2.Addr + `" }
  approvals      = [{ gate = "confirm-node-removal", option = "remove node" }]
}
`
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: prov + cluster},
			{
				Config: prov + cluster + node,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue("cp_node.w2", tfjsonpath.New("plan_summary"), knownvalue.StringRegexp(regexp.MustCompile(`kubernetes.add_node@1.0.0`))),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("cp_node.w2", tfjsonpath.New("operation").AtMapKey("status"), knownvalue.StringExact("Completed")),
					statecheck.ExpectKnownValue("cp_node.w2", tfjsonpath.New("id"), knownvalue.StringExact("small/worker-2")),
					statecheck.ExpectIdentity("cp_node.w2", map[string]knownvalue.Check{
						"cluster": knownvalue.StringExact("small"), "name": knownvalue.StringExact("worker-2"),
						"address": knownvalue.StringExact(w2.Addr), "port": knownvalue.Null(),
					}),
				},
			},
			// Import by the node's address: the record cp keeps on the
			// node is the state.
			importVerifyStep("cp_node.w2", w2.Addr),
			{
				// Import by identity, in an import block (OpenTofu 1.12): the
				// plan imports the node and changes nothing.
				Config:          prov + cluster + node,
				ResourceName:    "cp_node.w2",
				ImportState:     true,
				ImportStateKind: resource.ImportBlockWithResourceIdentity,
			},
			{
				ResourceName:  "cp_node.w2",
				ImportState:   true,
				ImportStateId: "small/worker-9@" + w2.Addr,
				ExpectError:   regexp.MustCompile(`(?s)Cannot import node.*keeps no record of node small/worker-9`),
			},
			{
				// Destroying the node runs remove_node.
				Config: prov + cluster,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("cp_node.w2", plancheck.ResourceActionDestroy),
				}},
			},
		},
	})
}

// cp_scenario runs a pack action (PostgreSQL on the cluster, object
// storage optional and unbound), keeps its state on the masters and is
// imported by a master's address and its id; an id cp_scenario does not
// keep there is refused with the reason.
func TestAccScenario_importByAddress(t *testing.T) {
	testAccPreCheck(t)
	c := accHosts(t, "small", "master-1", "worker-1")
	m1, _ := c.Host("master-1")
	prov := accProvider(c, "")
	cluster := smallCluster(nodesHCL(c, "master-1"), nodesHCL(c, "worker-1"))
	scenario := `
resource "cp_scenario" "db" {
  pack           = "postgresql"
  name           = "orders"
  cluster_handle = cp_kubernetes_cluster.small.handle
  parameters     = { namespace = "orders" }
}
`
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: prov + cluster + scenario,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("cp_scenario.db", tfjsonpath.New("operation").AtMapKey("status"), knownvalue.StringExact("Completed")),
					statecheck.ExpectKnownValue("cp_scenario.db", tfjsonpath.New("id"), knownvalue.StringExact("postgresql/orders")),
				},
			},
			importVerifyStep("cp_scenario.db", "postgresql/orders@"+m1.Addr),
			// Only one scenario keeps a record there: the address alone
			// finds it.
			importVerifyStep("cp_scenario.db", m1.Addr),
			{
				ResourceName:  "cp_scenario.db",
				ImportState:   true,
				ImportStateId: "postgresql/orders@" + m1.Addr + ":0",
				ExpectError:   regexp.MustCompile(`(?s)Invalid import ID.*port "0" is not a number from 1 to 65535`),
			},
		},
	})
}
