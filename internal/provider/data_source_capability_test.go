package provider

import (
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

const policyHCL = `
provider "cp" {
  environment = "prod"
  capability_policy = {
    "object_storage.s3" = {
      environments = {
        stage = { allowed_providers = ["shared_minio", "dedicated_minio"], default_provider = "shared_minio" }
        prod  = { allowed_providers = ["aws_s3", "dedicated_minio"], require_encryption = true, require_approval = true }
      }
    }
  }
}
`

func TestAccCapabilityDataSource(t *testing.T) {
	addr := "data.cp_capability.s3"
	candidates := `
  candidates = [
    { name = "archive", provider = "aws_s3", capability = "object_storage.s3", attributes = { region = "eu-west", encryption = "true", capacity_gb = "2000" } },
    { name = "traces", provider = "aws_s3", capability = "object_storage.s3", attributes = { region = "eu-central", encryption = "true", capacity_gb = "1000" } },
    { name = "plain", provider = "aws_s3", capability = "object_storage.s3", attributes = { region = "eu-central", encryption = "false", capacity_gb = "1000" } },
  ]`
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: policyHCL + `
data "cp_capability" "s3" {
  capability  = "object_storage.s3"
  constraints = { region = "same-as-workload", min_capacity_gb = "500" }
  workload    = { region = "eu-central" }
` + candidates + `
}`,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("decision"), knownvalue.StringExact("bind")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("binding").AtMapKey("region"), knownvalue.StringExact("eu-central")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("considered").AtSliceIndex(0).AtMapKey("reasons").AtSliceIndex(0),
						knownvalue.StringRegexp(regexp.MustCompile(`rejected: .*eu-west`))),
				},
			},
			{
				// No candidate in stage: the default shared provider is not creatable, dedicated MinIO is.
				Config: policyHCL + `
data "cp_capability" "s3" {
  capability  = "object_storage.s3"
  environment = "stage"
}`,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("decision"), knownvalue.StringExact("create")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("create_pack"), knownvalue.StringExact("minio install")),
				},
			},
			{
				// Prod requires approval to create a provider.
				Config: policyHCL + `
data "cp_capability" "s3" {
  capability = "object_storage.s3"
}`,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("decision"), knownvalue.StringExact("gate")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("gate").AtMapKey("type"), knownvalue.StringExact("approval")),
				},
			},
			{
				Config: policyHCL + `
data "cp_capability" "s3" {
  capability  = "object_storage.glacier"
  constraints = { min_capacity_gb = "5000" }
` + candidates + `
}`,
				ExpectError: regexp.MustCompile(`(?s)Unsatisfiable requirement.*candidates: .*object_storage.glacier`),
			},
		},
	})
}
