package planner

import (
	"strings"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// kubernetesPlan plans action of the builtin kubernetes pack on a cluster
// of masters and workers (an existing one for a day-2 action).
func kubernetesPlan(t *testing.T, action string, masters, workers int, targets ...string) *protocol.Plan {
	t.Helper()
	in := builtinIntent(masters, workers, action)
	in.Targets = targets
	input := Input{PlanID: "op-" + action, Intent: in, Pack: builtinPack(t, "kubernetes"), Now: testNow}
	if action != "create" {
		input.State = builtinClusterState()
	}
	p, err := Build(input)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// planHosts are the hosts the plan has instances of job on, in plan order.
func planHosts(p *protocol.Plan, job string) []string {
	var hosts []string
	for _, x := range p.Instances {
		if strings.HasPrefix(x.ID, job+"[") {
			hosts = append(hosts, x.Host)
		}
	}
	return hosts
}

// generate-wireguard-key may apt-get install wireguard-tools: on every
// host it comes after the job that writes that host's proxy settings
// (configure-proxy in create, configure-node-proxy on the host added).
func TestKubernetesWireguardKeyAfterProxy(t *testing.T) {
	p := kubernetesPlan(t, "create", 2, 2)
	hosts := planHosts(p, "generate-wireguard-key")
	if len(hosts) != 4 {
		t.Fatalf("generate-wireguard-key on %v, want every host", hosts)
	}
	for _, h := range hosts {
		if !reaches(p, "generate-wireguard-key["+h+"]", "configure-proxy["+h+"]") {
			t.Errorf("create: generate-wireguard-key[%s] does not wait for configure-proxy[%s]", h, h)
		}
	}
	for _, c := range []struct {
		action, target string
		masters        int
	}{{"add_node", "worker-3", 2}, {"add_master", "master-3", 3}} {
		p := kubernetesPlan(t, c.action, c.masters, 3, c.target)
		if !reaches(p, "generate-wireguard-key["+c.target+"]", "configure-node-proxy["+c.target+"]") {
			t.Errorf("%s: generate-wireguard-key[%s] does not wait for configure-node-proxy[%s]", c.action, c.target, c.target)
		}
	}
}

// add_node and add_master run the host preflight on the host they add,
// and only there, before anything changes on the cluster: every node's
// WireGuard key and mesh update, and the new host's preparation and join,
// wait for it.
func TestKubernetesAddNodePreflightFirst(t *testing.T) {
	for _, c := range []struct {
		action, target, join string
		masters              int
	}{{"add_node", "worker-3", "join-worker", 2}, {"add_master", "master-3", "join-control-plane", 3}} {
		t.Run(c.action, func(t *testing.T) {
			p := kubernetesPlan(t, c.action, c.masters, 3, c.target)
			if got := planHosts(p, "preflight-node"); len(got) != 1 || got[0] != c.target {
				t.Fatalf("preflight-node on %v, want on %s only", got, c.target)
			}
			if got := planHosts(p, "preflight-host"); len(got) != 0 {
				t.Errorf("preflight-host on %v: the nodes already in the cluster are not preflighted again", got)
			}
			pre := "preflight-node[" + c.target + "]"
			if !reaches(p, pre, "validate-node["+c.target+"]") {
				t.Errorf("%s does not wait for validate-node[%s] (linux.host)", pre, c.target)
			}
			changes := []string{"prepare-kubernetes-prerequisites[" + c.target + "]", c.join + "[" + c.target + "]"}
			for _, job := range []string{"generate-wireguard-key", "update-wireguard-mesh"} {
				hosts := planHosts(p, job)
				if len(hosts) != c.masters+3 {
					t.Fatalf("%s on %v, want every node", job, hosts)
				}
				for _, h := range hosts {
					changes = append(changes, job+"["+h+"]")
				}
			}
			for _, id := range changes {
				if !reaches(p, id, pre) {
					t.Errorf("%s does not wait for %s: a host that fails its preflight would change the cluster", id, pre)
				}
			}
		})
	}
}

// WireGuard handshakes are verified on every node of the mesh, once every
// node's wg0 is configured (create) or updated (add_node, add_master).
func TestKubernetesMeshVerifiedOnEveryNode(t *testing.T) {
	for _, c := range []struct {
		action, mesh string
		masters      int
		targets      []string
	}{
		{"create", "configure-wireguard-mesh", 2, nil},
		{"add_node", "update-wireguard-mesh", 2, []string{"worker-3"}},
		{"add_master", "update-wireguard-mesh", 3, []string{"master-3"}},
	} {
		t.Run(c.action, func(t *testing.T) {
			p := kubernetesPlan(t, c.action, c.masters, 3, c.targets...)
			verified, meshed := planHosts(p, "verify-wireguard-mesh"), planHosts(p, c.mesh)
			if len(verified) != c.masters+3 || len(meshed) != len(verified) {
				t.Fatalf("verify-wireguard-mesh on %v, %s on %v: want both on every node", verified, c.mesh, meshed)
			}
			for _, v := range verified {
				for _, m := range meshed {
					if !reaches(p, "verify-wireguard-mesh["+v+"]", c.mesh+"["+m+"]") {
						t.Errorf("verify-wireguard-mesh[%s] does not wait for %s[%s]", v, c.mesh, m)
					}
				}
			}
		})
	}
}
