package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/intentops/terraform-provider-cp/internal/testhosts"
)

// writePacks writes each pack (directory name -> file -> body) under one
// directory, which pack_dirs then names.
func writePacks(t *testing.T, packs map[string]map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for dir, files := range packs {
		for name, body := range files {
			p := filepath.Join(root, dir, name)
			must(t, os.MkdirAll(filepath.Dir(p), 0o755))
			mode := os.FileMode(0o644)
			if strings.HasSuffix(name, ".sh") {
				mode = 0o755
			}
			must(t, os.WriteFile(p, []byte(body), mode))
		}
	}
	return root
}

// markerJob is a job writing /var/lib/<dir>/<id> on its host; it reads
// the parameters params (their values go to the marker through the
// environment), requires the capabilities needs and provides provides.
func markerJob(dir, id string, params, needs, provides []string) (string, string) {
	var b strings.Builder
	fmt.Fprintf(&b, "job:\n  id: %s\n  title: Write %s\n  scope:\n    expand: once\n", id, id)
	b.WriteString("  inputs:\n")
	if len(params) > 0 {
		b.WriteString("    parameters:\n")
		for _, p := range params {
			fmt.Fprintf(&b, "      %s: {}\n", p)
		}
	}
	if len(needs) > 0 {
		b.WriteString("    requires:\n      capabilities:\n")
		for _, n := range needs {
			fmt.Fprintf(&b, "        - {key: %s, scope: cluster}\n", n)
		}
	}
	b.WriteString("  outputs:\n    provides:\n      capabilities:\n")
	for _, p := range provides {
		fmt.Fprintf(&b, "        - {key: %s, scope: cluster}\n", p)
	}
	fmt.Fprintf(&b, "    evidence:\n      - id: marker\n        command: test -f /var/lib/%s/%s && echo present\n        expected: present\n", dir, id)
	fmt.Fprintf(&b, "  controls:\n    idempotency: {key: \"%s:{cluster}\"}\n    timeout: 1m\n    become: true\n  script: scripts/%s.sh\n", id, id)
	script := fmt.Sprintf("#!/usr/bin/env bash\nset -euo pipefail\ninstall -d -m 0755 /var/lib/%s\n{ echo ran; env | grep '^CP_PARAM_' | sort || true; } >/var/lib/%s/%s\n", dir, dir, id)
	return b.String(), script
}

// miProbePack has two branches: write-a reads no parameter, write-b reads
// greeting, which the pack marks missing_input.
func miProbePack() map[string]string {
	a, as := markerJob("mi-probe", "write-a", nil, nil, []string{"mi.a"})
	b, bs := markerJob("mi-probe", "write-b", []string{"greeting"}, nil, []string{"mi.b"})
	return map[string]string{
		"pack.yaml": `scenario_pack:
  id: mi-probe
  version: 1.0.0
  title: Missing-input probe
  resource_types: [mi.probe]
  actions: [install]
  parameters:
    greeting:
      type: string
      pattern: "[a-z]{1,16}"
      missing_input: true
      description: Written by write-b.
  plan_templates:
    - id: mi-probe.install
      action: install
      entrypoint: write-a
      file: templates/install.yaml
`,
		"templates/install.yaml": `plan_template:
  id: mi-probe.install
  action: install
  title: Two branches
  stages:
    - id: a
      title: Branch a
      jobs: [write-a]
    - id: b
      title: Branch b
      jobs: [write-b]
`,
		"jobs/write-a.yaml": a, "scripts/write-a.sh": as,
		"jobs/write-b.yaml": b, "scripts/write-b.sh": bs,
	}
}

