package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

// gateProbePack is a user pack whose install runs mark-before, then a
// destructive gate holding mark-after; each job leaves a file on the host.
var gateProbePack = map[string]string{
	"pack.yaml": `scenario_pack:
  id: gate-probe
  version: 1.0.0
  title: Gate probe
  resource_types: [gate.probe]
  actions: [install]
  plan_templates:
    - id: gate-probe.install
      action: install
      entrypoint: mark-before
      file: templates/install.yaml
`,
	"templates/install.yaml": `plan_template:
  id: gate-probe.install
  action: install
  title: Mark before and after a gate
  stages:
    - id: mark
      title: Mark
      jobs: [mark-before, mark-after]
  gates:
    - id: confirm-probe
      type: destructive
      reason: mark-after writes past the gate.
      options: [{id: go on, effect: proceed}, {id: cancel operation, effect: cancel}]
      required_roles: [sre]
      before: [mark-after]
`,
	"jobs/mark-before.yaml":  markJob("before"),
	"jobs/mark-after.yaml":   markJob("after"),
	"scripts/mark-before.sh": markScript("before"),
	"scripts/mark-after.sh":  markScript("after"),
}

func markJob(which string) string {
	return fmt.Sprintf(`job:
  id: mark-%[1]s
  title: Mark %[1]s
  scope:
    expand: once
  outputs:
    provides:
      capabilities:
        - {key: gate.probe.%[1]s, scope: cluster}
    evidence:
      - id: marked
        command: cat /var/lib/gate-probe/%[1]s
        expected: %[1]s
  controls:
    idempotency: {key: "mark-%[1]s:{cluster}"}
    timeout: 1m
    become: true
  script: scripts/mark-%[1]s.sh
`, which)
}

func markScript(which string) string {
	return "#!/usr/bin/env bash\nset -euo pipefail\ninstall -d -m 0755 /var/lib/gate-probe\necho " + which + " >/var/lib/gate-probe/" + which + "\n"
}

// A cancel option through OpenTofu: the apply stops with "cancelled at
// gate confirm-probe by ci" and the option, the job behind the gate does
// not run (the engine starts nothing more once a gate cancels), and no
// state is saved; choosing the proceed option then creates the resource
// and runs mark-after.
func TestAccDecisions_cancelReported(t *testing.T) {
	testAccPreCheck(t)
	c := accHosts(t, "cancelrep", "node-1")
	h := c.Hosts()[0]
	dir := writePack(t, gateProbePack)
	prov := fmt.Sprintf(`
provider "cp" {
  actor       = "ci"
  actor_roles = ["sre"]
  pack_dirs   = [%q]
  ssh = {
    user             = %q
    private_key_file = %q
    known_hosts_file = %q
  }
}
`, dir, h.User, c.KeyPath(), c.KnownHostsPath())
	scenario := func(option string) string {
		return fmt.Sprintf(`
resource "cp_scenario" "gp" {
  pack      = "gate-probe"
  name      = "gp"
  hosts     = [{ name = %q, address = %q }]
  approvals = [{ gate = "confirm-probe", option = %q }]
}
`, h.Name, h.Addr, option)
	}
	marked := func(which string) bool {
		_, err := os.Stat(filepath.Join(h.Upper, "var/lib/gate-probe", which))
		return err == nil
	}
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      prov + scenario("cancel operation"),
				ExpectError: regexp.MustCompile(`(?s)cancelled\s+at\s+gate\s+confirm-probe\s+by\s+ci.*Option\s+"cancel\s+operation"\s+of\s+gate\s+confirm-probe.*Nothing\s+past\s+the\s+gate\s+ran`),
			},
			{
				PreConfig: func() {
					if marked("after") {
						t.Error("after the cancel got: mark-after ran want: nothing behind the gate runs")
					}
				},
				Config: prov + scenario("go on"),
				Check: func(*terraform.State) error {
					if !marked("before") || !marked("after") {
						return fmt.Errorf("got: before marked %v, after marked %v want: both once the gate proceeds", marked("before"), marked("after"))
					}
					return nil
				},
			},
		},
	})
}
