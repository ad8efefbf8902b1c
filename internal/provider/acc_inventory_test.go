package provider

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/intentops/terraform-provider-cp/internal/testhosts"
)

// inventoryCluster is a one-master cluster whose hosts come from file
// (an HCL expression), with extra arguments.
func inventoryCluster(file, extra string) string {
	return fmt.Sprintf(`
resource "cp_kubernetes_cluster" "c" {
  name           = "inv-k8s"
  inventory_file = %s
  %s
}
`, file, extra)
}

// writeInventory writes an inventory file in dir and returns its path.
func writeInventory(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	must(t, os.WriteFile(p, []byte(body), 0o644))
	return p
}

// Every refusal of an inventory file is a plan error on inventory_file
// that names the file, the host's position (and name) and the key; none
// connects anywhere (the addresses are where nothing listens).
func TestAccInventory_refusedAtPlan(t *testing.T) {
	dir := t.TempDir()
	good := "masters:\n  - { name: master-1, address: 127.0.0.251 }\nworkers:\n  - { name: worker-1, address: 127.0.0.252 }\n"
	file := func(name, body string) string { return fmt.Sprintf("%q", writeInventory(t, dir, name, body)) }
	cases := []struct{ name, config, want string }{
		{"both sources", inventoryCluster(file("both.yaml", good), `masters = [{ name = "master-1", address = "127.0.0.251" }]`),
			`(?s)Hosts given twice.*inventory_file: inventory_file and masters/workers blocks are both set.*remove inventory_file`},
		{"missing file", inventoryCluster(fmt.Sprintf("%q", filepath.Join(dir, "gone.yaml")), ""),
			`(?s)Invalid inventory file.*inventory_file: cannot read the inventory file: open .*gone.yaml: no such file`},
		{"unknown key", inventoryCluster(file("unknown.yaml", good+"  - { name: worker-2, adress: 127.0.0.253 }\n"), ""),
			`(?s)Invalid inventory file.*unknown.yaml: workers\[1\]: line 5: unknown key "adress"; the keys are address,`},
		{"bad address", inventoryCluster(file("address.yaml", strings.Replace(good, "127.0.0.252", "not an address!", 1)), ""),
			`(?s)inventory_file.*address.yaml: workers\[0\].address \(worker-1\):`},
		{"bad port", inventoryCluster(file("port.yaml", strings.Replace(good, "address: 127.0.0.252", "address: 127.0.0.252, port: 70000", 1)), ""),
			`(?s)inventory_file.*port.yaml: workers\[0\].port \(worker-1\): 70000 is not a port`},
		{"duplicate name", inventoryCluster(file("dup.yaml", strings.Replace(good, "name: worker-1", "name: master-1", 1)), ""),
			`(?s)Duplicate node name.*dup.yaml: workers\[0\].name \(master-1\): "master-1" is also used by masters\[0\]`},
		{"no masters", inventoryCluster(file("nomasters.yaml", "workers:\n  - { name: worker-1, address: 127.0.0.252 }\n"), ""),
			`(?s)No masters.*nomasters.yaml: masters: list at least one master`},
	}
	for _, tc := range cases {
		t.Run(strings.ReplaceAll(tc.name, " ", "_"), func(t *testing.T) {
			resource.Test(t, resource.TestCase{
				PreCheck:                 func() { testAccPreCheck(t) },
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps: []resource.TestStep{{
					Config:             badConfigProvider(t) + tc.config,
					PlanOnly:           true,
					ExpectNonEmptyPlan: true,
					// OpenTofu wraps the detail: a space matches any space.
					ExpectError: regexp.MustCompile(strings.ReplaceAll(tc.want, " ", `\s+`)),
				}},
			})
		})
	}
}

