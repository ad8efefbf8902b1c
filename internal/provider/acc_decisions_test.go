package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/intentops/terraform-provider-cp/internal/hostsim"
	"github.com/intentops/terraform-provider-cp/internal/testhosts"
)

// decisionsPolicy: in qa only aws_s3 may serve object storage; in prod
// only aws_s3 too, but the role security may grant an exception.
const decisionsPolicy = `
  capability_policy = {
    "object_storage.s3" = {
      environments = {
        qa   = { allowed_providers = ["aws_s3"] }
        prod = { allowed_providers = ["aws_s3"], exception_roles = ["security"] }
      }
    }
  }`

// decisionsProvider is a provider block for the test hosts with the
// wo-probe pack, the decisions policy and the given actor roles.
func decisionsProvider(c *testhosts.Cluster, pack, roles string) string {
	return gatesProvider(c, pack, roles, decisionsPolicy)
}

// probeScenario plans the wo-probe pack in env over the candidates named
// in cands (name = provider kind), with credentials on credsOn and the
// given approvals.
func probeScenario(c *testhosts.Cluster, env string, cands [][2]string, credsOn, approvals string) string {
	h := c.Hosts()[0]
	var cs []string
	for _, cd := range cands {
		creds := ""
		if cd[0] == credsOn {
			creds = `, access_key_wo = "AKIAPICKPROBE00001", secret_key_wo = "pick-probe-secret-1", credentials_wo_version = 1`
		}
		cs = append(cs, fmt.Sprintf(`{ name = %q, provider = %q, capability = "object_storage.s3", attributes = { endpoint = "https://%s.s3.example.test" }%s }`, cd[0], cd[1], cd[0], creds))
	}
	return fmt.Sprintf(`
resource "cp_scenario" "probe" {
  pack        = "wo-probe"
  name        = "probe"
  environment = %q
  hosts       = [{ name = %q, address = %q, role = "master" }]
  candidates  = [%s]
  approvals   = %s
}
`, env, h.Name, h.Addr, strings.Join(cs, ",\n    "), approvals)
}

const selectGate = "select-object-storage-s3-provider"

func selectApproval(option string) string {
	return fmt.Sprintf(`[{ gate = %q, option = %q }]`, selectGate, option)
}

// planShows checks that the planned compact plan of cp_scenario.probe
// matches re.
func planShows(re string) resource.ConfigPlanChecks {
	return resource.ConfigPlanChecks{PostApplyPreRefresh: []plancheck.PlanCheck{
		plancheck.ExpectKnownValue("cp_scenario.probe", tfjsonpath.New("plan"), knownvalue.StringRegexp(regexp.MustCompile(re))),
	}}
}

