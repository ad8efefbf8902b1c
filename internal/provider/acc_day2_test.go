package provider

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/intentops/terraform-provider-cp/internal/hostsim"
	"github.com/intentops/terraform-provider-cp/internal/testhosts"
)

// day2Kubectl is kubectl with the admin kubeconfig, as a person on a
// master runs it.
const day2Kubectl = "sudo kubectl --kubeconfig /etc/kubernetes/admin.conf "

// day2Cluster is a cluster of the given masters and workers, version
// and extra arguments, whose deletion is approved.
func day2Cluster(c *testhosts.Cluster, name string, masters, workers []string, extra string) string {
	w := "[]"
	if len(workers) > 0 {
		w = nodesHCL(c, workers...)
	}
	return fmt.Sprintf(`
resource "cp_kubernetes_cluster" "k" {
  name           = %q
  storage        = "none"
  refresh_health = false
  masters        = %s
  workers        = %s
  approvals      = [{ gate = "confirm-cluster-deletion", option = "delete cluster" }]
  %s
}
`, name, nodesHCL(c, masters...), w, extra)
}

// day2Action is a kubernetes pack day-2 action on the cluster through
// cp_scenario.
func day2Action(res, name, action, extra string) string {
	return fmt.Sprintf(`
resource "cp_scenario" %q {
  pack           = "kubernetes"
  action         = %q
  name           = %q
  cluster_handle = cp_kubernetes_cluster.k.handle
  %s
}
`, res, action, name, extra)
}

// simUnschedulable checks a node's spec.unschedulable in the simulator's
// API state.
func simUnschedulable(c *testhosts.Cluster, name string, want bool) error {
	st, err := hostsim.ReadState(c.SimulatorStateDir())
	if err != nil {
		return err
	}
	n := st.Nodes[name]
	if n == nil {
		return fmt.Errorf("node %s is not registered in the simulator", name)
	}
	if n.Unschedulable != want {
		return fmt.Errorf("node %s unschedulable = %v, want %v", name, n.Unschedulable, want)
	}
	return nil
}

const day2Web = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      nodeSelector: {kubernetes.io/hostname: worker-1}
      containers: [{name: web, image: nginx}]
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web-pdb, namespace: default}
spec:
  minAvailable: 2
  selector: {matchLabels: {app: web}}
