package provider

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/intentops/terraform-provider-cp/internal/hostsim"
	"github.com/intentops/terraform-provider-cp/internal/testhosts"
)

// endpointHCL is the parameters block giving the cluster's control-plane
// endpoint: the first master's address on port 6443, which the test
// hosts' simulated API server answers on (a load balancer in a real
// deployment).
func endpointHCL(c *testhosts.Cluster, endpoint string) string {
	if endpoint == "" {
		h, err := c.Host("master-1")
		if err != nil {
			panic(err)
		}
		endpoint = h.Addr + ":6443"
	}
	return fmt.Sprintf("parameters = { control_plane_endpoint = %q }", endpoint)
}

// Growing a cluster from one master to two through OpenTofu. A cluster
// created with an explicit control-plane endpoint plans master-2 as an
// update, not a replacement: add_master, whose join-control-plane waits
// for the join token and the certificates uploaded on master-1
// (generate-certificate-key); after it master-2 is a control-plane node
// and an etcd member, and the next plan is empty. A plan without the
// endpoint is refused on parameters["control_plane_endpoint"], saying
// why, before anything runs; one that changes the endpoint while adding
// the master is refused naming the endpoint the cluster was built with.
func TestAccKubernetesCluster_addMaster(t *testing.T) {
	testAccPreCheck(t)
	c := accHosts(t, "add-master", "master-1", "master-2")
	prov := accProvider(c, "")
	one := day2Cluster(c, "add-master", []string{"master-1"}, nil, endpointHCL(c, ""))
	two := day2Cluster(c, "add-master", []string{"master-1", "master-2"}, nil, endpointHCL(c, ""))
	noEndpoint := day2Cluster(c, "add-master", []string{"master-1", "master-2"}, nil, "")
	otherEndpoint := day2Cluster(c, "add-master", []string{"master-1", "master-2"}, nil, endpointHCL(c, "api.add-master.internal:6443"))
	addr := "cp_kubernetes_cluster.k"
	m1, err := c.Host("master-1")
	if err != nil {
		t.Fatal(err)
	}
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: prov + one,
				Check:  resource.TestCheckResourceAttr(addr, "operation.status", "Completed"),
			},
			{
				Config:      prov + noEndpoint,
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)Control-plane endpoint required.*parameters\["control_plane_endpoint"\]: 2 masters are listed.*load balancer\s+or\s+virtual\s+IP`),
			},
			{
				Config:      prov + otherEndpoint,
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)Masters added with another control-plane endpoint.*parameters\["control_plane_endpoint"\]: master\s+master-2\s+would\s+join\s+through\s+"api.add-master.internal:6443",\s+but\s+the\s+cluster\s+was\s+built\s+with\s+control-plane\s+endpoint\s+"` + regexp.QuoteMeta(m1.Addr) + `:6443":`),
			},
			{
				Config: prov + two,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("plan"), knownvalue.StringRegexp(regexp.MustCompile(`(?s)join-control-plane: master-2\n`))),
					needs(addr, "join-control-plane[master-2]", "generate-certificate-key[master-1]"),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(addr, "operation.action", "add_master"),
					resource.TestCheckResourceAttr(addr, "operation.status", "Completed"),
					resource.TestCheckTypeSetElemNestedAttrs(addr, "evidence.*", map[string]string{
						"instance": "join-control-plane[master-2]", "id": "node_is_control_plane", "passed": "true"}),
					func(*terraform.State) error {
						st, err := hostsim.ReadState(c.SimulatorStateDir())
						if err != nil {
							return err
						}
						if n := st.Nodes["master-2"]; n == nil || !n.ControlPlane {
							return fmt.Errorf("master-2 is not a control-plane node after add_master: %+v", n)
						}
						if got := etcdMembers(t, c); got != "master-1,master-2" {
							return fmt.Errorf("etcd members after adding master-2: %q, want master-1,master-2", got)
						}
						return nil
					},
				),
			},
			{
				Config:   prov + two,
				PlanOnly: true,
			},
		},
	})
}
