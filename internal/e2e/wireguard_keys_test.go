package e2e

import (
	"bytes"
	"encoding/base64"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/crypto/curve25519"

	"github.com/intentops/terraform-provider-cp/internal/engine"
	"github.com/intentops/terraform-provider-cp/internal/hostsim"
	"github.com/intentops/terraform-provider-cp/internal/planner"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// wgKeyRE is a WireGuard key: 32 bytes in base64.
var wgKeyRE = regexp.MustCompile(`^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=$`)

// TestWireGuardPerNodeKeys creates a cluster of three nodes and adds a
// fourth: every node has its own private key, root-only, generated on
// it and kept across runs; its wg0 lists exactly the other nodes, with
// their public keys and endpoints, in a configuration of known keys only,
// and wg reports each peer with a handshake;
// no file on any host holds another node's private key, and no mesh
// secret exists from which one could be derived.
func TestWireGuardPerNodeKeys(t *testing.T) {
	masters, workers := []string{"master-1"}, []string{"worker-1", "worker-2"}
	e := startHosts(t, clusterName, "master-1", "worker-1", "worker-2", "worker-3")
	hosts := e.intentHosts(masters, workers)
	create := e.compose(e.clusterRequest("create", "1.31.2", hosts, nil, planner.State{}))
	res := e.runCompleted(create.Plan, engine.RunInput{})
	arts := res.Artifacts
	names := append(slices.Clone(masters), workers...)
	e.checkNoForeignKeys(t, e.confPrivateKeys(t, names))
	keys := e.checkMesh(t, hosts, res, arts)
	e.checkNoForeignKeys(t, keys)

	// A second run keeps every key.
	again := e.runCompleted(create.Plan, engine.RunInput{})
	arts = protocol.MergeArtifacts(arts, again.Artifacts)
	for _, n := range names {
		if k := e.privateKey(t, n); k != keys[n] {
			t.Errorf("%s: the private key changed on a second run", n)
		}
	}

	// Adding worker-3 gives it a key of its own and every node a new peer;
	// the others keep their keys.
	withW3 := e.intentHosts(masters, append(slices.Clone(workers), "worker-3"))
	add := e.compose(e.clusterRequest("add_node", "1.31.2", withW3, []string{"worker-3"}, clusterState(arts)))
	addRes := e.runCompleted(add.Plan, engine.RunInput{Artifacts: inputArtifacts(arts)})
	arts = protocol.MergeArtifacts(arts, addRes.Artifacts)
	keys2 := e.checkMesh(t, withW3, addRes, arts)
	for _, n := range names {
		if keys2[n] != keys[n] {
			t.Errorf("%s: adding worker-3 changed its private key", n)
		}
	}
	e.checkNoForeignKeys(t, keys2)
}

// privateKey reads a host's /etc/wireguard/wg0.key, which must be a
// WireGuard key in a root-owned file of mode 0600.
func (e *env) privateKey(t *testing.T, host string) string {
	t.Helper()
	p := filepath.Join(e.hosts[host].Upper, "etc/wireguard/wg0.key")
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatalf("%s: no private key of its own: %v", host, err)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); !ok || st.Uid != 0 || fi.Mode().Perm() != 0o600 {
		t.Errorf("%s: /etc/wireguard/wg0.key has mode %v, want 0600 and owner root", host, fi.Mode().Perm())
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	k := strings.TrimSpace(string(b))
	if !wgKeyRE.MatchString(k) {
		t.Fatalf("%s: /etc/wireguard/wg0.key does not hold a WireGuard key", host)
	}
	return k
}

// onHost runs a simulated tool as root on a host, through the host's
// root directory and the cluster's shared simulator state.
func (e *env) onHost(t *testing.T, host string, args ...string) string {
	t.Helper()
	root, err := e.c.RootPath(host)
	if err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{hostsim.EnvStateDir: e.c.SimulatorStateDir(), hostsim.EnvRoot: root, hostsim.EnvHost: host,
		hostsim.EnvCluster: clusterName, hostsim.EnvAddress: e.hosts[host].Addr, hostsim.EnvEUID: "0"}
	var out, errb bytes.Buffer
	if code := hostsim.Main(args, strings.NewReader(""), &out, &errb, func(k string) string { return vars[k] }); code != 0 {
		t.Fatalf("%s on %s: exit %d: %s", strings.Join(args, " "), host, code, errb.String())
	}
	return out.String()
}

// confPrivateKeys reads the PrivateKey of each host's wg0.conf.
func (e *env) confPrivateKeys(t *testing.T, names []string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, n := range names {
		conf, err := e.hostFile(n, "/etc/wireguard/wg0.conf")
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		for _, line := range strings.Split(conf, "\n") {
			if k, ok := strings.CutPrefix(line, "PrivateKey = "); ok {
				out[n] = k
			}
		}
		if !wgKeyRE.MatchString(out[n]) {
			t.Fatalf("%s: wg0.conf has no PrivateKey", n)
		}
	}
	return out
}

// publicKey derives the WireGuard public key of a private key.
func publicKey(t *testing.T, priv string) string {
	t.Helper()
	raw, err := base64.StdEncoding.DecodeString(priv)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := curve25519.X25519(raw, curve25519.Basepoint)
	if err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(pub)
}

// checkMesh checks every host's key and wg0 against the others' and
// returns the private keys by host.
func (e *env) checkMesh(t *testing.T, hosts []protocol.Host, res *engine.Result, arts []protocol.Artifact) map[string]string {
	t.Helper()
	priv, pub := map[string]string{}, map[string]string{}
	for _, h := range hosts {
		priv[h.Name] = e.privateKey(t, h.Name)
		pub[h.Name] = publicKey(t, priv[h.Name])
	}
	published := map[string]string{}
	for _, a := range arts {
		if a.ID == "wireguard.mesh_secret" {
			t.Errorf("the run produced a mesh secret on %s", a.Host)
		}
		if a.ID == "wireguard.public_key" {
			if a.Sensitivity != protocol.SensitivityPublic {
				t.Errorf("wireguard.public_key of %s is %s, want public", a.Host, a.Sensitivity)
			}
			published[a.Host] = strings.TrimSpace(a.Value)
		}
	}
	seen := map[string]string{}
	for _, h := range hosts {
		if published[h.Name] != pub[h.Name] {
			t.Errorf("%s: published public key %q, want the one of its wg0.key %q", h.Name, published[h.Name], pub[h.Name])
		}
		if other, dup := seen[priv[h.Name]]; dup {
			t.Errorf("%s and %s have the same private key", other, h.Name)
		}
		seen[priv[h.Name]] = h.Name
		e.checkConf(t, h, hosts, priv, pub)
	}
	for _, h := range hosts {
		// What wg reports on the host: the peers by public key, each
		// with a completed handshake.
		var want []string
		for _, o := range hosts {
			if o.Name != h.Name {
				want = append(want, pub[o.Name])
			}
		}
		slices.Sort(want)
		peers := strings.Fields(e.onHost(t, h.Name, "wg", "show", "wg0", "peers"))
		slices.Sort(peers)
		if !slices.Equal(peers, want) {
			t.Errorf("%s: wg show wg0 peers = %v, want %v", h.Name, peers, want)
		}
		for _, line := range strings.Split(strings.TrimSpace(e.onHost(t, h.Name, "wg", "show", "wg0", "latest-handshakes")), "\n") {
			if k, ts, _ := strings.Cut(line, "\t"); ts == "0" || ts == "" {
				t.Errorf("%s: no handshake with peer %s (%q)", h.Name, k, line)
			}
		}
	}
	for _, h := range hosts {
		found := false
		for _, ev := range res.Evidence {
			if strings.HasSuffix(ev.Instance, "-wireguard-mesh["+h.Name+"]") && ev.ID == "wireguard_peers_configured" {
				found = true
				if !ev.Passed {
					t.Errorf("%s: wg show wg0 peers does not list the configured peers: %+v", h.Name, ev)
				}
			}
		}
		if !found {
			t.Errorf("%s: no wireguard_peers_configured evidence in the run", h.Name)
		}
	}
	return priv
}

// checkConf checks host h's wg0.conf: root-only, only known keys, its own
// private key, and each other host as a peer with its public key and
// endpoint.
func (e *env) checkConf(t *testing.T, h protocol.Host, hosts []protocol.Host, priv, pub map[string]string) {
	t.Helper()
	p := filepath.Join(e.hosts[h.Name].Upper, "etc/wireguard/wg0.conf")
	fi, err := os.Stat(p)
	if err != nil {
		t.Errorf("%s: %v", h.Name, err)
		return
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("%s: wg0.conf has mode %v, want 0600", h.Name, fi.Mode().Perm())
	}
	b, _ := os.ReadFile(p)
	allowed := map[string]bool{"Address": true, "ListenPort": true, "PrivateKey": true, "PublicKey": true, "AllowedIPs": true, "Endpoint": true, "PersistentKeepalive": true}
	var peers, endpoints, privs []string
	for _, line := range strings.Split(string(b), "\n") {
		if line == "" || line == "[Interface]" || line == "[Peer]" {
			continue
		}
		k, v, ok := strings.Cut(line, " = ")
		if !ok || !allowed[k] {
			t.Errorf("%s: wg0.conf line %q is not one of the known keys", h.Name, line)
			continue
		}
		switch k {
		case "PublicKey":
			peers = append(peers, v)
		case "Endpoint":
			endpoints = append(endpoints, v)
		case "PrivateKey":
			privs = append(privs, v)
		case "ListenPort":
			if v != "51820" {
				t.Errorf("%s: ListenPort %q", h.Name, v)
			}
		}
	}
	if len(privs) != 1 || privs[0] != priv[h.Name] {
		t.Errorf("%s: wg0.conf does not hold its own private key once", h.Name)
	}
	var wantPeers, wantEndpoints []string
	for _, o := range hosts {
		if o.Name != h.Name {
			wantPeers = append(wantPeers, pub[o.Name])
			wantEndpoints = append(wantEndpoints, o.Address+":51820")
		}
	}
	slices.Sort(peers)
	slices.Sort(wantPeers)
	slices.Sort(endpoints)
	slices.Sort(wantEndpoints)
	if !slices.Equal(peers, wantPeers) || !slices.Equal(endpoints, wantEndpoints) {
		t.Errorf("%s: peers %v at %v, want %v at %v", h.Name, peers, endpoints, wantPeers, wantEndpoints)
	}
}

// checkNoForeignKeys scans every file each host wrote for the other
// hosts' private keys (base64 and raw) and for the retired mesh secret.
func (e *env) checkNoForeignKeys(t *testing.T, priv map[string]string) {
	t.Helper()
	type needle struct {
		owner string
		b     []byte
	}
	var needles []needle
	for owner, k := range priv {
		raw, _ := base64.StdEncoding.DecodeString(k)
		needles = append(needles, needle{owner, []byte(k)}, needle{owner, raw})
	}
	for name, h := range e.hosts {
		scanned := 0
		err := filepath.WalkDir(h.Upper, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !d.Type().IsRegular() {
				return nil
			}
			base := filepath.Base(p)
			if base == "wireguard-mesh.secret" || base == "wireguard.mesh_secret" {
				t.Errorf("%s: %s holds a mesh secret", name, strings.TrimPrefix(p, h.Upper))
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return nil
			}
			scanned++
			for _, n := range needles {
				if n.owner != name && bytes.Contains(b, n.b) {
					t.Errorf("%s: %s holds the private key of %s", name, strings.TrimPrefix(p, h.Upper), n.owner)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if scanned == 0 {
			t.Errorf("%s: no file scanned under %s", name, h.Upper)
		}
	}
}
