package packs

import (
	"fmt"
	"strings"
	"testing"
)

// TestVerifyWireguardMeshOnEveryNode: verify-wireguard-mesh and its
// evidence judge the handshakes each node sees with each of its peers (the
// other nodes of wireguard.public_key), by host name. A worker whose
// tunnel to one peer is broken fails on that worker naming the worker and
// the peer, while a master that reaches all of its peers holds; a peer
// never reached, one last reached ten minutes ago, one missing from wg0
// and an interface that is down fail.
func TestVerifyWireguardMeshOnEveryNode(t *testing.T) {
	const file, script = "kubernetes/jobs/verify-wireguard-mesh.yaml", "kubernetes/scripts/verify-wireguard-mesh.sh"
	const now = 1_800_000_000
	key := func(c byte) string { return strings.Repeat(string(c), 42) + "A=" }
	keys := fmt.Sprintf("master-1 %s\nworker-1 %s\nworker-2 %s\n", key('A'), key('B'), key('C'))
	wg := func(lines string) string {
		return `case "$*" in "show wg0 latest-handshakes") printf '` + lines + `' ;; *) exit 2 ;; esac`
	}
	for _, c := range []struct {
		name, host, wg string
		ok             bool
		script, ev     string // what the failure says
	}{
		{"worker-1 reaches both peers", "worker-1", wg(fmt.Sprintf(`%s\t%d\n%s\t%d\n`, key('A'), now-30, key('C'), now-170)), true, "", ""},
		{"worker-1 never reached worker-2", "worker-1", wg(fmt.Sprintf(`%s\t%d\n%s\t0\n`, key('A'), now-30, key('C'))), false,
			"no recent WireGuard handshake from worker-1 with worker-2 (never)", "no recent handshake from worker-1 with worker-2"},
		{"master-1 reaches both peers", "master-1", wg(fmt.Sprintf(`%s\t%d\n%s\t%d\n`, key('B'), now-5, key('C'), now-60)), true, "", ""},
		{"master-1 last reached worker-1 ten minutes ago", "master-1", wg(fmt.Sprintf(`%s\t%d\n%s\t%d\n`, key('B'), now-600, key('C'), now-60)), false,
			"no recent WireGuard handshake from master-1 with worker-1 (600s ago)", "no recent handshake from master-1 with worker-1"},
		{"worker-2 lacks master-1 as a peer", "worker-2", wg(fmt.Sprintf(`%s\t%d\n`, key('B'), now-5)), false,
			"no recent WireGuard handshake from worker-2 with master-1 (not a peer of wg0)", "no recent handshake from worker-2 with master-1"},
		{"wg0 down on worker-2", "worker-2", `echo 'Unable to access interface: No such device' >&2; exit 1`, false,
			"cannot read wg0's handshakes; is wg-quick@wg0 up on worker-2?", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newScriptHost(t)
			h.stub("date", fmt.Sprintf(`echo %d`, now))
			h.stub("sleep", ``)
			h.stub("wg", c.wg)
			env := h.artifactEnv(map[string]string{"CP_HOST": c.host}, map[string]string{"wireguard.public_key": keys})
			ok, got := h.evidence(file, "wireguard_handshakes", env)
			if ok != c.ok {
				t.Errorf("wireguard_handshakes = %v (%q), want %v", ok, got, c.ok)
			}
			if c.ev != "" && got != c.ev {
				t.Errorf("wireguard_handshakes = %q, want %q", got, c.ev)
			}
			res := h.run(script, env)
			if c.ok {
				succeeded(t, res)
				if !strings.Contains(res.stdout, c.host+" has a recent handshake with each of its 2 peers") {
					t.Errorf("stdout %q", res.stdout)
				}
				return
			}
			refused(t, h, res, "verify-wireguard-mesh on "+c.host+": "+c.script)
		})
	}
}

// The script waits for a handshake that comes late (a peer's wg0 came up
// after this one's) instead of failing at once.
func TestVerifyWireguardMeshWaits(t *testing.T) {
	const now = 1_800_000_000
	h := newScriptHost(t)
	k := strings.Repeat("A", 43) + "="
	h.stub("date", fmt.Sprintf(`echo %d`, now))
	h.stub("sleep", ``)
	// The handshake shows after the third wait.
	h.stub("wg", fmt.Sprintf(`if [ "$(grep -c '^sleep' "$CP_TEST_CALLS")" -ge 3 ]; then printf '%s\t%d\n'; else printf '%s\t0\n'; fi`, k, now-1, k))
	env := h.artifactEnv(map[string]string{"CP_HOST": "worker-1"}, map[string]string{"wireguard.public_key": "master-1 " + k + "\nworker-1 " + strings.Repeat("B", 42) + "A=\n"})
	succeeded(t, h.run("kubernetes/scripts/verify-wireguard-mesh.sh", env))
	if n := strings.Count(h.log(h.calls), "sleep 5\n"); n != 3 {
		t.Errorf("slept %d times before the handshake came, want 3:\n%s", n, h.log(h.calls))
	}
}
