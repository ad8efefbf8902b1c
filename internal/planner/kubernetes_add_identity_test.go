package planner

import (
	"strings"
	"testing"
)

// add_node and add_master check the added host's machine id and host name
// against every node's (check-host-identities over the host.identity
// artifacts, the existing nodes' from state, the added host's from
// preflight-node) before anything changes: the WireGuard keys and mesh of
// every node and the added host's preparation and join wait for it. Its
// idempotency key names the operation, so the marker create left does not
// satisfy it.
func TestKubernetesAddNodeChecksHostIdentities(t *testing.T) {
	for _, c := range []struct {
		action, target, join string
		masters              int
	}{{"add_node", "worker-3", "join-worker", 2}, {"add_master", "master-3", "join-control-plane", 3}} {
		t.Run(c.action, func(t *testing.T) {
			p := kubernetesPlan(t, c.action, c.masters, 3, c.target)
			var check string
			for _, x := range p.Instances {
				if x.ID == "check-host-identities" || strings.HasPrefix(x.ID, "check-host-identities[") {
					if check != "" {
						t.Fatalf("check-host-identities twice: %s and %s", check, x.ID)
					}
					check = x.ID
					if !strings.Contains(x.IdempotencyKey, "op-"+c.action) {
						t.Errorf("check-host-identities key %q does not name the operation", x.IdempotencyKey)
					}
				}
			}
			if check == "" {
				t.Fatal("no check-host-identities in the plan")
			}
			if !reaches(p, check, "preflight-node["+c.target+"]") {
				t.Errorf("%s does not wait for preflight-node[%s], which records the added host's identity", check, c.target)
			}
			changes := []string{"prepare-kubernetes-prerequisites[" + c.target + "]", c.join + "[" + c.target + "]"}
			for _, job := range []string{"generate-wireguard-key", "update-wireguard-mesh"} {
				for _, h := range planHosts(p, job) {
					changes = append(changes, job+"["+h+"]")
				}
			}
			for _, id := range changes {
				if !reaches(p, id, check) {
					t.Errorf("%s does not wait for %s: a host sharing a machine id or host name would change the cluster", id, check)
				}
			}
		})
	}
}
