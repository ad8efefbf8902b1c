package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

func TestAccScenarioPackDataSource_builtin(t *testing.T) {
	cases := []struct {
		id       string
		action   string
		requires []string
		provides string
	}{
		{"kubernetes", "create", nil, "kubernetes.cluster"},
		{"tempo", "install", []string{"kubernetes.cluster", "object_storage.s3", "secret.store"}, "observability.tracing"},
		{"minio", "install", nil, "object_storage.s3"},
		{"postgresql", "install", nil, "database.postgresql"},
	}
	var steps []resource.TestStep
	for _, tc := range cases {
		addr := "data.cp_scenario_pack." + tc.id
		checks := []statecheck.StateCheck{
			statecheck.ExpectKnownValue(addr, tfjsonpath.New("ref"), knownvalue.StringExact(tc.id+"@1.0.0")),
			statecheck.ExpectKnownValue(addr, tfjsonpath.New("source"), knownvalue.StringExact("builtin/"+tc.id)),
			statecheck.ExpectKnownValue(addr, tfjsonpath.New("provides").AtSliceIndex(0).AtMapKey("capability"), knownvalue.StringExact(tc.provides)),
			statecheck.ExpectKnownValue(addr, tfjsonpath.New("actions"), knownvalue.ListPartial(map[int]knownvalue.Check{0: knownvalue.StringExact(tc.action)})),
		}
		for i, r := range tc.requires {
			checks = append(checks, statecheck.ExpectKnownValue(addr, tfjsonpath.New("requires").AtSliceIndex(i).AtMapKey("capability"), knownvalue.StringExact(r)))
		}
		steps = append(steps, resource.TestStep{
			Config: providerBlock + fmt.Sprintf(`
data "cp_scenario_pack" %[1]q {
  id      = %[1]q
  version = ">= 1.0.0"
}
output "actions" {
  value = data.cp_scenario_pack.%[1]s.actions
}
output "first_template_action" {
  value = [for t in data.cp_scenario_pack.%[1]s.templates : t.action if t.action == %[2]q][0]
}
output "jobs_have_evidence" {
  value = alltrue([for j in data.cp_scenario_pack.%[1]s.jobs : length(j.evidence) > 0])
}
`, tc.id, tc.action),
			ConfigStateChecks: checks,
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckOutput("first_template_action", tc.action),
				resource.TestCheckOutput("jobs_have_evidence", "true"),
			),
		})
	}
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps:                    steps,
	})
}

func TestAccScenarioPackDataSource_kubernetesCreateHasTenStages(t *testing.T) {
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: providerBlock + `
data "cp_scenario_pack" "k8s" {
  id = "kubernetes"
}
output "create_stages" {
  value = length([for t in data.cp_scenario_pack.k8s.templates : t if t.action == "create"][0].stages)
}
`,
			Check: resource.TestCheckOutput("create_stages", "10"),
		}},
	})
}

func TestAccScenarioPackDataSource_unknownPack(t *testing.T) {
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: providerBlock + `
data "cp_scenario_pack" "nope" {
  id = "nope"
}
`,
			ExpectError: regexp.MustCompile(`(?s)Scenario pack not found.*nope`),
		}},
	})
}

// A bad user pack directory fails the provider configuration with the
// file, line and field of each problem.
func TestAccProvider_badPackDir(t *testing.T) {
	dir := t.TempDir()
	pack := filepath.Join(dir, "broken")
	must(t, os.MkdirAll(filepath.Join(pack, "templates"), 0o755))
	must(t, os.MkdirAll(filepath.Join(pack, "jobs"), 0o755))
	must(t, os.WriteFile(filepath.Join(pack, "pack.yaml"), []byte(`scenario_pack:
  id: broken
  version: 1.0.0
  resource_types: [broken.thing]
  actions: [install]
  plan_templates:
    - id: broken.install
      action: install
      entrypoint: do-it
      file: templates/install.yaml
`), 0o644))
	must(t, os.WriteFile(filepath.Join(pack, "templates", "install.yaml"), []byte(`plan_template:
  id: broken.install
  action: install
  title: Install
  stages:
    - id: main
      title: Main
      jobs: [do-it]
`), 0o644))
	must(t, os.WriteFile(filepath.Join(pack, "jobs", "do-it.yaml"), []byte(`job:
  id: do-it
  title: Do it
  scope:
    expand: once
  colour: blue
  outputs:
    evidence:
      - id: done
        command: "true"
`), 0o644))
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: fmt.Sprintf(`
provider "cp" {
  pack_dirs = [%q]
}
data "cp_scenario_pack" "broken" {
  id = "broken"
}
`, dir),
			ExpectError: regexp.MustCompile(`(?s)Invalid scenario pack directory.*pack_dirs.*jobs/do-it.yaml:6: colour: unknown key`),
		}},
	})
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
