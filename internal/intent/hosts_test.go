package intent

import (
	"strings"
	"testing"
)

// wantProblem fails unless ps has exactly one problem, at path, whose
// detail holds every fragment.
func wantProblem(t *testing.T, ps Problems, path string, fragments ...string) {
	t.Helper()
	if len(ps) != 1 {
		t.Fatalf("got: %d problems (%v) want: 1 at %s", len(ps), ps, path)
	}
	if got := ps[0].Path.String(); got != path {
		t.Fatalf("got: path %s want: %s (%v)", got, path, ps[0])
	}
	for _, f := range fragments {
		if !strings.Contains(ps[0].Detail, f) {
			t.Fatalf("got: detail %q want: it to hold %q", ps[0].Detail, f)
		}
	}
}

func host(i int, name, addr string) HostInput {
	return HostInput{Path: Root("masters").Index(i), Name: name, Address: addr}
}

func TestCheckHosts_goodHostsPass(t *testing.T) {
	hs := []HostInput{host(0, "master-1", "10.0.0.11"), host(1, "master-2", "node-2.internal"),
		{Path: Root("workers").Index(0), Name: "worker-1", Address: "10.0.0.11", Port: 2222, PortSet: true,
			Labels: map[string]string{"node.example.com/pool": "infra", "tier": ""}, Taints: []string{"dedicated=infra:NoSchedule", "gpu:NoExecute"}}}
	if ps := CheckHosts(hs, HostRules{DefaultPort: 22, IPv4Only: true}); len(ps) != 0 {
		t.Fatalf("got: %v want: no problems", ps)
	}
}

func TestCheckHosts_eachBadInputAtItsPath(t *testing.T) {
	long := strings.Repeat("a", 300)
	cases := []struct {
		name  string
		hosts []HostInput
		rules HostRules
		path  string
		frag  []string
	}{
		{"name with a space", []HostInput{host(0, "master 1", "10.0.0.1")}, HostRules{}, "masters[0].name", []string{`"master 1"`, "DNS-1123 label"}},
		{"name with capitals", []HostInput{host(0, "m1", "10.0.0.1"), host(1, "Master-2", "10.0.0.2")}, HostRules{}, "masters[1].name", []string{`"Master-2"`}},
		{"name of 300 characters", []HostInput{host(0, long, "10.0.0.1")}, HostRules{}, "masters[0].name", []string{"(100 more characters)", "at most 63"}},
		{"name of 64 characters", []HostInput{host(0, strings.Repeat("a", 64), "10.0.0.1")}, HostRules{}, "masters[0].name", []string{"at most 63"}},
		{"empty name", []HostInput{host(0, "", "10.0.0.1")}, HostRules{}, "masters[0].name", []string{"needs a unique name"}},
		{"duplicate name", []HostInput{host(0, "m1", "10.0.0.1"), host(1, "m1", "10.0.0.2")}, HostRules{}, "masters[1].name", []string{"also used by masters[0]"}},
		{"duplicate address", []HostInput{host(0, "m1", "10.0.0.1"), host(1, "m2", "10.0.0.1")}, HostRules{DefaultPort: 22}, "masters[1].address", []string{"10.0.0.1:22", "masters[0]"}},
		{"duplicate address, explicit default port", []HostInput{host(0, "m1", "10.0.0.1"), {Path: Root("masters").Index(1), Name: "m2", Address: "10.0.0.1", Port: 22, PortSet: true}},
			HostRules{DefaultPort: 22}, "masters[1].address", []string{"10.0.0.1:22"}},
		{"empty address", []HostInput{host(0, "m1", "")}, HostRules{}, "masters[0].address", []string{"needs an address"}},
		{"address with a space", []HostInput{host(0, "m1", "10.0.0.1; rm -rf /")}, HostRules{}, "masters[0].address", []string{"not an IP address or a lower case DNS name"}},
		{"IPv6 address for a cluster", []HostInput{host(0, "m1", "fd00::1")}, HostRules{IPv4Only: true}, "masters[0].address", []string{"not an IPv4 address"}},
		{"port 0", []HostInput{{Path: Root("hosts").Index(0), Name: "h1", Address: "10.0.0.1", PortSet: true}}, HostRules{}, "hosts[0].port", []string{"0 is not a port"}},
		{"port 70000", []HostInput{{Path: Root("hosts").Index(0), Name: "h1", Address: "10.0.0.1", Port: 70000, PortSet: true}}, HostRules{}, "hosts[0].port", []string{"70000 is not a port"}},
		{"unknown role", []HostInput{{Path: Root("hosts").Index(0), Name: "h1", Address: "10.0.0.1", Role: "db-primary", RoleSet: true}}, HostRules{Roles: ScenarioRoles},
			"hosts[0].role", []string{`"db-primary" is not a role`, `"master"`}},
		{"label key with a space", []HostInput{{Path: Root("workers").Index(0), Name: "w1", Address: "10.0.0.1", Labels: map[string]string{"bad key": "x"}}}, HostRules{},
			`workers[0].labels["bad key"]`, []string{"not a Kubernetes label key"}},
		{"label value with a newline", []HostInput{{Path: Root("workers").Index(0), Name: "w1", Address: "10.0.0.1", Labels: map[string]string{"inj": "x\nnode-role.kubernetes.io/control-plane=yes"}}},
			HostRules{}, `workers[0].labels["inj"]`, []string{`"x\nnode-role`, "not a Kubernetes label value"}},
		{"taint without effect", []HostInput{{Path: Root("workers").Index(0), Name: "w1", Address: "10.0.0.1", Taints: []string{"ok:NoSchedule", "dedicated=infra"}}}, HostRules{},
			"workers[0].taints[1]", []string{`"dedicated=infra"`, "NoSchedule, PreferNoSchedule or NoExecute"}},
		{"duplicate taint", []HostInput{{Path: Root("workers").Index(0), Name: "w1", Address: "10.0.0.1", Taints: []string{"a=1:NoSchedule", "a=2:NoSchedule"}}}, HostRules{},
			"workers[0].taints[1]", []string{"taints[0]"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			wantProblem(t, CheckHosts(tc.hosts, tc.rules), tc.path, tc.frag...)
		})
	}
}

// Existing hosts (a cluster's) keep their name and address; they are not
// checked themselves.
func TestCheckHosts_existingHostsAreTaken(t *testing.T) {
	existing := HostInput{Path: Root("cluster_handle"), Name: "Bad Name", Address: "10.0.0.1", Existing: true}
	ps := CheckHosts([]HostInput{existing, {Path: Root("node"), Name: "w9", Address: "10.0.0.1"}}, HostRules{DefaultPort: 22})
	wantProblem(t, ps, "node.address", "cluster_handle")
	if ps := CheckHosts([]HostInput{existing, {Path: Root("node"), Name: "w9", Address: "10.0.0.2"}}, HostRules{DefaultPort: 22}); len(ps) != 0 {
		t.Fatalf("got: %v want: no problems", ps)
	}
}

func TestPathString(t *testing.T) {
	p := Root("workers").Index(0).Attr("labels").Key(`a"b`)
	if got, want := p.String(), `workers[0].labels["a\"b"]`; got != want {
		t.Fatalf("got: %s want: %s", got, want)
	}
	// Steps do not share a backing array.
	base := Root("hosts").Index(1)
	a, b := base.Attr("name"), base.Attr("port")
	if a.String() != "hosts[1].name" || b.String() != "hosts[1].port" {
		t.Fatalf("got: %s, %s", a, b)
	}
}
