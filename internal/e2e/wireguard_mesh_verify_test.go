package e2e

import (
	"strings"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/engine"
	"github.com/intentops/terraform-provider-cp/internal/packs"
	"github.com/intentops/terraform-provider-cp/internal/planner"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// TestWireGuardMeshVerifiedPerNode creates a cluster of a master and two
// workers on test hosts: verify-wireguard-mesh runs, and passes, on every
// node. Then worker-2's wg0 drops worker-1 as a peer (a tunnel broken
// between the two workers only) and the job's evidence wireguard_handshakes,
// run on each node as the engine does (through sudo, with the
// wireguard.public_key artifact as a file): master-1 still holds, worker-1
// fails naming itself and worker-2, worker-2 naming itself and worker-1.
func TestWireGuardMeshVerifiedPerNode(t *testing.T) {
	e := startHosts(t, "wg-mesh", "master-1", "worker-1", "worker-2")
	hosts := e.intentHosts([]string{"master-1"}, []string{"worker-1", "worker-2"})
	create := e.compose(e.clusterRequest("create", "1.31.2", hosts, nil, planner.State{}))
	res := e.runCompleted(create.Plan, engine.RunInput{})
	ran := map[string]bool{}
	for _, in := range res.Instances {
		if strings.HasPrefix(in.ID, "verify-wireguard-mesh[") && in.Status == engine.StatusDone {
			ran[in.Host] = true
		}
	}
	for _, h := range hosts {
		if !ran[h.Name] {
			t.Errorf("verify-wireguard-mesh did not run and pass on %s", h.Name)
		}
	}

	cat, err := packs.LoadBuiltin()
	if err != nil {
		t.Fatal(err)
	}
	var evidence protocol.Evidence
	for _, p := range cat.List() {
		if p.ID == "kubernetes" {
			for _, ev := range p.Jobs["verify-wireguard-mesh"].Outputs.Evidence {
				if ev.ID == "wireguard_handshakes" {
					evidence = ev
				}
			}
		}
	}
	if evidence.Command == "" {
		t.Fatal("verify-wireguard-mesh declares no evidence wireguard_handshakes")
	}
	pub := map[string]string{}
	var keys strings.Builder
	for _, h := range hosts {
		pub[h.Name] = strings.TrimSpace(e.sudo(t, h.Name, "wg pubkey </etc/wireguard/wg0.key"))
		if !wgKeyRE.MatchString(pub[h.Name]) {
			t.Fatalf("%s's public key: %q", h.Name, pub[h.Name])
		}
		keys.WriteString(h.Name + " " + pub[h.Name] + "\n")
	}
	check := func(host string) string {
		e.sudo(t, host, "printf '%s' '"+keys.String()+"' >/tmp/wireguard.public_key")
		return strings.TrimSpace(e.sudo(t, host, "CP_HOST="+host+" CP_ARTIFACT_WIREGUARD_PUBLIC_KEY=/tmp/wireguard.public_key; export CP_HOST CP_ARTIFACT_WIREGUARD_PUBLIC_KEY; "+evidence.Command))
	}
	for _, h := range hosts {
		if got := check(h.Name); got != evidence.Expected {
			t.Errorf("wireguard_handshakes on %s with every tunnel up: %q, want %q", h.Name, got, evidence.Expected)
		}
	}

	// worker-2 drops worker-1's [Peer] block and restarts wg0.
	e.sudo(t, "worker-2", `awk -v k='`+pub["worker-1"]+`' 'BEGIN { RS = ""; ORS = "\n\n" } index($0, k) == 0' /etc/wireguard/wg0.conf >/etc/wireguard/wg0.conf.new `+
		`&& chmod 0600 /etc/wireguard/wg0.conf.new && mv /etc/wireguard/wg0.conf.new /etc/wireguard/wg0.conf && systemctl restart wg-quick@wg0`)
	if conf := e.sudo(t, "worker-2", "cat /etc/wireguard/wg0.conf"); strings.Contains(conf, pub["worker-1"]) || !strings.Contains(conf, pub["master-1"]) {
		t.Fatalf("worker-2's wg0.conf still lists worker-1 or lost master-1:\n%s", strings.ReplaceAll(conf, e.privateKey(t, "worker-2"), "PRIVATE"))
	}
	for host, want := range map[string]string{
		"master-1": "handshakes",
		"worker-1": "no recent handshake from worker-1 with worker-2",
		"worker-2": "no recent handshake from worker-2 with worker-1",
	} {
		if got := check(host); got != want {
			t.Errorf("wireguard_handshakes on %s with the worker-1/worker-2 tunnel broken: %q, want %q", host, got, want)
		}
	}
}
