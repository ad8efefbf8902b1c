package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/intentops/terraform-provider-cp/internal/hostsim"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
	"github.com/intentops/terraform-provider-cp/internal/testhosts"
)

// timelineOf reads the statuses of operation.timeline in order from a
// resource's state ("<time> <event> <Status>[: detail]" lines).
func timelineOf(s *terraform.State, addr string) ([]string, error) {
	rs, ok := s.RootModule().Resources[addr]
	if !ok {
		return nil, fmt.Errorf("%s is not in state", addr)
	}
	at := rs.Primary.Attributes
	n, err := strconv.Atoi(at["operation.timeline.#"])
	if err != nil {
		return nil, fmt.Errorf("%s has no operation.timeline: %w", addr, err)
	}
	known := map[string]bool{}
	for _, st := range protocol.Statuses {
		known[string(st)] = true
	}
	var out []string
	for i := range n {
		// time, event, status[:]: the time holds colons, so split fields.
		f := strings.Fields(at[fmt.Sprintf("operation.timeline.%d", i)])
		if len(f) >= 3 && known[strings.TrimSuffix(f[2], ":")] {
			out = append(out, f[1]+" "+strings.TrimSuffix(f[2], ":"))
		}
	}
	return out, nil
}

// wantTimeline checks that the timeline's "event Status" entries are
// exactly want.
func wantTimeline(addr string, want ...string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		got, err := timelineOf(s, addr)
		if err != nil {
			return err
		}
		if strings.Join(got, " > ") != strings.Join(want, " > ") {
			return fmt.Errorf("timeline got: %s\nwant: %s", strings.Join(got, " > "), strings.Join(want, " > "))
		}
		return nil
	}
}

// hostFile checks whether a file exists on a test host (its upper layer).
func hostFile(c *testhosts.Cluster, host, path string, want bool) resource.TestCheckFunc {
	return func(*terraform.State) error {
		h, err := c.Host(host)
		if err != nil {
			return err
		}
		_, err = os.Stat(filepath.Join(h.Upper, path))
		if got := err == nil; got != want {
			return fmt.Errorf("%s on %s exists: %v, want %v", path, host, got, want)
		}
		return nil
	}
}

// A create with pause_after_stage = "install-runtime" stops after that
// stage: the resource is saved with its operation Paused (a warning, not
// an error), kubeadm init never ran on master-1 (no admin.conf) and the
// next plan shows the resume. A stage the plan does not have is refused at
// plan on pause_after_stage. With the argument removed, apply resumes the
// same operation (Paused > Running) to Completed, running the later
// stages only: the earlier ones are satisfied from their markers.
func TestAccPause_afterStageAndResume(t *testing.T) {
	testAccPreCheck(t)
	c := accHosts(t, "pause", "master-1", "worker-1")
	prov := accProvider(c, "")
	cluster := func(extra string) string {
		return prov + storagelessClusterHCL(c, "pause", []string{"worker-1"}, extra)
	}
	const addr = "cp_kubernetes_cluster.k"
	planned := []string{"created DraftIntent", "status PlanPreview", "status CapabilityResolution", "status Running"}
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      cluster(`  pause_after_stage = "no-such-stage"`),
				ExpectError: regexp.MustCompile(`(?s)Unknown stage.*"no-such-stage" is not a stage.*install-runtime`),
			},
			{
				Config:             cluster(`  pause_after_stage = "install-runtime"`),
				ExpectNonEmptyPlan: true, // the paused operation is to be resumed
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(addr, "operation.status", "Paused"),
					wantTimeline(addr, append(planned, "status Paused")...),
					// install-runtime ran, init-control-plane did not.
					hostFile(c, "master-1", "etc/kubernetes/admin.conf", false),
					hostFile(c, "worker-1", "etc/kubernetes/kubelet.conf", false),
				),
			},
			{
				Config: cluster(""),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(addr, "operation.status", "Completed"),
					wantTimeline(addr, append(planned, "status Paused", "resumed Paused", "status Running", "status Completed")...),
					resource.TestCheckResourceAttrWith(addr, "operation.jobs_satisfied", func(v string) error {
						if n, _ := strconv.Atoi(v); n == 0 {
							return fmt.Errorf("jobs_satisfied is 0: the stages before the pause ran again")
						}
						return nil
					}),
					hostFile(c, "master-1", "etc/kubernetes/admin.conf", true),
				),
			},
		},
	})
}

