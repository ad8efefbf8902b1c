package provider

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

const clusterPlanHCL = `
data "cp_plan" "cluster" {
  pack   = "kubernetes"
  action = "create"
  name   = "prod-k8s"
  hosts = concat(
    [for i in range(1, 4) : { name = "master-${i}", address = "10.0.0.${i}", role = "master" }],
    [for i in range(1, 6) : { name = "worker-${i}", address = "10.0.1.${i}", role = "worker" }],
  )
  parameters  = { cni = "calico", container_runtime = "containerd", storage = "longhorn", registry_mirrors = "https://mirror.internal.example" }
  constraints = { region = "eu-central", require_ha_control_plane = "true" }
%s
}
`

func clusterPlan(extra string) string {
	return "provider \"cp\" {\n  environment = \"prod\"\n}\n" + sprintf(clusterPlanHCL, extra)
}

func TestAccPlanDataSource_clusterCreate(t *testing.T) {
	addr := "data.cp_plan.cluster"
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: clusterPlan("") + `
output "join_w3_needs" {
  value = join(",", [for i in data.cp_plan.cluster.instances : join(",", i.needs) if i.id == "join-workers[worker-3]"])
}
output "stages" {
  value = length(distinct([for i in data.cp_plan.cluster.instances : i.stage]))
}
`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("display"), knownvalue.StringExact("kubernetes.create@1.0.0")),
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("customized"), knownvalue.Bool(false)),
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("summary"), knownvalue.StringRegexp(regexp.MustCompile(`(?s)Install runtime: 16 jobs.*Join workers: \d+ jobs`))),
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("mermaid"), knownvalue.StringRegexp(regexp.MustCompile(`^flowchart TB`))),
			},
			Check: resource.ComposeAggregateTestCheckFunc(
				// Edges from contracts, matched per scope: worker-3 waits for its own runtime, not every host's.
				resource.TestMatchOutput("join_w3_needs", regexp.MustCompile(`worker-3\]`)),
				onlyWorker3Needs,
				resource.TestCheckOutput("stages", "10"),
			),
		}},
	})
}

// The patch sets no risk, so it takes the kubernetes pack's
// risk.default_level, high: it is approved by the provider's actor, alice,
// who holds its role sre, and the plan's changes show its risk.
func TestAccPlanDataSource_customizedAndPatched(t *testing.T) {
	addr := "data.cp_plan.cluster"
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: "provider \"cp\" {\n  environment = \"prod\"\n  actor       = \"alice\"\n  actor_roles = [\"sre\"]\n}\n" + sprintf(clusterPlanHCL, `
  customizations = {
    base_template = "kubernetes.create@1.0.0"
    changes = [
      { inserted = "configure-registry-mirror", after = "install-container-runtime" },
      { inserted = "pre-pull-images", after = "configure-registry-mirror" },
      { removed = "install-storage" },
    ]
  }
  plan_patches = [{
    author = "ai-agent:sre"
    reason = "Nodes cannot pull images from the default registry."
    changes = [
      {
        insert_after = "install-container-runtime"
        jobs         = ["configure-containerd-registry-mirror", "restart-containerd", "pre-pull-kubernetes-images"]
        parameters   = { registry_mirrors = "https://mirror.internal.example" }
      },
      { retry = "init-control-plane" },
    ]
    approval = { required = true, roles = ["sre"], approved_by = "alice" }
  }]
`),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("display"), knownvalue.StringExact("kubernetes.create@1.0.0 customized")),
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("advanced"), knownvalue.StringRegexp(regexp.MustCompile(`(?s)configure-containerd-registry-mirror\[master-1\].*origin: patch`))),
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("changes"), knownvalue.ListPartial(map[int]knownvalue.Check{
					0: knownvalue.StringRegexp(regexp.MustCompile(`inserted configure-registry-mirror after install-container-runtime`)),
					3: knownvalue.StringExact("patch by ai-agent:sre (risk high): inserted configure-containerd-registry-mirror after install-container-runtime"),
				})),
			},
		}},
	})
}