// Provider selection through OpenTofu: two aws_s3 candidates stop at the
// provider-selection gate; the approval choosing aws-a plans the binding
// to aws-a, choosing aws-b plans aws-b, and applying the aws-b choice
// hands the job aws-b's endpoint on the host. An option the gate does
// not have is refused at plan on approvals[0].option.
func TestAccDecisions_providerSelectionEachCandidate(t *testing.T) {
	testAccPreCheck(t)
	c := accHosts(t, "pick", "node-1")
	h := c.Hosts()[0]
	pack := writePack(t, woProbePack)
	prov := decisionsProvider(c, pack, `["sre", "platform_admin"]`)
	two := [][2]string{{"aws-a", "aws_s3"}, {"aws-b", "aws_s3"}}
	endpointOnHost := func(want string) resource.TestCheckFunc {
		return func(*terraform.State) error {
			b, err := os.ReadFile(filepath.Join(h.Upper, "var/lib/wo-probe/endpoint"))
			if err != nil {
				return fmt.Errorf("got: %v want: the endpoint written by use-storage on %s", err, h.Name)
			}
			if got := strings.TrimSpace(string(b)); got != want {
				return fmt.Errorf("got: endpoint %q on the host want: %q", got, want)
			}
			return nil
		}
	}
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:             prov + probeScenario(c, "qa", two, "aws-a", selectApproval("bind aws-a")),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
				ConfigPlanChecks:   planShows(`object_storage\.s3: bind aws-a`),
			},
			{
				Config:             prov + probeScenario(c, "qa", two, "aws-b", selectApproval("bind aws-b")),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
				ConfigPlanChecks:   planShows(`object_storage\.s3: bind aws-b`),
			},
			{
				Config:      prov + probeScenario(c, "qa", two, "aws-a", selectApproval("bind aws-c")),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)approvals\[0\]\.option:.*has\s+no\s+option\s+"bind\s+aws-c"`),
			},
			{
				Config: prov + probeScenario(c, "qa", two, "aws-b", selectApproval("bind aws-b")),
				Check:  endpointOnHost("https://aws-b.s3.example.test"),
			},
		},
	})
}

// A policy exception through OpenTofu: in prod no allowed provider is a
// candidate, so the plan stops at the policy_exception gate; granting
// "bind minio-shared" as an actor holding the exception role security
// plans the binding, and the same approval by an actor holding only sre
// is refused at plan on approvals[0].
func TestAccDecisions_policyExceptionGrantedAndRefused(t *testing.T) {
	testAccPreCheck(t)
	c := accHosts(t, "exception", "node-1")
	pack := writePack(t, woProbePack)
	shared := [][2]string{{"minio-shared", "shared_minio"}}
	grant := `[{ gate = "exception-object-storage-s3", option = "grant exception: bind minio-shared" }]`
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:             decisionsProvider(c, pack, `["security"]`) + probeScenario(c, "prod", shared, "minio-shared", grant),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
				ConfigPlanChecks:   planShows(`object_storage\.s3: bind minio-shared`),
			},
			{
				// Granted by an actor without the role: the plan shows the
				// exception waiting, the grant refused and why.
				Config:             decisionsProvider(c, pack, `["sre"]`) + probeScenario(c, "prod", shared, "minio-shared", grant),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
				ConfigPlanChecks:   planShows(`(?s)\(policy exception\).*waiting for a decision by an actor with role security; the decision of \S+ \(option "[^"]+"\) is refused: actor \S+ holds roles sre, not one of the gate's roles`),
			},
		},
	})
}

// Decisions refused at plan on a new cluster: an intervention on
// validate-inputs, whose controls.manual_intervention.allowed is false,
// on interventions[0].job; an option the deletion gate does not have, on
// approvals[0].option.
func TestAccDecisions_refusedAtPlan(t *testing.T) {
	testAccPreCheck(t)
	c := accHosts(t, "refused", "master-1")
	prov := accProvider(c, "")
	cluster := func(extra string) string {
		return `
resource "cp_kubernetes_cluster" "refused" {
  name    = "refused"
  storage = "none"
  masters = ` + nodesHCL(c, "master-1") + `
  workers = []
  ` + extra + `
}
`
	}
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      prov + cluster(`interventions = [{ job = "validate-inputs", node = "master-1", note = "edited by hand" }]`),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)interventions\[0\]\.job:.*manual_intervention\.allowed:\s+false`),
			},
			{
				Config:      prov + cluster(`approvals = [{ gate = "confirm-cluster-deletion", option = "delete everything" }]`),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)approvals\[0\]\.option:.*has\s+no\s+option\s+"delete\s+everything"`),
			},
		},
	})
}

// rulesProvider is decisionsProvider with an organization and policy
// rules, in environment qa where both aws_s3 and shared_minio may serve.
func rulesProvider(c *testhosts.Cluster, pack, org, rules string) string {
	return gatesProvider(c, pack, `["sre"]`, fmt.Sprintf(`
  organization = %q
  capability_policy = {
    "object_storage.s3" = { environments = { qa = { allowed_providers = ["aws_s3", "shared_minio"] } } }
  }
  policy_rules = %s`, org, rules))
}