`

// The drain action through OpenTofu, on worker-1 only (targets): a
// PodDisruptionBudget that allows no disruption of web's two pods, both
// on worker-1, blocks it; after drain_timeout the apply fails naming the
// node, the pod and the budget, and the node is schedulable again. With
// the budget gone the same apply resumes and drains it (cordoned), then
// the uncordon action makes it schedulable. master-1 is never cordoned.
// A target that is not a host of the cluster is refused at plan on
// targets[0].
func TestAccDay2_drainBlockedByPDB(t *testing.T) {
	testAccPreCheck(t)
	c := accHosts(t, "drain-pdb", "master-1", "worker-1")
	prov := accProvider(c, "")
	cluster := day2Cluster(c, "drain-pdb", []string{"master-1"}, []string{"worker-1"}, "")
	drain := day2Action("drain", "drain-pdb", "drain", `targets    = ["worker-1"]
  parameters = { drain_timeout = "6s" }
  approvals  = [{ gate = "confirm-drain", option = "drain" }]`)
	uncordon := day2Action("drain", "drain-pdb", "uncordon", `targets = ["worker-1"]`)
	schedulable := func(node string, want bool) resource.TestCheckFunc {
		return func(*terraform.State) error { return simUnschedulable(c, node, !want) }
	}
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: prov + cluster},
			{
				Config:      prov + cluster + day2Action("drain", "drain-pdb", "drain", `targets = ["worker-9"]`),
				ExpectError: regexp.MustCompile(`(?s)Unknown target.*target "worker-9" is not a host of the intent \(master-1,\s+worker-1\)`),
			},
			{
				PreConfig: func() {
					onHost(t, c, "master-1", "cat > /tmp/web.yaml <<'EOF'\n"+day2Web+"EOF\n"+day2Kubectl+"apply -f /tmp/web.yaml")
				},
				Config: prov + cluster + drain,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue("cp_scenario.drain", tfjsonpath.New("plan"), knownvalue.StringRegexp(regexp.MustCompile(`(?m)^  - drain-cordoned-node: worker-1$`))),
				}},
				ExpectError: regexp.MustCompile(`(?s)drain-cordoned-node on worker-1: PodDisruptionBudget default/web-pdb allows no\s+eviction of\s+default/web-[a-z0-9-]+,\s+default/web-[a-z0-9-]+\s+from\s+node\s+worker-1\s+within\s+drain_timeout\s+6s.*Node\s+worker-1\s+was\s+uncordoned\s+again`),
			},
			{
				// The failed drain left worker-1 schedulable; without the
				// budget the same drain resumes and completes.
				PreConfig: func() {
					if err := simUnschedulable(c, "worker-1", false); err != nil {
						t.Fatalf("after the blocked drain: %v", err)
					}
					onHost(t, c, "master-1", day2Kubectl+"delete poddisruptionbudget web-pdb")
				},
				Config: prov + cluster + drain,
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("cp_scenario.drain", "operation.status", "Completed"),
					schedulable("worker-1", false), schedulable("master-1", true),
				),
			},
			{
				Config: prov + cluster + uncordon,
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("cp_scenario.drain", "operation.action", "uncordon"),
					schedulable("worker-1", true), schedulable("master-1", true),
				),
			},
		},
	})
}

// artifactOf is the attributes of the artifact id in a resource's state.
func artifactOf(s *terraform.State, addr, id string) (map[string]string, error) {
	rs := s.RootModule().Resources[addr]
	if rs == nil {
		return nil, fmt.Errorf("%s is not in the state", addr)
	}
	a := rs.Primary.Attributes
	for i := 0; a[fmt.Sprintf("artifacts.%d.id", i)] != ""; i++ {
		if a[fmt.Sprintf("artifacts.%d.id", i)] == id {
			out := map[string]string{}
			for _, k := range []string{"value", "fingerprint", "ref", "sensitivity", "producer"} {
				out[k] = a[fmt.Sprintf("artifacts.%d.%s", i, k)]
			}
			return out, nil
		}
	}
	return nil, fmt.Errorf("%s has no artifact %s", addr, id)
}

// snapshotArtifact checks the etcd.snapshot artifact of a resource: its
// fingerprint is the SHA-256 of the manifest etcd-snapshot wrote, and the snapshot file it names
// on master-1 has the sha256 it records (read there with sha256sum).
func snapshotArtifact(t *testing.T, c *testhosts.Cluster, addr string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		a, err := artifactOf(s, addr, "etcd.snapshot")
		if err != nil {
			return err
		}
		// The job wrote the manifest with a final newline; the state keeps
		// the value without it.
		sum := sha256.Sum256([]byte(a["value"] + "\n"))
		if want := "sha256:" + hex.EncodeToString(sum[:]); a["fingerprint"] != want {
			return fmt.Errorf("etcd.snapshot fingerprint %q, want %q (the SHA-256 of the manifest %q)", a["fingerprint"], want, a["value"])
		}
		m := regexp.MustCompile(`(?m)^file=(/var/lib/cp/kubernetes/etcd-snapshots/etcd-[0-9]{8}T[0-9]{6}Z\.db)\nsha256=([0-9a-f]{64})$`).FindStringSubmatch(a["value"])
		if m == nil {
			return fmt.Errorf("etcd.snapshot value %q names no snapshot file and sha256", a["value"])
		}
		if got := onHost(t, c, "master-1", "sudo sha256sum "+m[1]); !strings.HasPrefix(got, m[2]+" ") {
			return fmt.Errorf("sha256sum of %s on master-1 = %q, the artifact records %s", m[1], got, m[2])
		}
		return nil
	}
}

// needs checks in the plan JSON that instance needs dep.
func needs(addr, instance, dep string) plancheck.PlanCheck {
	return plancheck.ExpectKnownValue(addr, tfjsonpath.New("planned_instances").AtMapKey(instance).AtMapKey("needs"),
		knownvalue.SetPartial([]knownvalue.Check{knownvalue.StringExact(dep)}))
}

// An upgrade one minor version up (1.33.6 to 1.34.2) through OpenTofu
// takes an etcd snapshot before the control plane changes: the plan
// orders upgrade-control-plane after etcd-snapshot, and the cluster's
// state holds the etcd.snapshot artifact with its fingerprint, naming a
// file on master-1 whose sha256 it records.
func TestAccDay2_upgradeTakesSnapshot(t *testing.T) {
	testAccPreCheck(t)
	c := accHosts(t, "upgrade-snap", "master-1", "worker-1")
	prov := accProvider(c, "")
	before := day2Cluster(c, "upgrade-snap", []string{"master-1"}, []string{"worker-1"}, `kubernetes_version = "1.33.6"`)
	after := day2Cluster(c, "upgrade-snap", []string{"master-1"}, []string{"worker-1"}, `kubernetes_version = "1.34.2"
  approvals          = [{ gate = "approve-upgrade", option = "upgrade" }, { gate = "confirm-cluster-deletion", option = "delete cluster" }]`)
	after = strings.Replace(after, "  approvals      = [{ gate = \"confirm-cluster-deletion\", option = \"delete cluster\" }]\n", "", 1)
	addr := "cp_kubernetes_cluster.k"
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: prov + before},
			{
				Config: prov + after,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("plan_summary"), knownvalue.StringRegexp(regexp.MustCompile(`kubernetes.upgrade@1.0.0`))),
					needs(addr, "upgrade-control-plane[master-1]", "etcd-snapshot[master-1]"),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(addr, "operation.action", "upgrade"),
					resource.TestCheckResourceAttr(addr, "operation.status", "Completed"),
					snapshotArtifact(t, c, addr),
					func(*terraform.State) error {
						got := onHost(t, c, "master-1", day2Kubectl+"get node worker-1 -o jsonpath='{.status.nodeInfo.kubeletVersion}'")
						if got != "v1.34.2" {
							return fmt.Errorf("worker-1 runs kubelet %q after the upgrade, want v1.34.2", got)
						}
						return nil
					},
				),
			},
		},
	})
}

// etcdMembers lists, sorted, the etcd member names master-1's etcd reports, read
// with Debian's etcd-client as a person on the master would (installed
// first when missing: only etcd-snapshot installs it).
func etcdMembers(t *testing.T, c *testhosts.Cluster) string {
	onHost(t, c, "master-1", "command -v etcdctl >/dev/null || sudo apt-get install -y etcd-client >/dev/null")
	out := onHost(t, c, "master-1", "sudo ETCDCTL_API=3 etcdctl --endpoints=https://127.0.0.1:2379 --cacert=/etc/kubernetes/pki/etcd/ca.crt "+
		"--cert=/etc/kubernetes/pki/etcd/healthcheck-client.crt --key=/etc/kubernetes/pki/etcd/healthcheck-client.key member list -w simple")
	var names []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if f := strings.Split(l, ", "); len(f) > 2 {
			names = append(names, f[2])
		}
	}
	slices.Sort(names)
	return strings.Join(names, ",")
}

// Removing a master (3 masters to 2) through OpenTofu: master-3 left out
// of the cluster's masters is an update, not a replacement, that plans
// remove_node on master-3 behind its destructive gate: an etcd snapshot,
// then master-3's etcd member removed through the masters that stay. The
// etcd member list on master-1 names master-1..3 before and master-1,2
// after; remove-etcd-member's evidence holds, the plan orders it after
// the snapshot, the cluster's state holds the etcd.snapshot artifact with
// its fingerprint, and master-3 is no longer a node. The plan after it is
// empty (its evidence, checked again at refresh, holds).
func TestAccDay2_removeMaster(t *testing.T) {
	testAccPreCheck(t)
	c := accHosts(t, "remove-master", "master-1", "master-2", "master-3")
	prov := accProvider(c, "")
	three := day2Cluster(c, "remove-master", []string{"master-1", "master-2", "master-3"}, nil, endpointHCL(c, ""))
	two := strings.Replace(day2Cluster(c, "remove-master", []string{"master-1", "master-2"}, nil,
		endpointHCL(c, "")+"\n  "+`approvals = [{ gate = "confirm-node-removal", option = "remove node" }, { gate = "confirm-cluster-deletion", option = "delete cluster" }]`),
		"  approvals      = [{ gate = \"confirm-cluster-deletion\", option = \"delete cluster\" }]\n", "", 1)
	addr := "cp_kubernetes_cluster.k"
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: prov + three,
				Check: func(*terraform.State) error {
					if got := etcdMembers(t, c); got != "master-1,master-2,master-3" {
						return fmt.Errorf("etcd members before the removal: %q, want master-1,master-2,master-3", got)
					}
					return nil
				},
			},
			{
				Config: prov + two,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("plan"), knownvalue.StringRegexp(regexp.MustCompile(
						`(?s)confirm-node-removal \(destructive\): approved by ci with option "remove node".*- remove-etcd-member: master-3\n`))),
					needs(addr, "remove-etcd-member[master-3]", "etcd-snapshot[master-1]"),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(addr, "operation.action", "remove_node"),
					resource.TestCheckResourceAttr(addr, "operation.status", "Completed"),
					resource.TestCheckTypeSetElemNestedAttrs(addr, "evidence.*", map[string]string{
						"instance": "remove-etcd-member[master-3]", "id": "member_not_listed", "passed": "true", "observed": "not-a-member"}),
					snapshotArtifact(t, c, addr),
					func(*terraform.State) error {
						if got := etcdMembers(t, c); got != "master-1,master-2" {
							return fmt.Errorf("etcd members after removing master-3: %q, want master-1,master-2", got)
						}
						st, err := hostsim.ReadState(c.SimulatorStateDir())
						if err != nil {
							return err
						}
						if st.Nodes["master-3"] != nil {
							return fmt.Errorf("master-3 is still a node after its removal")
						}
						return nil
					},
				),
			},
		},
	})
}

// The CNI manifest's checksum through OpenTofu: with cni_manifest_sha256
// not the digest of the calico manifest (the pinned release's real bytes, which the simulator's curl serves
// for the pinned release URL) the create fails at install-cni naming both
// digests, and no CNI is applied; with the manifest's digest the same
// apply resumes and completes: calico applied, the node Ready.
func TestAccDay2_cniManifestChecksum(t *testing.T) {
	testAccPreCheck(t)
	c := accHosts(t, "cni-sum", "master-1")
	prov := accProvider(c, "")
	sum := sha256.Sum256(hostsim.ManifestAt(hostsim.PinnedCalicoURL))
	good := hex.EncodeToString(sum[:])
	wrong := strings.Repeat("0", 64)
	cluster := func(digest string) string {
		return prov + day2Cluster(c, "cni-sum", []string{"master-1"}, nil, fmt.Sprintf("parameters = { cni_manifest_sha256 = %q }", digest))
	}
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: cluster(wrong),
				ExpectError: regexp.MustCompile(`(?s)install-cni on master-1: the calico manifest\s+https://raw.githubusercontent.com/projectcalico/calico/v3.31.7/manifests/calico.yaml\s+has\s+sha256\s+` +
					good + `,\s+not\s+cni_manifest_sha256\s+` + wrong + `;\s+nothing\s+was\s+applied`),
			},
			{
				PreConfig: func() {
					st, err := hostsim.ReadState(c.SimulatorStateDir())
					if err != nil {
						t.Fatal(err)
					}
					if st.CNI != "" {
						t.Fatalf("CNI %q applied although the manifest's digest was wrong", st.CNI)
					}
				},
				Config: cluster(good),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("cp_kubernetes_cluster.k", "operation.status", "Completed"),
					func(*terraform.State) error {
						st, err := hostsim.ReadState(c.SimulatorStateDir())
						if err != nil {
							return err
						}
						if st.CNI != "calico" || !st.NodeReady("master-1") {
							return fmt.Errorf("after the create CNI %q, master-1 Ready %v; want calico and Ready", st.CNI, st.NodeReady("master-1"))
						}
						return nil
					},
				),
			},
		},
	})
}