func TestAccPlanDataSource_tempoStageAndProd(t *testing.T) {
	tempo := `
data "cp_plan" "tempo" {
  pack        = "tempo"
  action      = "install"
  name        = "tracing"
  environment = %q
  hosts       = [{ name = "master-1", address = "10.0.0.1", role = "master" }]
  constraints = { region = "eu-central" }
  candidates = [
    { name = "prod-k8s", provider = "cp_kubernetes_cluster", capability = "kubernetes.cluster" },
    { name = "k8s-secrets", provider = "kubernetes_secrets", capability = "secret.store" },
  ]
  state_artifacts = [{ id = "kubeconfig.admin" }]
}
`
	policy := `
provider "cp" {
  capability_policy = {
    "object_storage.s3" = {
      environments = {
        stage = { allowed_providers = ["shared_minio", "dedicated_minio"], default_provider = "shared_minio" }
        prod  = { allowed_providers = ["aws_s3", "dedicated_minio"], require_encryption = true, require_approval = true, approval_roles = ["sre", "platform_admin"] }
      }
    }
  }
}
`
	addr := "data.cp_plan.tempo"
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: policy + sprintf(tempo, "stage"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("sub_operations").AtSliceIndex(0).AtMapKey("pack"), knownvalue.StringExact("minio@1.0.0")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("gates"), knownvalue.ListSizeExact(0)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("advanced"), knownvalue.StringRegexp(regexp.MustCompile(`(?s)minio/install-minio.*create-bucket-and-credentials.*deploy-tempo.*verify-ingestion-and-query`))),
				},
			},
			{
				Config: policy + sprintf(tempo, "prod"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("gates").AtSliceIndex(0).AtMapKey("type"), knownvalue.StringExact("approval")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("gates").AtSliceIndex(0).AtMapKey("required_roles"),
						knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("sre"), knownvalue.StringExact("platform_admin")})),
				},
			},
		},
	})
}

