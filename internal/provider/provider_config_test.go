package provider

import (
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// Each bad provider configuration fails with the attribute path and a fix.
func TestAccProvider_invalidConfig(t *testing.T) {
	cases := []struct {
		name   string
		config string
		want   string
	}{
		{"environment", `environment = "Prod!"`, `(?s)environment.*must start with a lower-case letter`},
		{"parallelism", `parallelism = 0`, `(?s)parallelism.*between 1 and 1000`},
		{"per host", `per_host_parallelism = 100`, `(?s)per_host_parallelism.*between 1 and 64`},
		{"host key checking", `ssh = { host_key_checking = "no" }`, `(?s)ssh.host_key_checking.*"strict" \(default\) or "accept-new"`},
		{"ssh timeout", `ssh = { timeout = "soon" }`, `(?s)ssh.timeout.*positive duration`},
		{"ssh port", `ssh = { port = 70000 }`, `(?s)ssh.port.*between 1 and 65535`},
		{"default provider", `capability_policy = {
  "object_storage.s3" = { environments = { stage = { allowed_providers = ["shared_minio"], default_provider = "aws_s3" } } }
}`, `(?s)capability_policy\["object_storage.s3"\].environments\["stage"\].default_provider.*not one of allowed_providers`},
		{"no allowed providers", `capability_policy = {
  "object_storage.s3" = { environments = { prod = { allowed_providers = [] } } }
}`, `(?s)allowed_providers.*allows no provider`},
		{"missing pack dir", `pack_dirs = ["/nonexistent/packs"]`, `(?s)pack_dirs\[0\].*nonexistent`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resource.Test(t, resource.TestCase{
				PreCheck:                 func() { testAccPreCheck(t) },
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps: []resource.TestStep{{
					Config: "provider \"cp\" {\n" + tc.config + "\n}\n" + `
data "cp_scenario_pack" "k" {
  id = "kubernetes"
}
`,
					ExpectError: regexp.MustCompile(tc.want),
				}},
			})
		})
	}
}