// An inventory_file known only at apply (another resource's output)
// plans its SHA-256 as known after apply, so apply accepts the file it
// then reads; a known one plans its SHA-256.
func TestAccInventory_sha256KnownAtPlan(t *testing.T) {
	dir := t.TempDir()
	f := writeInventory(t, dir, "hosts.yaml", "masters:\n  - { name: master-1, address: 127.0.0.251 }\n")
	sum := sha256.Sum256([]byte("masters:\n  - { name: master-1, address: 127.0.0.251 }\n"))
	addr := "cp_kubernetes_cluster.c"
	for _, tc := range []struct {
		name, config string
		check        plancheck.PlanCheck
	}{
		{"known", inventoryCluster(fmt.Sprintf("%q", f), ""),
			plancheck.ExpectKnownValue(addr, tfjsonpath.New("inventory_sha256"), knownvalue.StringExact(hex.EncodeToString(sum[:])))},
		{"unknown", fmt.Sprintf("resource \"terraform_data\" \"f\" {\n  input = %q\n}\n", f) + inventoryCluster("terraform_data.f.output", ""),
			plancheck.ExpectUnknownValue(addr, tfjsonpath.New("inventory_sha256"))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resource.Test(t, resource.TestCase{
				PreCheck:                 func() { testAccPreCheck(t) },
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps: []resource.TestStep{{
					Config:             badConfigProvider(t) + tc.config,
					PlanOnly:           true,
					ExpectNonEmptyPlan: true,
					ConfigPlanChecks:   resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{tc.check}},
				}},
			})
		})
	}
}

// hostsYAML is an inventory of test hosts.
func hostsYAML(c *testhosts.Cluster, masters []string, workers ...string) string {
	var b strings.Builder
	list := func(key string, names []string) {
		b.WriteString(key + ":\n")
		for _, n := range names {
			h, err := c.Host(n)
			if err != nil {
				panic(err)
			}
			fmt.Fprintf(&b, "  - name: %s\n    address: %s\n", h.Name, h.Addr)
		}
	}
	list("masters", masters)
	list("workers", workers)
	return b.String()
}