// A resume that fails, then a fix by hand: the cluster pauses after
// validate-nodes; with name resolution broken on worker-1 (the dns
// fault) the resumed operation fails at validate-credentials there and
// the failure is diagnosed (Failed > Diagnosing, and PlanPatchReview when
// a patch is proposed); the prior state keeps that record. The operator
// then repairs /etc/resolv.conf on worker-1 by hand and does the check
// the failed job did not reach (the registry probe list it writes), and
// records the fix in interventions: the next apply continues the same
// operation, verifies the fix with the job's evidence (Failed >
// Verification > Running) and completes.
func TestAccPause_failedResumeThenIntervention(t *testing.T) {
	testAccPreCheck(t)
	c := accHosts(t, "pausefix", "master-1", "worker-1")
	prov := accProvider(c, "")
	cluster := func(extra string) string {
		return prov + storagelessClusterHCL(c, "pausefix", []string{"worker-1"}, extra)
	}
	const addr = "cp_kubernetes_cluster.k"
	planned := []string{"created DraftIntent", "status PlanPreview", "status CapabilityResolution", "status Running", "status Paused",
		"resumed Paused", "status Running", "status Failed", "status Diagnosing"}
	fixed := []string{"resumed Failed", "status Verification", "status Running", "status Completed"}
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:             cluster(`  pause_after_stage = "validate-nodes"`),
				ExpectNonEmptyPlan: true,
				Check:              resource.TestCheckResourceAttr(addr, "operation.status", "Paused"),
			},
			{
				PreConfig:   func() { must(t, c.SetFault(hostsim.Fault{Kind: hostsim.FaultDNS, Host: "worker-1"})) },
				Config:      cluster(""),
				ExpectError: regexp.MustCompile(`validate-credentials\[worker-1\] failed`),
			},
			{
				PreConfig: func() {
					onHost(t, c, "worker-1", `sudo sh -c "printf 'nameserver 192.0.2.53\n' >/etc/resolv.conf &&
getent hosts registry.k8s.io >/dev/null &&
mkdir -p /var/lib/cp/kubernetes &&
printf 'https://registry.k8s.io/v2/\n' >/var/lib/cp/kubernetes/registry-probes"`)
				},
				Config: cluster(`  interventions = [{ job = "validate-credentials", node = "worker-1", note = "resolv.conf repaired by hand" }]`),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(addr, "operation.status", "Completed"),
					func(s *terraform.State) error {
						got, err := timelineOf(s, addr)
						if err != nil {
							return err
						}
						// The diagnosis ends in PlanPatchReview (a patch
						// proposed, not taken: back to Failed) or in Failed.
						for _, diagnosis := range [][]string{{"status PlanPatchReview", "status Failed"}, {"status Failed"}} {
							want := append(append(append([]string(nil), planned...), diagnosis...), fixed...)
							if strings.Join(got, " > ") == strings.Join(want, " > ") {
								return nil
							}
						}
						return fmt.Errorf("timeline got: %s\nwant: %s > [PlanPatchReview >] Failed > %s", strings.Join(got, " > "), strings.Join(planned, " > "), strings.Join(fixed, " > "))
					},
				),
			},
			{
				// The fix recorded, the intervention leaves the
				// configuration (the destroy's plan has no such job).
				Config: cluster(""),
				Check:  resource.TestCheckResourceAttr(addr, "operation.status", "Completed"),
			},
		},
	})
}

// The join token a later add_node consumes comes from private state: the
// create keeps it there with its expiry, and the add_node of worker-2
// joins with it even though the file its reference names on master-1 is
// gone (without the kept value the run reads the reference and fails).
func TestAccPrivate_joinTokenFromPrivateState(t *testing.T) {
	testAccPreCheck(t)
	c := accHosts(t, "privtok", "master-1", "worker-1", "worker-2")
	prov := accProvider(c, "")
	cluster := func(workers ...string) string {
		return prov + storagelessClusterHCL(c, "privtok", workers, "")
	}
	const addr = "cp_kubernetes_cluster.k"
	var tokenRef string
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: cluster("worker-1"),
				Check: func(s *terraform.State) error {
					at := s.RootModule().Resources[addr].Primary.Attributes
					n, _ := strconv.Atoi(at["artifacts.#"])
					for i := range n {
						if at[fmt.Sprintf("artifacts.%d.id", i)] == "kubeadm.join_token" {
							tokenRef = at[fmt.Sprintf("artifacts.%d.ref", i)]
							if v := at[fmt.Sprintf("artifacts.%d.value", i)]; v != "" {
								return fmt.Errorf("the join token's value is in the state's artifacts")
							}
						}
					}
					if !strings.HasPrefix(tokenRef, "master-1:/") {
						return fmt.Errorf("join token reference got: %q want: master-1:/...", tokenRef)
					}
					return nil
				},
			},
			{
				PreConfig: func() {
					onHost(t, c, "master-1", "sudo rm -f -- "+shellWord(strings.TrimPrefix(tokenRef, "master-1:")))
				},
				Config: cluster("worker-1", "worker-2"),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(addr, "operation.action", "add_node"),
					resource.TestCheckResourceAttr(addr, "operation.status", "Completed"),
					hostFile(c, "worker-2", "etc/kubernetes/kubelet.conf", true),
				),
			},
		},
	})
}

// shellWord quotes s as one word for a POSIX shell.
func shellWord(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