// Requirement constraints and policy rules through OpenTofu, on the
// wo-probe scenario with a small and a big candidate: min_capacity_gb
// keeps only the big one (the small one's reason names the minimum); a
// deny rule on criticality high rejects the aws_s3 candidate only for a
// high resource, and the plan names the rule per candidate; the same rule
// for another organization does not apply; constraints on a capability
// the pack does not require, and a key the constraints do not have, are
// refused at plan on their path.
func TestAccDecisions_constraintsAndPolicyRules(t *testing.T) {
	testAccPreCheck(t)
	c := accHosts(t, "rules", "node-1")
	h := c.Hosts()[0]
	pack := writePack(t, woProbePack)
	const denyHigh = `[{ name = "critical-not-aws", criticality = ["high"], providers = ["aws_s3"], organizations = ["acme"], effect = "deny", reason = "critical data stays in house" }]`
	// scenario gives the credentials on the candidate credsOn.
	scenario := func(credsOn, extra string) string {
		creds := map[string]string{credsOn: `, access_key_wo = "AKIARULESPROBE00001", secret_key_wo = "rules-probe-secret-1", credentials_wo_version = 1`}
		return fmt.Sprintf(`
resource "cp_scenario" "probe" {
  pack        = "wo-probe"
  name        = "probe"
  environment = "qa"
  hosts       = [{ name = %q, address = %q, role = "master" }]
  candidates  = [
    { name = "small", provider = "aws_s3", capability = "object_storage.s3", attributes = { endpoint = "https://small.example.test", capacity_gb = "100" }%[3]s },
    { name = "big", provider = "shared_minio", capability = "object_storage.s3", attributes = { endpoint = "https://big.example.test", capacity_gb = "500" }%[5]s },
  ]
  %[4]s
}
`, h.Name, h.Addr, creds["small"], extra, creds["big"])
	}
	pickSmall := `approvals = ` + selectApproval("bind small")
	min200 := `requirements = { "object_storage.s3" = { min_capacity_gb = 200 } }`
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				// Both match without constraints: the selection gate offers
				// both, and choosing the small one binds it.
				Config: rulesProvider(c, pack, "acme", `[]`) + scenario("small", pickSmall), PlanOnly: true, ExpectNonEmptyPlan: true,
				ConfigPlanChecks: planShows(`object_storage\.s3: bind small`),
			},
			{
				Config: rulesProvider(c, pack, "acme", denyHigh) + scenario("big", min200), PlanOnly: true, ExpectNonEmptyPlan: true,
				ConfigPlanChecks: planShows(`(?s)object_storage\.s3: bind big\n.*small \(aws_s3\): rejected, decided by capability_policy object_storage\.s3 qa: rejected: capacity_gb 100 < min_capacity_gb 200`),
			},
			{
				Config: rulesProvider(c, pack, "acme", denyHigh) + scenario("big", `criticality = "high"`), PlanOnly: true, ExpectNonEmptyPlan: true,
				ConfigPlanChecks: planShows(`(?s)object_storage\.s3: bind big\n.*small \(aws_s3\): rejected, decided by rule 1 "critical-not-aws": rejected: rule 1 "critical-not-aws" denies provider aws_s3 \(organization acme, criticality high, provider aws_s3\): critical data stays in house`),
			},
			{
				// The rule is acme's: for globex both match again, and the
				// small one can be chosen.
				Config: rulesProvider(c, pack, "globex", denyHigh) + scenario("small", `criticality = "high"`+"\n"+pickSmall), PlanOnly: true, ExpectNonEmptyPlan: true,
				ConfigPlanChecks: planShows(`(?s)object_storage\.s3: bind small\n.*small \(aws_s3\): accepted, decided by capability_policy object_storage\.s3 qa`),
			},
			{
				Config: rulesProvider(c, pack, "acme", `[]`) + scenario("big", `requirements = { "database.postgresql" = { min_capacity_gb = 1 } }`), PlanOnly: true,
				ExpectError: regexp.MustCompile(`(?s)requirements\["database\.postgresql"\].*does not require`),
			},
			{
				Config: rulesProvider(c, pack, "acme", `[]`) + scenario("big", `requirements = { "object_storage.s3" = { capacity = 1 } }`), PlanOnly: true,
				ExpectError: regexp.MustCompile(`(?s)requirements\["object_storage\.s3"\].*capacity`),
			},
			{
				Config: rulesProvider(c, pack, "acme", `[]`) + scenario("big", `criticality = "urgent"`), PlanOnly: true,
				ExpectError: regexp.MustCompile(`(?s)criticality:.*"urgent" is not a criticality`),
			},
		},
	})
}

