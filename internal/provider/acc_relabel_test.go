package provider

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"golang.org/x/crypto/ssh"

	"github.com/intentops/terraform-provider-cp/internal/hostsim"
	"github.com/intentops/terraform-provider-cp/internal/testhosts"
)

// onHost runs a shell command on a test host as its login user.
func onHost(t *testing.T, c *testhosts.Cluster, host, cmd string) string {
	t.Helper()
	h, err := c.Host(host)
	must(t, err)
	cfg, err := h.ClientConfig()
	must(t, err)
	cl, err := ssh.Dial("tcp", h.Target(), cfg)
	must(t, err)
	defer cl.Close()
	s, err := cl.NewSession()
	must(t, err)
	defer s.Close()
	var out, errb bytes.Buffer
	s.Stdout, s.Stderr = &out, &errb
	if err := s.Run(cmd); err != nil {
		t.Fatalf("%s on %s: %v\n%s%s", cmd, host, err, out.String(), errb.String())
	}
	return out.String()
}

// simNode checks a node's labels and taints in the simulator's API state:
// every label of want with its value, no key of gone, exactly the taints
// listed (the simulator keeps none of its own in the node).
func simNode(c *testhosts.Cluster, name string, want map[string]string, gone []string, taints ...string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		st, err := hostsim.ReadState(c.SimulatorStateDir())
		if err != nil {
			return err
		}
		n := st.Nodes[name]
		if n == nil {
			return fmt.Errorf("node %s is not registered in the simulator", name)
		}
		for k, v := range want {
			if got, ok := n.Labels[k]; !ok || got != v {
				return fmt.Errorf("node %s: label %s = %q (present %v), want %q; labels %v", name, k, got, ok, v, n.Labels)
			}
		}
		for _, k := range gone {
			if _, ok := n.Labels[k]; ok {
				return fmt.Errorf("node %s still has label %s; labels %v", name, k, n.Labels)
			}
		}
		got := slices.Sorted(slices.Values(n.Taints))
		if w := slices.Sorted(slices.Values(taints)); !slices.Equal(got, w) {
			return fmt.Errorf("node %s: taints %q, want %q", name, got, w)
		}
		return nil
	}
}

// Label and taint changes on existing nodes reach the API server, and a
// change made there behind Terraform's back shows in the next plan and is
// put back by the apply (issue 12).
func TestAccKubernetesCluster_relabel(t *testing.T) {
	testAccPreCheck(t)
	c := accHosts(t, "relabel", "master-1", "worker-1")
	prov := accProvider(c, "")
	m1, _ := c.Host("master-1")
	w1, _ := c.Host("worker-1")
	addr := "cp_kubernetes_cluster.k"
	cluster := func(masterLabels, workerLabels, workerTaints string) string {
		return prov + fmt.Sprintf(`
resource "cp_kubernetes_cluster" "k" {
  name    = "relabel"
  storage = "none"
  masters = [{ name = "master-1", address = %q, labels = %s }]
  workers = [{ name = "worker-1", address = %q, labels = %s, taints = %s }]
  approvals = [{ gate = "confirm-cluster-deletion", option = "delete cluster" }]
}
`, m1.Addr, masterLabels, w1.Addr, workerLabels, workerTaints)
	}
	before := cluster(`{ rack = "r1" }`, `{ tier = "app", zone = "a" }`, `["dedicated=db:NoSchedule"]`)
	after := cluster(`{ rack = "r2" }`, `{ tier = "db", "example.com/team" = "payments" }`, `["dedicated=web:NoSchedule", "gpu:NoExecute"]`)
	kubectl := "sudo kubectl --kubeconfig /etc/kubernetes/admin.conf "
	relabelPlanned := []plancheck.PlanCheck{
		plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
		plancheck.ExpectKnownValue(addr, tfjsonpath.New("plan_summary"), knownvalue.StringRegexp(regexp.MustCompile(`kubernetes.relabel@1.0.0`))),
		plancheck.ExpectKnownValue(addr, tfjsonpath.New("plan"), knownvalue.StringRegexp(regexp.MustCompile(`(?m)^  - relabel-nodes: master-1$`))),
	}
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: before,
				Check: resource.ComposeAggregateTestCheckFunc(
					simNode(c, "worker-1", map[string]string{"tier": "app", "zone": "a"}, nil, "dedicated=db:NoSchedule"),
					simNode(c, "master-1", map[string]string{"rack": "r1"}, nil, "node-role.kubernetes.io/control-plane:NoSchedule"),
				),
			},
			{
				// Changed labels and taints of both nodes: one relabel
				// operation, run from the first master.
				// The plan shows exactly the change (in the job's key).
				Config: after,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: append(slices.Clone(relabelPlanned),
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("planned_instances").AtMapKey("relabel-nodes[master-1]").AtMapKey("idempotency_key"),
						knownvalue.StringRegexp(regexp.MustCompile(
							`^relabel-nodes:relabel:master-1/rack=r2,worker-1/example\.com/team=payments,worker-1/tier=db,worker-1/zone-,`+
								`worker-1/dedicated=web:NoSchedule,worker-1/gpu:NoExecute$`))))},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(addr, "operation.action", "relabel"),
					resource.TestCheckResourceAttr(addr, "operation.status", "Completed"),
					simNode(c, "worker-1", map[string]string{"tier": "db", "example.com/team": "payments"}, []string{"zone"},
						"dedicated=web:NoSchedule", "gpu:NoExecute"),
					simNode(c, "master-1", map[string]string{"rack": "r2"}, nil, "node-role.kubernetes.io/control-plane:NoSchedule"),
					func(*terraform.State) error {
						// Read back through kubectl on the host, as a person would.
						got := onHost(t, c, "master-1", kubectl+"get node worker-1 -o jsonpath='{.metadata.labels.tier}'")
						if got != "db" {
							return fmt.Errorf("kubectl reads tier=%q on worker-1, want db", got)
						}
						return nil
					},
				),
			},
			{
				// Nothing changed: no operation.
				Config: after,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionNoop),
				}},
			},
			{
				// A label changed and a taint removed behind Terraform's
				// back: refresh records them, the plan is not empty.
				PreConfig: func() {
					onHost(t, c, "master-1", kubectl+"label node worker-1 --overwrite tier=drifted")
					onHost(t, c, "master-1", kubectl+"taint node worker-1 gpu:NoExecute-")
				},
				Config:             after,
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
			{
				// Applying puts the configuration back.
				Config:           after,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: relabelPlanned},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(addr, "operation.action", "relabel"),
					simNode(c, "worker-1", map[string]string{"tier": "db", "example.com/team": "payments"}, []string{"zone"},
						"dedicated=web:NoSchedule", "gpu:NoExecute"),
				),
			},
			{
				// A label Kubernetes or someone else adds is not managed:
				// no drift.
				PreConfig: func() {
					onHost(t, c, "master-1", kubectl+"label node worker-1 added-by-hand=yes")
				},
				Config: after,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionNoop),
				}},
			},
		},
	})
}