// Longhorn as the storage of a cluster of masters only, through OpenTofu:
// the create's evidence shows the Longhorn release tolerating the
// control-plane taint (read from its values), open-iscsi and nfs-common
// installed (the hosts' real Debian packages) with iscsid enabled and
// active, and no multipathd to configure on these Debian hosts.
func TestAccDay2_longhornMastersOnly(t *testing.T) {
	testAccPreCheck(t)
	c := accHosts(t, "longhorn-cp", "master-1")
	cluster := strings.Replace(day2Cluster(c, "longhorn-cp", []string{"master-1"}, nil, ""), `storage        = "none"`, `storage        = "longhorn"`, 1)
	addr := "cp_kubernetes_cluster.k"
	evidence := func(instance, id, observed string) resource.TestCheckFunc {
		return resource.TestMatchTypeSetElemNestedAttrs(addr, "evidence.*", map[string]*regexp.Regexp{
			"instance": regexp.MustCompile(`^` + regexp.QuoteMeta(instance) + `$`), "id": regexp.MustCompile(`^` + id + `$`),
			"passed": regexp.MustCompile(`^true$`), "observed": regexp.MustCompile(`^` + regexp.QuoteMeta(observed) + `$`)})
	}
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: accProvider(c, "") + cluster,
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr(addr, "operation.status", "Completed"),
				evidence("install-storage[master-1]", "longhorn_tolerates_control_plane", "tolerates"),
				evidence("install-kubernetes-packages[master-1]", "longhorn_host_packages", "2 install ok installed"),
				evidence("install-kubernetes-packages[master-1]", "longhorn_iscsid_running", "enabled active"),
				evidence("install-kubernetes-packages[master-1]", "longhorn_multipath_blacklist", "no-multipathd"),
			),
		}},
	})
}
