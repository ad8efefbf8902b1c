package e2e

import (
	"strings"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/engine"
	"github.com/intentops/terraform-provider-cp/internal/packs"
	"github.com/intentops/terraform-provider-cp/internal/planner"
)

// TestWireGuardHandshakeEvidence creates a cluster of a master and two
// workers on test hosts (verify-cluster waits for the first master's
// handshakes, so the create completing shows them), then runs
// verify-cluster's evidence wireguard_handshakes on the first master as
// the engine does (through sudo): it holds while every peer's interface is
// up, and once worker-2's wg-quick@wg0 is stopped it fails naming
// worker-2's public key.
func TestWireGuardHandshakeEvidence(t *testing.T) {
	e := startHosts(t, "wg-hs", "master-1", "worker-1", "worker-2")
	hosts := e.intentHosts([]string{"master-1"}, []string{"worker-1", "worker-2"})
	create := e.compose(e.clusterRequest("create", "1.31.2", hosts, nil, planner.State{}))
	e.runCompleted(create.Plan, engine.RunInput{})

	cat, err := packs.LoadBuiltin()
	if err != nil {
		t.Fatal(err)
	}
	var evidence string
	for _, p := range cat.List() {
		if p.ID != "kubernetes" {
			continue
		}
		for _, ev := range p.Jobs["verify-cluster"].Outputs.Evidence {
			if ev.ID == "wireguard_handshakes" {
				evidence = ev.Command
			}
		}
	}
	if evidence == "" {
		t.Fatal("verify-cluster declares no evidence wireguard_handshakes")
	}
	if got := strings.TrimSpace(e.sudo(t, "master-1", evidence)); got != "handshakes" {
		t.Fatalf("wireguard_handshakes with every interface up: %q, want handshakes", got)
	}
	pub := strings.TrimSpace(e.sudo(t, "worker-2", "wg pubkey </etc/wireguard/wg0.key"))
	if !wgKeyRE.MatchString(pub) {
		t.Fatalf("worker-2's public key: %q", pub)
	}
	e.sudo(t, "worker-2", "systemctl disable --now wg-quick@wg0")
	got := strings.TrimSpace(e.sudo(t, "master-1", evidence))
	if got == "handshakes" || !strings.Contains(got, pub) {
		t.Errorf("wireguard_handshakes with worker-2's interface down: %q, want no recent handshake naming %s", got, pub)
	}
}
