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
		{"environment", `environment = "Prod!"`, `(?s)environment: "Prod!" must start with a\s+lower-case letter`},
		{"parallelism", `parallelism = 0`, `(?s)parallelism: is 0; set a value between 1 and\s+1000`},
		{"per host", `per_host_parallelism = 100`, `(?s)per_host_parallelism: is 100; set a value\s+between 1 and\s+64`},
		{"host key checking", `ssh = { host_key_checking = "no" }`, `(?s)ssh.host_key_checking: "no" is not a mode; use\s+"strict"`},
		{"ssh timeout", `ssh = { timeout = "soon" }`, `(?s)ssh.timeout: "soon" is not a positive\s+duration`},
		{"ssh port", `ssh = { port = 70000 }`, `(?s)ssh.port: 70000 is not between 1 and\s+65535`},
		{"default provider", `capability_policy = {
  "object_storage.s3" = { environments = { stage = { allowed_providers = ["shared_minio"], default_provider = "aws_s3" } } }
}`, `(?s)capability_policy\["object_storage.s3"\].environments\["stage"\].default_provider:\s+"aws_s3" is not one of allowed_providers`},
		{"no allowed providers", `capability_policy = {
  "object_storage.s3" = { environments = { prod = { allowed_providers = [] } } }
}`, `(?s)allowed_providers.*allows no provider`},
		{"missing pack dir", `pack_dirs = ["/nonexistent/packs"]`, `(?s)pack_dirs\[0\]: .*nonexistent`},
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
