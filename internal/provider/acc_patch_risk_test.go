package provider

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/intentops/terraform-provider-cp/internal/testhosts"
)

// riskProbePack installs write-a; its job library also holds write-b,
// which a plan patch inserts after write-a. Its risk.default_level is
// high, so a patch that sets no risk needs an approval.
func riskProbePack() map[string]string {
	a, as := markerJob("risk-probe", "write-a", nil, nil, []string{"risk.a"})
	b, bs := markerJob("risk-probe", "write-b", nil, nil, []string{"risk.b"})
	return map[string]string{
		"pack.yaml": `scenario_pack:
  id: risk-probe
  version: 1.0.0
  title: Risk probe
  resource_types: [risk.probe]
  actions: [install]
  plan_templates:
    - id: risk-probe.install
      action: install
      entrypoint: write-a
      file: templates/install.yaml
  editable:
    advanced_mode: true
  risk:
    default_level: high
`,
		"templates/install.yaml": `plan_template:
  id: risk-probe.install
  action: install
  title: Write a
  stages:
    - id: a
      title: Write a
      jobs: [write-a]
`,
		"jobs/write-a.yaml": a, "scripts/write-a.sh": as,
		"jobs/write-b.yaml": b, "scripts/write-b.sh": bs,
	}
}

// riskScenario is cp_scenario of the risk-probe pack on the first host
// with a patch inserting write-b after write-a that sets no risk, with the
// given approval ("" for none).
func riskScenario(c *testhosts.Cluster, approval string) string {
	h := c.Hosts()[0]
	if approval != "" {
		approval = "\n    approval = " + approval
	}
	return fmt.Sprintf(`
resource "cp_scenario" "probe" {
  pack  = "risk-probe"
  name  = "probe"
  hosts = [{ name = %q, address = %q, role = "master" }]
  plan_patches = [{
    id      = "add-b"
    author  = "ops"
    reason  = "b is needed too"
    changes = [{ insert_after = "write-a", jobs = ["write-b"] }]%s
  }]
}
`, h.Name, h.Addr, approval)
}

// A plan patch's risk through OpenTofu: the patch sets no risk and the
// pack's risk.default_level is high, so without an approval it is refused
// at plan on plan_patches[0], nothing run on the host; approved by the
// actor without the patch's role sre it is refused on
// plan_patches[0].approval.roles; approved by the actor holding sre it is
// planned, the plan shows it as high risk, and apply runs the job it
// inserts on the host.
func TestAccPatchRisk_highNeedsApproval(t *testing.T) {
	testAccPreCheck(t)
	c := accHosts(t, "risk", "node-1")
	h := c.Hosts()[0]
	packDir := writePacks(t, map[string]map[string]string{"risk-probe": riskProbePack()})
	approval := `{ roles = ["sre"], approved_by = "ci" }`
	nothingRan := func(*terraform.State) error {
		for _, rel := range []string{"var/lib/risk-probe/write-a", "var/lib/risk-probe/write-b"} {
			if err := markerFile(h, rel, ""); err != nil {
				return err
			}
		}
		return nil
	}
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      gatesProvider(c, packDir, `["sre"]`, "") + riskScenario(c, ""),
				ExpectError: wrapped("High-risk plan patch not approved", `plan_patches[0]: plan patch add-b needs an approval because it sets no risk and pack risk-probe@1.0.0 has risk.default_level high`, `set approval = { approved_by = "ci" }`),
			},
			{
				Config:      gatesProvider(c, packDir, `["platform_admin"]`, "") + riskScenario(c, approval),
				ExpectError: wrapped("Approver lacks the role", `plan_patches[0].approval.roles: plan patch add-b needs approval by one of the roles "sre", but actor "ci" holds "platform_admin"`),
			},
			{
				Config: gatesProvider(c, packDir, `["sre"]`, "") + riskScenario(c, approval),
				PreConfig: func() {
					if err := nothingRan(nil); err != nil {
						t.Fatalf("before the approved apply: %v", err)
					}
				},
				ConfigPlanChecks: planShows(`patch by ops \(risk high\): inserted write-b after write-a`),
				Check: func(*terraform.State) error {
					for _, rel := range []string{"var/lib/risk-probe/write-a", "var/lib/risk-probe/write-b"} {
						if err := markerFile(h, rel, "ran"); err != nil {
							return err
						}
					}
					return nil
				},
			},
		},
	})
}

// editable.advanced_mode: false through OpenTofu: the testdata pack
// locked-plan refuses, at plan, customizations and plan patches on
// cp_scenario and on cp_plan, each on its attribute and naming the pack
// and the field; without them the same scenario plans.
func TestAccPlanEditable_lockedPack(t *testing.T) {
	dir, err := filepath.Abs(filepath.Join("testdata", "packs", "locked-plan"))
	must(t, err)
	prov := badConfigProvider(t)
	prov = prov[:len(prov)-2] + fmt.Sprintf("  pack_dirs = [%q]\n}\n", dir)
	edits := `
  customizations = { changes = [{ inserted = "write-extra", after = "write-marker" }] }
  plan_patches = [{
    author  = "ops"
    reason  = "extra"
    risk    = "low"
    changes = [{ insert_after = "write-marker", jobs = ["write-extra"] }]
  }]`
	scenario := func(extra string) string {
		return `
resource "cp_scenario" "s" {
  pack  = "locked-plan"
  name  = "locked"
  hosts = [{ name = "h1", address = "127.0.0.251" }]` + extra + `
}
`
	}
	refused := func(what string) *regexp.Regexp {
		return wrapped("Plan not editable", what+": pack locked-plan@1.0.0 sets editable.advanced_mode: false, so its plans take no")
	}
	for _, tc := range []struct {
		name, config string
		want         *regexp.Regexp
	}{
		{"scenario customizations", scenario(edits), refused("customizations")},
		{"scenario plan patches", scenario(edits), refused("plan_patches")},
		{"plan customizations", `
data "cp_plan" "p" {
  pack   = "locked-plan"
  action = "install"
  hosts  = [{ name = "h1", address = "127.0.0.251", role = "worker" }]` + edits + `
}
`, refused("customizations")},
		{"plan plan patches", `
data "cp_plan" "p" {
  pack   = "locked-plan"
  action = "install"
  hosts  = [{ name = "h1", address = "127.0.0.251", role = "worker" }]` + edits + `
}
`, refused("plan_patches")},
	} {
		t.Run(strings.ReplaceAll(tc.name, " ", "_"), func(t *testing.T) {
			resource.Test(t, resource.TestCase{
				PreCheck:                 func() { testAccPreCheck(t) },
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps: []resource.TestStep{{
					Config: prov + tc.config, PlanOnly: true, ExpectNonEmptyPlan: true, ExpectError: tc.want,
				}},
			})
		})
	}
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: prov + scenario(""), PlanOnly: true, ExpectNonEmptyPlan: true,
		}},
	})
}

// wrapped matches the given texts in order, each as OpenTofu prints it:
// any run of spaces may be a line break.
func wrapped(texts ...string) *regexp.Regexp {
	parts := make([]string, len(texts))
	for i, s := range texts {
		parts[i] = strings.Join(strings.Fields(regexp.QuoteMeta(s)), `\s+`)
	}
	return regexp.MustCompile(`(?s)` + strings.Join(parts, ".*"))
}
