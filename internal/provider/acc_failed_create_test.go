package provider

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/intentops/terraform-provider-cp/internal/hostsim"
	"github.com/intentops/terraform-provider-cp/internal/operation"
	"github.com/intentops/terraform-provider-cp/internal/testhosts"
)

// failedCreateRecord reads the failed-create record kept on a test host:
// its path, mode and owner, and the record.
func failedCreateRecord(t *testing.T, c *testhosts.Cluster, host string) (string, string, operation.Kept) {
	t.Helper()
	h, err := c.Host(host)
	must(t, err)
	files, err := filepath.Glob(filepath.Join(h.Upper, operation.FailedDir, "create.*.json"))
	must(t, err)
	if len(files) != 1 {
		t.Fatalf("%s keeps %d failed-create records (%v), want 1", host, len(files), files)
	}
	p := filepath.Join(operation.FailedDir, filepath.Base(files[0]))
	meta := strings.TrimSpace(onHost(t, c, host, "sudo stat -c '%a %U' "+shellWord(p)))
	var k operation.Kept
	must(t, json.Unmarshal([]byte(onHost(t, c, host, "sudo cat -- "+shellWord(p))), &k))
	return p, meta, k
}

// statuses is the "event Status" entries of a record's timeline.
func statuses(k operation.Kept) string {
	var s []string
	for _, e := range k.Operation.Timeline {
		s = append(s, e.Event+" "+string(e.Status))
	}
	return strings.Join(s, " > ")
}

// A create that fails saves no state, yet its operation lives on: with
// name resolution broken on worker-1 (the dns fault) the create fails at
// validate-credentials there; its record (Failed, after its diagnosis) is
// kept root-only (0600) on master-1. Applied again with nothing fixed and
// no intervention, the create continues the same operation (resumed
// Failed > Running, no Verification) and fails again. Then the operator
// repairs /etc/resolv.conf by hand, does the check the failed job did not
// reach and records the fix in interventions: the next create continues
// the operation through Verification to Completed, operation.timeline
// shows the failures, and the record is gone from master-1.
func TestAccFailedCreate_recordOnHostThenIntervention(t *testing.T) {
	testAccPreCheck(t)
	c := accHosts(t, "failcreate", "master-1", "worker-1")
	prov := accProvider(c, "")
	cluster := func(extra string) string {
		return prov + storagelessClusterHCL(c, "failcreate", []string{"worker-1"}, extra)
	}
	const addr = "cp_kubernetes_cluster.k"
	// A diagnosis ends in Failed, through PlanPatchReview when it proposed
	// a patch the plan does not take.
	const diagnosed = `status Failed > status Diagnosing > (status PlanPatchReview > )?status Failed`
	first := `^created DraftIntent > status PlanPreview > status CapabilityResolution > status Running > ` + diagnosed
	again := ` > resumed Failed > status Running > ` + diagnosed
	var recordPath, opID string
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				PreConfig:   func() { must(t, c.SetFault(hostsim.Fault{Kind: hostsim.FaultDNS, Host: "worker-1"})) },
				Config:      cluster(""),
				ExpectError: regexp.MustCompile(`validate-credentials\[worker-1\] failed`),
			},
			{
				PreConfig: func() {
					p, meta, k := failedCreateRecord(t, c, "master-1")
					if meta != "600 root" {
						t.Fatalf("record %s: mode and owner %q, want \"600 root\"", p, meta)
					}
					if !strings.HasPrefix(k.Operation.ID, "failcreate.create.") || !k.Create || k.Action != "create" {
						t.Fatalf("record %s: operation %s, action %s, create %v", p, k.Operation.ID, k.Action, k.Create)
					}
					if got := statuses(k); !regexp.MustCompile(first + `$`).MatchString(got) {
						t.Fatalf("record timeline got: %s\nwant: %s", got, first)
					}
					recordPath, opID = p, k.Operation.ID
				},
				Config:      cluster(""),
				ExpectError: regexp.MustCompile(`validate-credentials\[worker-1\] failed`),
			},
			{
				PreConfig: func() {
					_, _, k := failedCreateRecord(t, c, "master-1")
					if k.Operation.ID != opID {
						t.Fatalf("the second create recorded operation %s, want %s continued", k.Operation.ID, opID)
					}
					if got := statuses(k); !regexp.MustCompile(first + again + `$`).MatchString(got) {
						t.Fatalf("record timeline got: %s\nwant: %s", got, first+again)
					}
					onHost(t, c, "worker-1", `sudo sh -c "printf 'nameserver 192.0.2.53\n' >/etc/resolv.conf &&
getent hosts registry.k8s.io >/dev/null &&
mkdir -p /var/lib/cp/kubernetes &&
printf 'https://registry.k8s.io/v2/\n' >/var/lib/cp/kubernetes/registry-probes"`)
				},
				Config: cluster(`  interventions = [{ job = "validate-credentials", node = "worker-1", note = "resolv.conf repaired by hand" }]`),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(addr, "operation.status", "Completed"),
					resource.TestCheckResourceAttrWith(addr, "operation.id", func(v string) error {
						if v != opID {
							return fmt.Errorf("operation.id %s, want the failed create's %s", v, opID)
						}
						return nil
					}),
					func(s *terraform.State) error {
						got, err := timelineOf(s, addr)
						if err != nil {
							return err
						}
						want := first + again + ` > resumed Failed > status Verification > status Running > status Completed$`
						if !regexp.MustCompile(want).MatchString(strings.Join(got, " > ")) {
							return fmt.Errorf("timeline got: %s\nwant: %s", strings.Join(got, " > "), want)
						}
						return nil
					},
					func(s *terraform.State) error { return hostFile(c, "master-1", recordPath, false)(s) },
				),
			},
			{
				Config: cluster(""),
				Check:  resource.TestCheckResourceAttr(addr, "operation.status", "Completed"),
			},
		},
	})
}