// markerFile checks that the host holds path (relative to its root) with a
// line want, or, with want "", that it does not hold path.
func markerFile(h testhosts.Host, rel, want string) error {
	b, err := os.ReadFile(filepath.Join(h.Upper, rel))
	if want == "" {
		if err == nil {
			return fmt.Errorf("got: /%s on %s (%q) want: absent, its job did not run", rel, h.Name, b)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("got: %v want: /%s on %s", err, rel, h.Name)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if l == want {
			return nil
		}
	}
	return fmt.Errorf("got: /%s on %s holds %q want a line %q", rel, h.Name, b, want)
}

// markerFiles checks markerFile for each path -> want.
func markerFiles(t *testing.T, h testhosts.Host, want map[string]string) {
	t.Helper()
	for _, rel := range sortedKeys(want) {
		if err := markerFile(h, rel, want[rel]); err != nil {
			t.Error(err)
		}
	}
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// A missing-input gate through OpenTofu: without greeting the plan names
// the gate and the branch that waits for it (write-b); apply runs write-a
// on the host and stops at the gate, and write-b did not run. Giving
// greeting later completes the branch, and the value reaches write-b.
func TestAccGates_missingInput(t *testing.T) {
	testAccPreCheck(t)
	c := accHosts(t, "missing", "node-1")
	h := c.Hosts()[0]
	dir := writePacks(t, map[string]map[string]string{"mi-probe": miProbePack()})
	prov := gatesProvider(c, dir, `["sre"]`, "")
	scenario := func(params string) string {
		return fmt.Sprintf(`
resource "cp_scenario" "probe" {
  pack       = "mi-probe"
  name       = "probe"
  hosts      = [{ name = %q, address = %q, role = "master" }]
  parameters = %s
}
`, h.Name, h.Addr, params)
	}
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:             prov + scenario(`{}`),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
				ConfigPlanChecks:   planShows(`(?s)missing-input-greeting \(missing input\).*parameter greeting of mi-probe@1\.0\.0 has no value; write-b wait for it`),
			},
			{
				Config:      prov + scenario(`{}`),
				ExpectError: regexp.MustCompile(`(?s)stopped at a gate \(WaitingForInput\).*missing-input-greeting`),
			},
			{
				PreConfig: func() {
					markerFiles(t, h, map[string]string{"var/lib/mi-probe/write-a": "ran", "var/lib/mi-probe/write-b": ""})
				},
				Config: prov + scenario(`{ greeting = "hello" }`),
				Check: func(*terraform.State) error {
					return markerFile(h, "var/lib/mi-probe/write-b", "CP_PARAM_GREETING=hello")
				},
			},
		},
	})
}

// thingPacks: thing-user requires demo.thing, which the pack thing
// creates through its install action (provider kind dedicated_thing) and
// declares to cost 40 USD a month.
func thingPacks() map[string]map[string]string {
	mk, mks := markerJob("thing", "make-thing", nil, nil, []string{"demo.thing"})
	use, uses := markerJob("thing", "use-thing", nil, []string{"demo.thing"}, []string{"demo.used"})
	return map[string]map[string]string{
		"thing": {
			"pack.yaml": `scenario_pack:
  id: thing
  version: 1.0.0
  title: A costly thing
  resource_types: [demo.thing]
  actions: [install]
  provides:
    - capability: demo.thing
      scope: cluster
  cost:
    monthly_usd: 40
  plan_templates:
    - id: thing.install
      action: install
      entrypoint: make-thing
      file: templates/install.yaml
`,
			"templates/install.yaml": "plan_template:\n  id: thing.install\n  action: install\n  title: Make the thing\n  stages:\n    - id: make\n      title: Make\n      jobs: [make-thing]\n",
			"jobs/make-thing.yaml":   mk, "scripts/make-thing.sh": mks,
		},
		"thing-user": {
			"pack.yaml": `scenario_pack:
  id: thing-user
  version: 1.0.0
  title: Uses a thing
  resource_types: [demo.user]
  actions: [install]
  requires:
    - capability: demo.thing
      scope: cluster
  plan_templates:
    - id: thing-user.install
      action: install
      entrypoint: use-thing
      file: templates/install.yaml
`,
			"templates/install.yaml": "plan_template:\n  id: thing-user.install\n  action: install\n  title: Use the thing\n  stages:\n    - id: use\n      title: Use\n      jobs: [use-thing]\n",
			"jobs/use-thing.yaml":    use, "scripts/use-thing.sh": uses,
		},
	}
}