// A cluster from an inventory file through OpenTofu against test hosts:
// create; the plan after is empty; a worker left out of the file plans
// remove_node, shown as the change of inventory_sha256 and the removal's
// DAG, never as hosts; apply removes it and the next plan is empty; an
// import by a master's address is moved back to private state by the next
// apply, which runs nothing; with the file deleted, destroy uses the hosts
// kept in private state.
func TestAccInventory_createRemoveWorkerDestroy(t *testing.T) {
	testAccPreCheck(t)
	c := accHosts(t, "inv-k8s", "master-1", "worker-1", "worker-2")
	r := newTofuRun(t, accProvider(c, "")+inventoryCluster(`"${path.module}/hosts.yaml"`, `storage = "none"
  approvals = [{ gate = "confirm-node-removal", option = "remove node" }, { gate = "confirm-cluster-deletion", option = "delete cluster" }]`))
	hosts := filepath.Join(r.dir, "hosts.yaml")
	must(t, os.WriteFile(hosts, []byte(hostsYAML(c, []string{"master-1"}, "worker-1", "worker-2")), 0o644))
	w2, _ := c.Host("worker-2")

	created := r.mustTofu(0, "apply", "-auto-approve")
	if strings.Contains(created, `address = "`+w2.Addr+`"`) || !strings.Contains(created, "inventory_sha256") {
		t.Errorf("the create plan lists the inventory's hosts or lacks inventory_sha256:\n%s", created)
	}
	var st struct {
		Resources []struct {
			Instances []struct {
				Attributes map[string]any `json:"attributes"`
				Private    string         `json:"private"`
			} `json:"instances"`
		} `json:"resources"`
	}
	must(t, json.Unmarshal([]byte(r.mustTofu(0, "state", "pull")), &st))
	if len(st.Resources) != 1 || len(st.Resources[0].Instances) != 1 {
		t.Fatalf("state holds %d resources, want the cluster", len(st.Resources))
	}
	inst := st.Resources[0].Instances[0]
	if inst.Attributes["masters"] != nil || inst.Attributes["workers"] != nil || inst.Private == "" {
		t.Errorf("state lists the hosts (masters %v, workers %v) or has no private state", inst.Attributes["masters"], inst.Attributes["workers"])
	}
	if out := r.mustTofu(0, "plan"); !strings.Contains(out, "No changes.") {
		t.Fatalf("the plan after create is not empty:\n%s", out)
	}

	must(t, os.WriteFile(hosts, []byte(hostsYAML(c, []string{"master-1"}, "worker-1")), 0o644))
	plan := r.mustTofu(0, "plan")
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`~ inventory_sha256 += "[0-9a-f]{64}" -> "[0-9a-f]{64}"`),
		regexp.MustCompile(`\+ Remove node from Kubernetes cluster \(kubernetes.remove_node@1.0.0\)`),
		regexp.MustCompile(`(?m)^ +\+ +- drain-node: worker-2$`),
		regexp.MustCompile(`confirm-node-removal \(destructive\): approved by ci with option "remove node"`),
	} {
		if !want.MatchString(plan) {
			t.Errorf("the plan of the edited inventory lacks %s:\n%s", want, plan)
		}
	}
	// The hosts are in no line but the handle's (one line).
	for _, l := range strings.Split(plan, "\n") {
		if strings.Contains(l, `"`+w2.Addr+`"`) && !strings.Contains(l, "cp.handle.v1") {
			t.Errorf("the plan of the edited inventory lists a host: %q", l)
		}
	}
	// (The handle names how many masters and workers the file lists.)
	if regexp.MustCompile(`(?m)^\s+[-+~] (masters|workers)\s`).MatchString(plan) {
		t.Errorf("the plan of the edited inventory shows masters or workers:\n%s", plan)
	}
	r.mustTofu(0, "apply", "-auto-approve")
	if err := simRegistered(c, "worker-2", false); err != nil {
		t.Errorf("after remove_node: %v", err)
	}
	if out := r.mustTofu(0, "plan"); !strings.Contains(out, "No changes.") {
		t.Fatalf("the plan after the removal is not empty:\n%s", out)
	}

	// Import by a master's address brings the hosts back as masters and
	// workers lists (the record does not say they came from a file); the
	// apply after moves them to private state and runs nothing.
	m1, _ := c.Host("master-1")
	r.mustTofu(0, "state", "rm", "cp_kubernetes_cluster.c")
	r.mustTofu(0, "import", "cp_kubernetes_cluster.c", "inv-k8s@"+m1.Addr)
	imported := r.mustTofu(0, "apply", "-auto-approve")
	if !strings.Contains(imported, "+ inventory_sha256") || strings.Contains(imported, "kubernetes.add_node") ||
		strings.Contains(imported, "kubernetes.remove_node") || strings.Contains(imported, "kubernetes.create") {
		t.Errorf("the apply after the import runs an operation or lacks inventory_sha256:\n%s", imported)
	}
	must(t, json.Unmarshal([]byte(r.mustTofu(0, "state", "pull")), &st))
	if inst := st.Resources[0].Instances[0]; inst.Attributes["masters"] != nil || inst.Attributes["workers"] != nil || inst.Private == "" {
		t.Errorf("after the import's apply the state lists the hosts (masters %v, workers %v) or has no private state", inst.Attributes["masters"], inst.Attributes["workers"])
	}
	if out := r.mustTofu(0, "plan"); !strings.Contains(out, "No changes.") {
		t.Fatalf("the plan after the import's apply is not empty:\n%s", out)
	}

	// Back to blocks with the same hosts: an update that runs nothing,
	// the hosts in state again and none in private state; then to the
	// file again.
	approvals := `approvals = [{ gate = "confirm-node-removal", option = "remove node" }, { gate = "confirm-cluster-deletion", option = "delete cluster" }]`
	r.write(accProvider(c, "") + fmt.Sprintf(`
resource "cp_kubernetes_cluster" "c" {
  name    = "inv-k8s"
  storage = "none"
  masters = %s
  workers = %s
  %s
}
`, nodesHCL(c, "master-1"), nodesHCL(c, "worker-1"), approvals))
	inline := r.mustTofu(0, "apply", "-auto-approve")
	if !strings.Contains(inline, "- inventory_sha256") || strings.Contains(inline, "kubernetes.") && strings.Contains(inline, "will run") {
		t.Errorf("moving the hosts back to blocks runs an operation or keeps inventory_sha256:\n%s", inline)
	}
	must(t, json.Unmarshal([]byte(r.mustTofu(0, "state", "pull")), &st))
	if inst := st.Resources[0].Instances[0]; inst.Attributes["masters"] == nil {
		t.Errorf("with blocks again the state has no masters")
	}
	if out := r.mustTofu(0, "plan"); !strings.Contains(out, "No changes.") {
		t.Fatalf("the plan after moving back to blocks is not empty:\n%s", out)
	}
	r.write(accProvider(c, "") + inventoryCluster(`"${path.module}/hosts.yaml"`, `storage = "none"
  `+approvals))
	r.mustTofu(0, "apply", "-auto-approve")
	if out := r.mustTofu(0, "plan"); !strings.Contains(out, "No changes.") {
		t.Fatalf("the plan after moving to the file again is not empty:\n%s", out)
	}

	// With the file deleted, a plan warns and keeps the state's hosts;
	// destroy uses them.
	must(t, os.Remove(hosts))
	if out := r.mustTofu(0, "plan"); !strings.Contains(out, "No changes.") || !strings.Contains(out, "Warning: Inventory file not found") {
		t.Errorf("the plan without the file does not warn and plan nothing:\n%s", out)
	}
	destroyed := r.mustTofu(0, "destroy", "-auto-approve")
	if !strings.Contains(destroyed, "Destroy complete! Resources: 1 destroyed.") {
		t.Errorf("destroy without the file:\n%s", destroyed)
	}
	if err := simRegistered(c, "master-1", false); err != nil {
		t.Errorf("after destroy: %v", err)
	}
}

