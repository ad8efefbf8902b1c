package intent

import (
	"strings"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

func roleHost(list string, i int, name, addr, role string) HostInput {
	return HostInput{Path: Root(list).Index(i), Name: name, Address: addr, Role: role}
}

// Each bad proxy or address setting is one problem at its path; each
// good combination passes.
func TestCheckCluster_proxyAndAddresses(t *testing.T) {
	m1 := roleHost("masters", 0, "master-1", "203.0.113.11", protocol.RoleMaster)
	w1 := roleHost("workers", 0, "worker-1", "203.0.113.21", protocol.RoleWorker)
	cases := []struct {
		name       string
		change     func(*ClusterInput)
		path, want string // empty path: no problem
	}{
		{"http proxy only", func(c *ClusterInput) { c.Proxy = &ProxyInput{HTTP: "http://proxy.internal:3128"} }, "", ""},
		{"https proxy only, no_proxy", func(c *ClusterInput) {
			c.Proxy = &ProxyInput{HTTPS: "https://10.1.1.1:3129", NoProxy: []string{".corp.internal", "10.0.0.0/8", "db.internal", "fd00::1"}}
		}, "", ""},
		{"not a URL", func(c *ClusterInput) { c.Proxy = &ProxyInput{HTTP: "proxy.internal:3128"} }, `proxy.http`, "Invalid proxy URL"},
		{"credentials", func(c *ClusterInput) { c.Proxy = &ProxyInput{HTTPS: "http://u:p@proxy.internal:3128"} }, `proxy.https`, "Invalid proxy URL"},
		{"comma", func(c *ClusterInput) { c.Proxy = &ProxyInput{HTTP: "http://proxy.internal:3128/a,b"} }, `proxy.http`, "Invalid proxy URL"},
		{"no URL", func(c *ClusterInput) { c.Proxy = &ProxyInput{NoProxy: []string{".svc"}} }, `proxy.http`, "Missing proxy URL"},
		{"bad no_proxy", func(c *ClusterInput) {
			c.Proxy = &ProxyInput{HTTP: "http://p:3128", NoProxy: []string{"ok.internal", "a b"}}
		}, `proxy.no_proxy[1]`, "Invalid no_proxy entry"},
		{"duplicate no_proxy", func(c *ClusterInput) { c.Proxy = &ProxyInput{HTTP: "http://p:3128", NoProxy: []string{".x", ".x"}} }, `proxy.no_proxy[1]`, "Duplicate no_proxy entry"},
		{"node addresses", func(c *ClusterInput) {
			a, b := m1, w1
			a.NodeAddress, b.NodeAddress, b.WireGuardEndpoint = "10.0.1.11", "10.0.1.21", "198.51.100.21"
			c.Hosts = []HostInput{a, b}
		}, "", ""},
		{"master by DNS name with node_address", func(c *ClusterInput) {
			a := roleHost("masters", 0, "master-1", "m1.example.com", protocol.RoleMaster)
			a.NodeAddress = "10.0.1.11"
			c.Hosts = []HostInput{a, roleHost("workers", 0, "worker-1", "w1.example.com", protocol.RoleWorker)}
		}, "", ""},
		{"master by DNS name", func(c *ClusterInput) {
			c.Hosts = []HostInput{roleHost("masters", 0, "master-1", "m1.example.com", protocol.RoleMaster)}
		}, `masters[0].node_address`, "Missing node_address"},
		{"node_address not IPv4", func(c *ClusterInput) { a := m1; a.NodeAddress = "fd00::11"; c.Hosts = []HostInput{a} }, `masters[0].node_address`, "Invalid node_address"},
		{"node_address a name", func(c *ClusterInput) { a := m1; a.NodeAddress = "m1.internal"; c.Hosts = []HostInput{a} }, `masters[0].node_address`, "Invalid node_address"},
		{"node_address is another's SSH address", func(c *ClusterInput) {
			b := w1
			b.NodeAddress = m1.Address
			c.Hosts = []HostInput{m1, b}
		}, `workers[0].node_address`, "Duplicate node_address"},
		{"two node_addresses alike", func(c *ClusterInput) {
			a, b := m1, w1
			a.NodeAddress, b.NodeAddress = "10.0.1.5", "10.0.1.5"
			c.Hosts = []HostInput{a, b}
		}, `workers[0].node_address`, "Duplicate node_address"},
		{"wireguard_endpoint not IPv4", func(c *ClusterInput) { b := w1; b.WireGuardEndpoint = "wg.internal"; c.Hosts = []HostInput{m1, b} }, `workers[0].wireguard_endpoint`, "Invalid wireguard_endpoint"},
		{"wireguard_endpoints alike", func(c *ClusterInput) {
			b := w1
			b.WireGuardEndpoint = m1.Address
			c.Hosts = []HostInput{m1, b}
		}, `workers[0].wireguard_endpoint`, "Duplicate wireguard_endpoint"},
		{"node_address in the pod network", func(c *ClusterInput) { a := m1; a.NodeAddress = "10.244.3.4"; c.Hosts = []HostInput{a} }, `masters[0].node_address`, "Address inside a cluster network"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := goodCluster()
			c.Hosts = []HostInput{m1}
			tc.change(&c)
			ps := CheckCluster(c, kubernetesPack(">= 1.29.0"))
			if tc.path == "" {
				if len(ps) != 0 {
					t.Fatalf("got: %v want: no problems", ps)
				}
				return
			}
			if len(ps) != 1 || ps[0].Path.String() != tc.path || ps[0].Summary != tc.want || !strings.Contains(ps[0].Detail, " ") {
				t.Fatalf("got: %v want: one problem %q at %s", ps, tc.want, tc.path)
			}
		})
	}
}