// costPolicyHCL: in qa a new thing may be created without confirmation up
// to 25 USD a month, and finance confirms what costs more.
const costPolicyHCL = `
  capability_policy = {
    "demo.thing" = {
      environments = {
        qa = { allowed_providers = ["dedicated_thing"], approval_roles = ["finance"], max_monthly_cost_without_confirmation = 25 }
      }
    }
  }`

// A cost confirmation through OpenTofu: the thing costs 40 USD a month,
// above the 25 the qa policy allows, so the plan stops at
// confirm-cost-dedicated-thing with its reason; applying without the
// approval stops at the gate with neither the creation nor its consumer
// run on the host; the approval by an actor without finance is refused at
// plan; approved by finance, the thing is created and used.
func TestAccGates_costConfirmation(t *testing.T) {
	testAccPreCheck(t)
	c := accHosts(t, "cost", "node-1")
	h := c.Hosts()[0]
	dir := writePacks(t, thingPacks())
	scenario := func(approvals string) string { return thingUserScenarioHCL(h, approvals) }
	finance := gatesProvider(c, dir, `["finance"]`, costPolicyHCL)
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: append([]resource.TestStep{
			{
				Config:             finance + scenario(`[]`),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
				ConfigPlanChecks:   planShows(`(?s)confirm-cost-dedicated-thing \(cost confirmation\).*costs 40 USD a month, above the 25 USD that the qa policy allows without confirmation`),
			},
		}, costGateSteps(t, h, finance, gatesProvider(c, dir, `["sre"]`, costPolicyHCL))...),
	})
}

// ruleGatesProvider: in qa both aws_s3 and shared_minio may serve, but a
// pci workload may use shared_minio only by an exception security grants,
// and binding aws_s3 needs the approval of sre.
func ruleGatesProvider(c *testhosts.Cluster, pack, roles string) string {
	return gatesProvider(c, pack, roles, `
  capability_policy = {
    "object_storage.s3" = { environments = { qa = { allowed_providers = ["aws_s3", "shared_minio"] } } }
  }
  policy_rules = [
    { name = "pci-no-shared", compliance = ["pci"], providers = ["shared_minio"], effect = "exception", roles = ["security"], reason = "pci data needs storage of its own" },
    { name = "aws-needs-sre", providers = ["aws_s3"], effect = "require_approval", roles = ["sre"] },
  ]`)
}

// ruleProbe is the wo-probe scenario over one candidate, with the
// compliance and approvals given.
func ruleProbe(c *testhosts.Cluster, name, kind, compliance, approvals string) string {
	h := c.Hosts()[0]
	return fmt.Sprintf(`
resource "cp_scenario" "probe" {
  pack        = "wo-probe"
  name        = "probe"
  environment = "qa"
  hosts       = [{ name = %q, address = %q, role = "master" }]
  compliance  = %s
  candidates  = [{ name = %q, provider = %q, capability = "object_storage.s3", attributes = { endpoint = "https://%s.s3.example.test" },
                   access_key_wo = "AKIARULEGATES000001", secret_key_wo = "rule-gates-secret-1", credentials_wo_version = 1 }]
  approvals   = %s
}
`, h.Name, h.Addr, compliance, name, kind, name, approvals)
}