// A 1,000-node create from an inventory file: the plan does not list the
// hosts and is at most 200 lines; its golden.
func TestAccPlanView_create1000Inventory(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("TF_ACC is not set")
	}
	testAccPreCheck(t)
	r := newTofuRun(t, planViewProvider(t)+fmt.Sprintf(`
resource "cp_kubernetes_cluster" "prod" {
  name                     = "prod-k8s"
  region                   = "eu-central"
  require_ha_control_plane = true
  storage                  = "longhorn"
  pod_cidr                 = "10.244.0.0/14"
  parameters               = { control_plane_endpoint = %q }
  inventory_file           = "${path.module}/hosts.yaml"
}
`, "10.0.0.1:6443"))
	var b strings.Builder
	b.WriteString("masters:\n")
	for i := range 3 {
		fmt.Fprintf(&b, "  - { name: master-%d, address: 10.0.0.%d }\n", i+1, i+1)
	}
	b.WriteString("workers:\n")
	for i := range 997 {
		fmt.Fprintf(&b, "  - { name: worker-%d, address: 10.1.%d.%d }\n", i+1, (i/250)%250, i%250+1)
	}
	must(t, os.WriteFile(filepath.Join(r.dir, "hosts.yaml"), []byte(b.String()), 0o644))
	got := tofuPlan(t, r)
	t.Logf("tofu plan of a 1,000-node create from an inventory file: %d lines", lineCount(got))
	checkGolden(t, "plan_1000_inventory.golden", got)
	if n := lineCount(got); n > 200 {
		t.Errorf("tofu plan of a 1,000-node create from an inventory file is %d lines, want at most 200:\n%s", n, got)
	}
	// The handle refers to the inventory, so the whole plan fits a
	// pull-request comment cut at 60,000 characters.
	t.Logf("tofu plan of a 1,000-node create from an inventory file: %d bytes", len(got))
	if len(got) >= 60000 {
		t.Errorf("tofu plan of a 1,000-node create from an inventory file is %d bytes, want under 60,000:\n%s", len(got), got)
	}
	if !regexp.MustCompile(`\+ handle += "cp\.handle\.v1 .*\\"inventory\\":\{\\"file\\":\\"<tmp>/work/hosts\.yaml\\",\\"sha256\\":\\"[0-9a-f]{64}\\",\\"masters\\":3,\\"workers\\":997\}`).MatchString(got) {
		t.Errorf("the handle does not refer to the inventory file:\n%s", got)
	}
	if hostEntryRE.MatchString(got) || strings.Contains(got, `address = "10.1.`) {
		t.Errorf("the plan lists the inventory's hosts:\n%s", got)
	}
	if !strings.Contains(got, "hosts (1000): master-1..3, worker-1..997") || !strings.Contains(got, "join-workers (997): worker-1..997") ||
		!regexp.MustCompile(`\+ inventory_sha256 += "[0-9a-f]{64}"`).MatchString(got) {
		t.Errorf("the plan lacks the hosts as ranges or inventory_sha256:\n%s", got)
	}
}
