package packs

import (
	"fmt"
	"strings"
	"testing"
)

// TestVerifyClusterWireguardHandshakes: the first master's wg0 must have
// a recent handshake with every peer. A peer never reached (0), one last
// reached ten minutes ago, an interface that is down (wg fails: an empty
// loop would have read as no peer) fail the evidence and the script,
// naming the peer; recent handshakes with every peer hold.
func TestVerifyClusterWireguardHandshakes(t *testing.T) {
	const file, script = "kubernetes/jobs/verify-cluster.yaml", "kubernetes/scripts/verify-cluster.sh"
	const now = 1_800_000_000
	keyA, keyB := strings.Repeat("A", 43)+"=", strings.Repeat("B", 43)+"="
	wg := func(lines string) string {
		return `case "$*" in "show wg0 latest-handshakes") printf '` + lines + `' ;; *) exit 2 ;; esac`
	}
	env := packEnv(t, "kubernetes", nil)
	for _, c := range []struct {
		name, wg string
		ok       bool
		stale    string
	}{
		{"every peer recent", wg(fmt.Sprintf(`%s\t%d\n%s\t%d\n`, keyA, now-30, keyB, now-170)), true, ""},
		{"no peers", wg(``), true, ""},
		{"one peer never reached", wg(fmt.Sprintf(`%s\t%d\n%s\t0\n`, keyA, now-30, keyB)), false, keyB},
		{"one peer gone ten minutes", wg(fmt.Sprintf(`%s\t%d\n%s\t%d\n`, keyA, now-600, keyB, now-30)), false, keyA},
		{"wg0 down", `echo 'Unable to access interface: No such device' >&2; exit 1`, false, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newScriptHost(t)
			h.stub("date", fmt.Sprintf(`echo %d`, now))
			h.stub("sleep", ``)
			h.stub("wg", c.wg)
			ok, got := h.evidence(file, "wireguard_handshakes", env)
			if ok != c.ok {
				t.Errorf("wireguard_handshakes = %v (%q), want %v", ok, got, c.ok)
			}
			if c.stale != "" && !strings.Contains(got, c.stale) {
				t.Errorf("wireguard_handshakes %q does not name the peer %s", got, c.stale)
			}
			res := h.run(script, env)
			switch {
			case c.ok:
				succeeded(t, res)
			case c.stale != "":
				refused(t, h, res, "no WireGuard handshake with peers "+c.stale)
			default:
				refused(t, h, res, "cannot read wg0's handshakes")
			}
		})
	}
}
