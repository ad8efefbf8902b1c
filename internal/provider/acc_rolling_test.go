package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// rollingProbePack is a user pack whose install rolls roll-step over its
// hosts one at a time (serial: 1) with the given controls.max_failures;
// roll-step fails on a host that has /var/lib/rolling-probe/break.
func rollingProbePack(maxFailures int) map[string]string {
	return map[string]string{
		"pack.yaml": `scenario_pack:
  id: rolling-probe
  version: 1.0.0
  title: Rolling probe
  resource_types: [rolling.probe]
  actions: [install]
  plan_templates:
    - id: rolling-probe.install
      action: install
      entrypoint: roll-step
      file: templates/install.yaml
`,
		"templates/install.yaml": `plan_template:
  id: rolling-probe.install
  action: install
  title: Roll over the hosts
  stages:
    - id: roll
      title: Roll
      jobs: [roll-step]
`,
		"jobs/roll-step.yaml": fmt.Sprintf(`job:
  id: roll-step
  title: Roll step
  scope:
    expand: each_node
  outputs:
    provides:
      capabilities:
        - {key: rolling.probe.rolled, scope: node}
    evidence:
      - id: rolled
        command: cat /var/lib/rolling-probe/rolled
        expected: "yes"
  controls:
    idempotency: {key: "roll-step:{node_id}"}
    timeout: 1m
    become: true
    serial: 1
    max_failures: %d
  script: scripts/roll-step.sh
`, maxFailures),
		"scripts/roll-step.sh": `#!/usr/bin/env bash
set -euo pipefail
install -d -m 0755 /var/lib/rolling-probe
echo run >>/var/lib/rolling-probe/runs
if [ -e /var/lib/rolling-probe/break ]; then
  echo "roll-step broke on ${CP_HOST}" >&2
  exit 1
fi
echo yes >/var/lib/rolling-probe/rolled
`,
	}
}

// A serial job through OpenTofu: with roll-step failing on node-2 and
// max_failures 0 the rolling stops there, node-3 is not run and the error
// says so; with max_failures 1 the next apply goes on to node-3 (and
// still fails for node-2); once node-2 is fixed the apply completes, and
// no host that finished runs roll-step again.
func TestAccRolling_stopsAtFirstFailedHost(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("TF_ACC is not set")
	}
	testAccPreCheck(t)
	c := accHosts(t, "rolling", "node-1", "node-2", "node-3")
	dir := writePack(t, rollingProbePack(0))
	r := newTofuRun(t, packProviderHCL(c, dir, "")+fmt.Sprintf(`
resource "cp_scenario" "rp" {
  pack  = "rolling-probe"
  name  = "rp"
  hosts = %s
}
`, nodesHCL(c, "node-1", "node-2", "node-3")))
	tofu := tofuRunner(t, r)
	apply := func(log string) (string, error) {
		out, err := tofu(log, "apply", "-auto-approve")
		return flatten(out), err
	}
	probe := func(host, name string) string {
		hh, err := c.Host(host)
		must(t, err)
		b, _ := os.ReadFile(filepath.Join(hh.Upper, "var/lib/rolling-probe", name))
		return string(b)
	}
	runs := func(host string) int { return strings.Count(probe(host, "runs"), "run") }
	onHost(t, c, "node-2", "sudo install -d -m 0755 /var/lib/rolling-probe && sudo touch /var/lib/rolling-probe/break")

	out, err := apply("apply1.log")
	if err == nil {
		t.Fatalf("apply with roll-step failing on node-2 succeeded:\n%s", out)
	}
	want := "Rolling job roll-step stopped after 1 failed host(s) (roll-step[node-2]), more than controls.max_failures 0; not run: roll-step[node-3]."
	if !strings.Contains(out, want) {
		t.Errorf("the apply error lacks %q:\n%s", want, out)
	}
	if !strings.Contains(out, "roll-step broke on node-2") {
		t.Errorf("the apply error lacks node-2's log tail:\n%s", out)
	}
	if got := [3]int{runs("node-1"), runs("node-2"), runs("node-3")}; got != [3]int{1, 1, 0} {
		t.Errorf("roll-step runs on node-1..3 got: %v want: [1 1 0] (node-3 not started after node-2 failed)", got)
	}

	for name, body := range rollingProbePack(1) {
		must(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644))
	}
	out, err = apply("apply2.log")
	if err == nil {
		t.Fatalf("apply with roll-step still failing on node-2 succeeded:\n%s", out)
	}
	if strings.Contains(out, "Rolling job roll-step stopped") {
		t.Errorf("with max_failures 1 one failed host stopped the rolling:\n%s", out)
	}
	if got := [3]int{runs("node-1"), runs("node-2"), runs("node-3")}; got != [3]int{1, 2, 1} {
		t.Errorf("roll-step runs on node-1..3 got: %v want: [1 2 1] (node-1 satisfied, node-2 again, node-3 now)", got)
	}

	onHost(t, c, "node-2", "sudo rm -f /var/lib/rolling-probe/break")
	if out, err := apply("apply3.log"); err != nil {
		t.Fatalf("apply once node-2 is fixed: %v\n%s", err, out)
	}
	if got := [3]int{runs("node-1"), runs("node-2"), runs("node-3")}; got != [3]int{1, 3, 1} {
		t.Errorf("roll-step runs on node-1..3 got: %v want: [1 3 1] (only node-2 runs again)", got)
	}
	for _, host := range []string{"node-1", "node-2", "node-3"} {
		if strings.TrimSpace(probe(host, "rolled")) != "yes" {
			t.Errorf("%s was not rolled", host)
		}
	}
}