// Gates that policy rules make, decided through OpenTofu: the exception
// rule of a pci workload stops at a policy_exception gate that security
// grants and sre cannot; without pci the same candidate binds at once.
// The require_approval rule holds the aws_s3 binding at an approval gate:
// refused at plan for an actor without sre; apply without the approval
// stops at the gate with the job not run; approved by sre, the job runs
// with the bound endpoint.
func TestAccGates_policyRules(t *testing.T) {
	testAccPreCheck(t)
	c := accHosts(t, "rulegates", "node-1")
	h := c.Hosts()[0]
	pack := writePack(t, woProbePack)
	grant := `[{ gate = "exception-object-storage-s3", option = "grant exception: bind minio-a" }]`
	approve := `[{ gate = "approve-bind-aws-a", option = "bind aws-a" }]`
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: ruleGatesProvider(c, pack, `["security"]`) + ruleProbe(c, "minio-a", "shared_minio", `["pci"]`, grant), PlanOnly: true, ExpectNonEmptyPlan: true,
				ConfigPlanChecks: planShows(`(?s)object_storage\.s3: bind minio-a\n.*decided by rule 1 "pci-no-shared".*exception-object-storage-s3 \(policy exception\)`),
			},
			{
				Config: ruleGatesProvider(c, pack, `["sre"]`) + ruleProbe(c, "minio-a", "shared_minio", `["pci"]`, grant), PlanOnly: true, ExpectNonEmptyPlan: true,
				ConfigPlanChecks: planShows(`(?s)exception-object-storage-s3 \(policy exception\).*waiting for a decision by an actor with role security; the decision of \S+ \(option "grant exception: bind minio-a"\) is refused: actor \S+ holds roles sre, not one of the gate's roles`),
			},
			{
				Config: ruleGatesProvider(c, pack, `["sre"]`) + ruleProbe(c, "minio-a", "shared_minio", `[]`, `[]`), PlanOnly: true, ExpectNonEmptyPlan: true,
				ConfigPlanChecks: planShows(`(?s)object_storage\.s3: bind minio-a\n.*minio-a \(shared_minio\): accepted, decided by capability_policy object_storage\.s3 qa`),
			},
			{
				Config: ruleGatesProvider(c, pack, `["security"]`) + ruleProbe(c, "aws-a", "aws_s3", `[]`, approve), PlanOnly: true, ExpectNonEmptyPlan: true,
				ConfigPlanChecks: planShows(`(?s)approve-bind-aws-a \(approval\).*waiting for a decision by an actor with role sre; the decision of \S+ \(option "bind aws-a"\) is refused: actor \S+ holds roles security, not one of the gate's roles`),
			},
			{
				Config:      ruleGatesProvider(c, pack, `["sre"]`) + ruleProbe(c, "aws-a", "aws_s3", `[]`, `[]`),
				ExpectError: regexp.MustCompile(`(?s)stopped at a gate \(WaitingForApproval\).*approve-bind-aws-a \(approval\).*rule 2 "aws-needs-sre"`),
			},
			{
				PreConfig: func() { markerFiles(t, h, map[string]string{"var/lib/wo-probe/endpoint": ""}) },
				Config:    ruleGatesProvider(c, pack, `["sre"]`) + ruleProbe(c, "aws-a", "aws_s3", `[]`, approve),
				Check: func(*terraform.State) error {
					return markerFile(h, "var/lib/wo-probe/endpoint", "https://aws-a.s3.example.test")
				},
			},
		},
	})
}

// costRuleProvider: in qa a thing may be created (no cost threshold of
// the environment's), but policy rule "pricey" asks finance to approve
// creating a provider whose pack declares at least min USD a month.
func costRuleProvider(c *testhosts.Cluster, dir, roles, min string) string {
	return gatesProvider(c, dir, roles, `
  capability_policy = {
    "demo.thing" = { environments = { qa = { allowed_providers = ["dedicated_thing"] } } }
  }
  policy_rules = [
    { name = "pricey", min_monthly_cost_usd = `+min+`, effect = "require_approval", roles = ["finance"], reason = "finance signs off on spend" },
  ]`)
}