// Plan-time errors name the attribute path that caused them.
func TestAccPlanDataSource_errors(t *testing.T) {
	cases := []struct {
		name  string
		extra string
		want  string
	}{
		{"unknown job in customization", `
  customizations = { changes = [{ inserted = "make-coffee", after = "install-container-runtime" }] }`,
			`(?s)Invalid plan edit.*customizations.changes\[0\]: .*make-coffee`},
		{"removed producer", `
  customizations = { changes = [{ removed = "init-control-plane" }] }`,
			`(?s)Invalid plan edit.*customizations.changes\[0\]: .*init-control-plane.*(required|requires|needed)`},
		{"cycle", `
  customizations = { changes = [
    { inserted = "pre-pull-images", after = "install-container-runtime" },
    { inserted = "generate-join-token", after = "join-workers" },
  ] }`,
			`(?s)The plan has a cycle.*customizations.changes\[1\]: .*cycle:\s.*->`},
		{"unapproved patch", `
  plan_patches = [{
    author  = "ai-agent:sre"
    reason  = "mirror"
    changes = [{ retry = "init-control-plane" }]
    approval = { required = true, roles = ["sre"] }
  }]`,
			`(?s)Plan patch not approved.*plan_patches\[0\]: `},
		{"high-risk patch from the pack's default, not approved", `
  plan_patches = [{
    author  = "ai-agent:sre"
    reason  = "retry"
    changes = [{ retry = "init-control-plane" }]
  }]`,
			`(?s)High-risk plan patch not approved.*plan_patches\[0\]: plan patch #1 needs an approval because it\s+sets\s+no\s+risk\s+and\s+pack\s+kubernetes@1.0.0\s+has\s+risk.default_level\s+high`},
		{"patch risk not a level", `
  plan_patches = [{
    author  = "ai-agent:sre"
    reason  = "retry"
    risk    = "severe"
    changes = [{ retry = "init-control-plane" }]
  }]`,
			`(?s)Invalid risk level.*plan_patches\[0\].risk: plan patch #1 has risk "severe"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resource.Test(t, resource.TestCase{
				PreCheck:                 func() { testAccPreCheck(t) },
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps:                    []resource.TestStep{{Config: clusterPlan(tc.extra), ExpectError: regexp.MustCompile(tc.want)}},
			})
		})
	}
}

func TestAccPlanDataSource_unsatisfiable(t *testing.T) {
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: `
provider "cp" {
  environment = "prod"
  capability_policy = {
    "object_storage.s3" = { environments = { prod = { allowed_providers = ["aws_s3"] } } }
  }
}
data "cp_plan" "tempo" {
  pack   = "tempo"
  action = "install"
  name   = "tracing"
  hosts  = [{ name = "master-1", address = "10.0.0.1", role = "master" }]
  candidates = [
    { name = "prod-k8s", provider = "cp_kubernetes_cluster", capability = "kubernetes.cluster" },
    { name = "k8s-secrets", provider = "kubernetes_secrets", capability = "secret.store" },
  ]
}
`,
			ExpectError: regexp.MustCompile(`(?s)Unsatisfiable requirement.*candidates: .*object_storage.s3`),
		}},
	})
}

// onlyWorker3Needs checks that join-workers[worker-3] waits for no other
// worker's instances: edges are matched per host, not per stage.
func onlyWorker3Needs(s *terraform.State) error {
	out, ok := s.RootModule().Outputs["join_w3_needs"]
	if !ok {
		return fmt.Errorf("output join_w3_needs is missing")
	}
	needs, _ := out.Value.(string)
	for _, n := range strings.Split(needs, ",") {
		if strings.Contains(n, "[worker-") && !strings.Contains(n, "[worker-3]") {
			return fmt.Errorf("join-workers[worker-3] needs %s, an instance of another worker; got: %s", n, needs)
		}
	}
	return nil
}

// cp_plan's planned_instances is the per-instance DAG keyed by instance id,
// the same map the resources show; digest is its digest.
func TestAccPlanDataSource_plannedInstances(t *testing.T) {
	addr := "data.cp_plan.cluster"
	w3 := tfjsonpath.New("planned_instances").AtMapKey("join-workers[worker-3]")
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: clusterPlan("") + `
output "instances" {
  value = length(data.cp_plan.cluster.planned_instances)
}
output "listed" {
  value = length(data.cp_plan.cluster.instances)
}
output "w3_needs" {
  value = join(",", data.cp_plan.cluster.planned_instances["join-workers[worker-3]"].needs)
}
`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(addr, w3.AtMapKey("job"), knownvalue.StringExact("join-workers")),
				statecheck.ExpectKnownValue(addr, w3.AtMapKey("host"), knownvalue.StringExact("worker-3")),
				statecheck.ExpectKnownValue(addr, w3.AtMapKey("stage"), knownvalue.StringExact("join-workers")),
				statecheck.ExpectKnownValue(addr, w3.AtMapKey("status"), knownvalue.StringExact("will run")),
				statecheck.ExpectKnownValue(addr, w3.AtMapKey("idempotency_key"), knownvalue.StringRegexp(regexp.MustCompile(`worker-3`))),
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("planned_instances").AtMapKey("label-node[worker-3]").AtMapKey("run_on"), knownvalue.StringExact("master-1")),
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("digest"), knownvalue.StringRegexp(regexp.MustCompile(`^sha256:[0-9a-f]{64}$`))),
			},
			Check: resource.ComposeAggregateTestCheckFunc(
				// Needs are matched per host: worker-3's own, no other worker's.
				func(s *terraform.State) error {
					needs := fmt.Sprint(s.RootModule().Outputs["w3_needs"].Value)
					if m := regexp.MustCompile(`worker-[0-9]+`).FindAllString(needs, -1); len(m) == 0 || strings.Join(m, ",") != strings.Repeat("worker-3,", len(m)-1)+"worker-3" {
						return fmt.Errorf("join-workers[worker-3] needs %s, want worker-3's own instances only", needs)
					}
					return nil
				},
				resource.TestMatchOutput("w3_needs", regexp.MustCompile(`install-kubernetes-packages\[worker-3\]`)),
				// Every instance of the list is a key of the map.
				func(s *terraform.State) error {
					out := s.RootModule().Outputs
					if out["instances"].Value != out["listed"].Value {
						return fmt.Errorf("planned_instances has %v entries, instances %v", out["instances"].Value, out["listed"].Value)
					}
					return nil
				},
			),
		}},
	})
}