// cp_capability names, per candidate, the rule that decided.
func TestAccCapability_decidedByRule(t *testing.T) {
	testAccPreCheck(t)
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: `
provider "cp" {
  environment  = "qa"
  organization = "acme"
  capability_policy = {
    "object_storage.s3" = { environments = { qa = { allowed_providers = ["aws_s3", "shared_minio"] } } }
  }
  policy_rules = [{ name = "pci-no-shared", compliance = ["pci"], providers = ["shared_minio"], effect = "deny" }]
}
data "cp_capability" "s3" {
  capability = "object_storage.s3"
  compliance = ["pci"]
  candidates = [
    { name = "aws-a", provider = "aws_s3", capability = "object_storage.s3" },
    { name = "minio-a", provider = "shared_minio", capability = "object_storage.s3" },
  ]
}`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.cp_capability.s3", tfjsonpath.New("selected_provider"), knownvalue.StringExact("aws-a")),
				statecheck.ExpectKnownValue("data.cp_capability.s3", tfjsonpath.New("considered").AtSliceIndex(0).AtMapKey("decided_by"),
					knownvalue.StringExact("capability_policy object_storage.s3 qa")),
				statecheck.ExpectKnownValue("data.cp_capability.s3", tfjsonpath.New("considered").AtSliceIndex(1).AtMapKey("decided_by"),
					knownvalue.StringExact(`rule 1 "pci-no-shared"`)),
			},
		}},
	})
}

// Requirement constraints shape the MinIO created for cp_tempo, through
// OpenTofu on the simulator's cluster: access_mode dedicated gives it a
// namespace and release of its own (minio-<name>), min_capacity_gb the
// volume size in the chart's values, region MinIO's MINIO_REGION, and
// encryption false leaves the KMS Secret out of the chart.
func TestAccDecisions_constraintsShapeTheCreatedMinio(t *testing.T) {
	testAccPreCheck(t)
	c := accHosts(t, "small", "master-1", "worker-1")
	prov := accProvider(c, s3Policy)
	cluster := smallCluster(nodesHCL(c, "master-1"), nodesHCL(c, "worker-1"))
	tempo := `
resource "cp_tempo" "shaped" {
  name           = "traces-shaped"
  environment    = "stage"
  cluster_handle = cp_kubernetes_cluster.small.handle
  parameters     = { namespace = "traces-shaped" }
  requirements   = { "object_storage.s3" = { min_capacity_gb = 200, encryption = false, access_mode = "dedicated", region = "eu-central" } }
  approvals      = [{ gate = "confirm-tempo-uninstall", option = "uninstall" }]
}
`
	const release = "minio-traces-shaped/minio-traces-shaped"
	values := func(*terraform.State) error {
		st, err := hostsim.ReadState(c.SimulatorStateDir())
		if err != nil {
			return err
		}
		r, ok := st.Releases[release]
		if !ok {
			return fmt.Errorf("got: no release %s want: the dedicated MinIO", release)
		}
		if _, shared := st.Releases["minio/minio"]; shared {
			return fmt.Errorf("got: the shared release minio/minio want: only the dedicated one")
		}
		p, _ := r.Values["persistence"].(map[string]any)
		env, _ := r.Values["environment"].(map[string]any)
		if p["size"] != "200Gi" || env["MINIO_REGION"] != "eu-central" || r.Values["extraSecret"] != nil {
			return fmt.Errorf("got: values %v want persistence.size 200Gi, MINIO_REGION eu-central and no extraSecret", r.Values)
		}
		return nil
	}
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: prov + cluster + tempo,
			Check:  values,
		}},
	})
}