// A min_monthly_cost_usd policy rule through OpenTofu: the thing costs 40
// USD a month; with the rule at 50 it does not match and the creation is
// decided by the environment's policy; at 30 it matches and the plan
// stops at confirm-cost-dedicated-thing naming the rule and both amounts.
// Applying without the confirmation stops at the gate with neither the
// creation nor its consumer run on the host; a confirmation by an actor
// without finance is refused at plan; confirmed by finance, the thing is
// created and used.
func TestAccGates_costRule(t *testing.T) {
	testAccPreCheck(t)
	c := accHosts(t, "costrule", "node-1")
	h := c.Hosts()[0]
	dir := writePacks(t, thingPacks())
	scenario := func(approvals string) string { return thingUserScenarioHCL(h, approvals) }
	finance := costRuleProvider(c, dir, `["finance"]`, "30")
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: append([]resource.TestStep{
			{
				// Above the thing's cost: the rule does not match.
				Config:             costRuleProvider(c, dir, `["finance"]`, "50") + scenario(`[]`),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
				ConfigPlanChecks:   planShows(`(?s)new dedicated_thing \(thing install\) \(dedicated_thing\): accepted, decided by capability_policy demo\.thing qa`),
			},
			{
				Config:             finance + scenario(`[]`),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
				ConfigPlanChecks: planShows(`(?s)confirm-cost-dedicated-thing \(cost confirmation\).*` +
					`rule 1 "pricey" requires approval for provider dedicated_thing \(cost 40 USD a month >= 30\): finance signs off on spend`),
			},
		}, costGateSteps(t, h, finance, costRuleProvider(c, dir, `["sre"]`, "30"))...),
	})
}

// A require_approval rule in a provider selection through OpenTofu: aws-a
// (aws_s3, which rule 2 "aws-needs-sre" holds) and minio-a (shared_minio)
// both match, so the plan stops at the selection gate, whose reason says
// that only binding aws-a needs sre's approval and which rule asks for
// it. Choosing aws-a as security is refused at plan and apply stops at
// the gate with nothing run; choosing minio-a as security needs no
// approval; choosing aws-a as sre binds it and the job gets its endpoint.
func TestAccGates_selectionRule(t *testing.T) {
	testAccPreCheck(t)
	c := accHosts(t, "selrule", "node-1")
	h := c.Hosts()[0]
	pack := writePack(t, woProbePack)
	two := [][2]string{{"aws-a", "aws_s3"}, {"minio-a", "shared_minio"}}
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: ruleGatesProvider(c, pack, `["security"]`) + probeScenario(c, "qa", two, "aws-a", `[]`), PlanOnly: true, ExpectNonEmptyPlan: true,
				ConfigPlanChecks: planShows(`(?s)select-object-storage-s3-provider \(provider selection\).*` +
					`option "bind aws-a" needs approval by one of sre: rule 2 "aws-needs-sre" requires approval for provider aws_s3`),
			},
			{
				Config: ruleGatesProvider(c, pack, `["security"]`) + probeScenario(c, "qa", two, "aws-a", selectApproval("bind aws-a")), PlanOnly: true, ExpectNonEmptyPlan: true,
				ConfigPlanChecks: planShows(`(?s)object_storage\.s3: gate.*decision refused: gate "select-object-storage-s3-provider": option "bind aws-a" needs approval by one of \["sre"\] \(rule 2 "aws-needs-sre"`),
			},
			{
				Config: ruleGatesProvider(c, pack, `["security"]`) + probeScenario(c, "qa", two, "minio-a", selectApproval("bind minio-a")), PlanOnly: true, ExpectNonEmptyPlan: true,
				ConfigPlanChecks: planShows(`object_storage\.s3: bind minio-a`),
			},
			{
				Config:      ruleGatesProvider(c, pack, `["security"]`) + probeScenario(c, "qa", two, "aws-a", selectApproval("bind aws-a")),
				ExpectError: regexp.MustCompile(`(?s)stopped at a gate \(WaitingForInput\).*select-object-storage-s3-provider`),
			},
			{
				PreConfig: func() { markerFiles(t, h, map[string]string{"var/lib/wo-probe/endpoint": ""}) },
				Config:    ruleGatesProvider(c, pack, `["sre"]`) + probeScenario(c, "qa", two, "aws-a", selectApproval("bind aws-a")),
				Check: func(*terraform.State) error {
					return markerFile(h, "var/lib/wo-probe/endpoint", "https://aws-a.s3.example.test")
				},
			},
		},
	})
}
