package intent

import (
	"slices"
	"strings"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/operation"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

func TestNormalizeEndpoint(t *testing.T) {
	for _, c := range []struct{ in, want, err string }{
		{"api.prod.internal:6443", "api.prod.internal:6443", ""},
		{"api.prod.internal", "api.prod.internal:6443", ""},
		{"10.0.0.100", "10.0.0.100:6443", ""},
		{"10.0.0.100:8443", "10.0.0.100:8443", ""},
		{"[fd00::10]:6443", "[fd00::10]:6443", ""},
		{"[fd00::10]", "[fd00::10]:6443", ""},
		{"fd00::10", "[fd00::10]:6443", ""},
		{"lb.internal:1", "lb.internal:1", ""},
		{"lb.internal:65535", "lb.internal:65535", ""},
		{"lb.internal:0", "", "port"},
		{"lb.internal:65536", "", "port"},
		{"lb.internal:http", "", "port"},
		{"lb.internal:", "", "port"},
		{"https://lb.internal:6443", "", "host"},
		{"LB.internal:6443", "", "host"},
		{"lb internal:6443", "", "host"},
		{"10.0.0.300:6443", "", "host"},
		{":6443", "", "host"},
		{"fd00::10:6443:x", "", "brackets"},
		{"lb.internal:6443/api", "", "port"},
		{"[10.0.0.1]:6443", "", "brackets"},
		{"[fd00::10]x", "", "only :port"},
		{"[fd00::10:6443", "", "closing ]"},
		{"lb.internal:6443\n", "", "port"},
	} {
		got, err := NormalizeEndpoint(c.in)
		if c.err == "" {
			if err != nil || got != c.want {
				t.Errorf("%q: got: %q, %v want: %q", c.in, got, err, c.want)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%q: got: %q, %v want: an error naming %q", c.in, got, err, c.err)
		}
	}
}

// Several masters need the endpoint, at its path, saying why (kubeadm
// HA) and what to give; one master keeps the default; a bad form is
// refused at the same path whatever the number of masters.
func TestCheckControlPlaneEndpoint(t *testing.T) {
	path := `parameters["control_plane_endpoint"]`
	for _, c := range []struct {
		name    string
		params  map[string]string
		masters int
		want    []string
	}{
		{"one master, no endpoint", nil, 1, nil},
		{"one master, an endpoint", map[string]string{EndpointParam: "10.0.0.11:6443"}, 1, nil},
		{"three masters, a load balancer", map[string]string{EndpointParam: "api.prod.internal"}, 3, nil},
		{"two masters, no endpoint", nil, 2, []string{"Control-plane endpoint required", "2 masters are listed", "load balancer or virtual IP",
			"port 6443 of every master", "host:port", "first master", "replaces the cluster"}},
		{"three masters, an empty endpoint", map[string]string{EndpointParam: ""}, 3, []string{"Control-plane endpoint required"}},
		{"one master, a bad port", map[string]string{EndpointParam: "10.0.0.11:0"}, 1, []string{"Invalid control-plane endpoint", `"10.0.0.11:0"`, "1-65535"}},
		{"three masters, a URL", map[string]string{EndpointParam: "https://lb:6443"}, 3, []string{"Invalid control-plane endpoint", "host:port"}},
	} {
		ps := CheckControlPlaneEndpoint(c.params, c.masters)
		if len(c.want) == 0 {
			if len(ps) != 0 {
				t.Errorf("%s: got: %v want: no problem", c.name, ps)
			}
			continue
		}
		if len(ps) != 1 || ps[0].Path.String() != path {
			t.Fatalf("%s: got: %v want: one problem at %s", c.name, ps, path)
		}
		text := ps[0].Summary + ": " + ps[0].Detail
		for _, f := range c.want {
			if !strings.Contains(text, f) {
				t.Errorf("%s: %q does not say %q", c.name, text, f)
			}
		}
	}
}

// CheckCluster counts the masters among the hosts for the endpoint rule.
func TestCheckCluster_severalMastersNeedAnEndpoint(t *testing.T) {
	c := goodCluster()
	c.Hosts = []HostInput{{Path: Root("masters").Index(0), Name: "master-1", Address: "10.0.0.11", Role: protocol.RoleMaster},
		{Path: Root("masters").Index(1), Name: "master-2", Address: "10.0.0.12", Role: protocol.RoleMaster},
		{Path: Root("workers").Index(0), Name: "worker-1", Address: "10.0.0.21", Role: protocol.RoleWorker}}
	ps := CheckCluster(c, nil)
	if len(ps) != 1 || ps[0].Path.String() != EndpointPath.String() {
		t.Fatalf("got: %v want: the endpoint required", ps)
	}
	c.Parameters[EndpointParam] = "10.0.0.11:6443"
	if ps := CheckCluster(c, nil); len(ps) != 0 {
		t.Fatalf("got: %v want: no problem with the endpoint given", ps)
	}
	c.Hosts = c.Hosts[2:]
	delete(c.Parameters, EndpointParam)
	c.Hosts = append([]HostInput{{Path: Root("masters").Index(0), Name: "master-1", Address: "10.0.0.11", Role: protocol.RoleMaster}}, c.Hosts...)
	if ps := CheckCluster(c, nil); len(ps) != 0 {
		t.Fatalf("got: %v want: a single master keeps the default", ps)
	}
}

func master(n string) Master {
	return Master{Name: n, Address: "10.0.0.1" + n[len(n)-1:], Settings: "port=22"}
}

func controlPlane(endpoint string, ms ...string) ControlPlane {
	c := ControlPlane{Params: map[string]string{"cni": "calico"}}
	if endpoint != "" {
		c.Params[EndpointParam] = endpoint
	}
	for _, n := range ms {
		c.Masters = append(c.Masters, master(n))
	}
	return c
}

// Each change of the control plane, in place, replaced or refused, with
// the masters added and removed and, for a replacement or a refusal,
// the reason the plan shows.
func TestControlPlaneChange(t *testing.T) {
	lb := "api.prod.internal:6443"
	moved := controlPlane(lb, "master-1", "master-2")
	moved.Masters[1].Address = "10.0.0.99"
	ssh := controlPlane(lb, "master-1", "master-2")
	ssh.Masters[1].Settings = "port=2222"
	nodeAddr := controlPlane("", "master-1")
	nodeAddr.Masters[0].NodeAddress = "172.16.0.11"
	for _, c := range []struct {
		name           string
		prior, next    ControlPlane
		replace        bool
		refused        bool
		added, removed []string
		reason         []string
	}{
		{"unchanged", controlPlane(lb, "master-1", "master-2"), controlPlane(lb, "master-1", "master-2"), false, false, nil, nil, nil},
		{"other parameters change", controlPlane(lb, "master-1"), ControlPlane{Masters: []Master{master("master-1")}, Params: map[string]string{EndpointParam: lb, "cni": "cilium"}},
			false, false, nil, nil, nil},
		{"add a master, endpoint given", controlPlane(lb, "master-1"), controlPlane(lb, "master-1", "master-2"), false, false, []string{"master-2"}, nil, nil},
		{"add two masters", controlPlane(lb, "master-1"), controlPlane(lb, "master-1", "master-2", "master-3"), false, false, []string{"master-2", "master-3"}, nil, nil},
		{"add a master, the default made explicit", controlPlane("", "master-1"), controlPlane("10.0.0.11:6443", "master-1", "master-2"), false, false, []string{"master-2"}, nil, nil},
		{"add a master, the default made explicit without port", controlPlane("", "master-1"), controlPlane("10.0.0.11", "master-1", "master-2"), false, false, []string{"master-2"}, nil, nil},
		{"add a master, the default was the node address", nodeAddr, func() ControlPlane {
			c := controlPlane("172.16.0.11:6443", "master-1", "master-2")
			c.Masters[0].NodeAddress = "172.16.0.11"
			return c
		}(), false, false, []string{"master-2"}, nil, nil},
		{"add a master to a cluster built without an endpoint", controlPlane("", "master-1"), controlPlane(lb, "master-1", "master-2"), false, true, nil, nil,
			[]string{"master-2 would join through \"api.prod.internal:6443\"", `control-plane endpoint "10.0.0.11:6443" (the first master's address`,
				`parameters["control_plane_endpoint"] = "10.0.0.11:6443"`, "replaces the cluster"}},
		{"add a master with another endpoint", controlPlane(lb, "master-1"), controlPlane("api.new.internal:6443", "master-1", "master-2"), false, true, nil, nil,
			[]string{`"api.new.internal:6443", but the cluster was built with control-plane endpoint "api.prod.internal:6443": kubeadm`}},
		{"remove a master", controlPlane(lb, "master-1", "master-2", "master-3"), controlPlane(lb, "master-1", "master-3"), false, false, nil, []string{"master-2"}, nil},
		{"remove a master, add another", controlPlane(lb, "master-1", "master-2"), controlPlane(lb, "master-1", "master-3"), false, false, []string{"master-3"}, []string{"master-2"}, nil},
		{"change the endpoint", controlPlane(lb, "master-1", "master-2"), controlPlane("10.0.0.100:6443", "master-1", "master-2"), true, false, nil, nil,
			[]string{`from "api.prod.internal:6443" to "10.0.0.100:6443"`, "certificate"}},
		{"set the endpoint of a single master", controlPlane("", "master-1"), controlPlane(lb, "master-1"), true, false, nil, nil, []string{`from "10.0.0.11:6443"`}},
		{"remove the endpoint of a single master", controlPlane(lb, "master-1"), controlPlane("", "master-1"), true, false, nil, nil, []string{"to \"10.0.0.11:6443\""}},
		{"the port written out", controlPlane("api.prod.internal", "master-1", "master-2"), controlPlane(lb, "master-1", "master-2"), false, false, nil, nil, nil},
		{"change the first master", controlPlane(lb, "master-1", "master-2"), controlPlane(lb, "master-3", "master-2"), true, false, nil, nil,
			[]string{"first master changes from master-1 to master-3", "etcd's first member"}},
		{"remove the first master", controlPlane(lb, "master-1", "master-2"), controlPlane(lb, "master-2"), true, false, nil, nil, []string{"first master"}},
		{"move the first master", controlPlane(lb, "master-1", "master-2"), func() ControlPlane {
			c := controlPlane(lb, "master-1", "master-2")
			c.Masters[0].Address = "10.0.0.50"
			return c
		}(), true, false, nil, nil, []string{"first master master-1 changes its address"}},
		{"move another master", controlPlane(lb, "master-1", "master-2"), moved, true, false, nil, nil, []string{"master master-2 changes its address"}},
		{"another master's SSH settings", controlPlane(lb, "master-1", "master-2"), ssh, true, false, nil, nil, []string{"master-2"}},
		{"reorder", controlPlane(lb, "master-1", "master-2", "master-3"), controlPlane(lb, "master-1", "master-3", "master-2"), true, false, nil, nil, []string{"order"}},
		{"no masters", controlPlane(lb, "master-1"), controlPlane(lb), true, false, nil, nil, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := ControlPlaneChange(c.prior, c.next)
			if got.Replace != c.replace || (got.Refused != nil) != c.refused {
				t.Fatalf("got: replace %v refused %v (%q %+v) want: replace %v refused %v", got.Replace, got.Refused != nil, got.Reason, got.Refused, c.replace, c.refused)
			}
			if !slices.Equal(got.Added, c.added) || !slices.Equal(got.Removed, c.removed) {
				t.Errorf("got: added %v removed %v want: %v %v", got.Added, got.Removed, c.added, c.removed)
			}
			text := got.Reason
			if got.Refused != nil {
				if got.Refused.Path.String() != `parameters["control_plane_endpoint"]` {
					t.Errorf("refused at %s, want parameters[\"control_plane_endpoint\"]", got.Refused.Path)
				}
				text = got.Refused.Summary + ": " + got.Refused.Detail
			}
			if c.replace && text == "" {
				t.Errorf("a replacement without a reason")
			}
			for _, f := range c.reason {
				if !strings.Contains(text, f) {
					t.Errorf("%q does not say %q", text, f)
				}
			}
		})
	}
}

// The change computation of each in-place change of the hosts: a worker
// added plans add_node, a master added add_master (a control-plane join),
// a master removed remove_node; the ids name the hosts.
func TestClusterChangesAddWorkerAndMaster(t *testing.T) {
	m := func(n string) operation.HostAccess { return hostAccess(n, protocol.RoleMaster, nil) }
	w := func(n string) operation.HostAccess { return hostAccess(n, protocol.RoleWorker, nil) }
	prior := &Cluster{Version: "1.34.2", Hosts: []operation.HostAccess{m("master-1"), w("worker-1")}}
	type change struct {
		action  string
		targets []string
	}
	for _, c := range []struct {
		name string
		next []operation.HostAccess
		want []change
	}{
		{"add a worker", []operation.HostAccess{m("master-1"), w("worker-1"), w("worker-2")}, []change{{"add_node", []string{"worker-2"}}}},
		{"add a master", []operation.HostAccess{m("master-1"), m("master-2"), w("worker-1")}, []change{{"add_master", []string{"master-2"}}}},
		{"add two masters and a worker", []operation.HostAccess{m("master-1"), m("master-3"), m("master-2"), w("worker-1"), w("worker-2")},
			[]change{{"add_master", []string{"master-2", "master-3"}}, {"add_node", []string{"worker-2"}}}},
		{"swap a worker for a master", []operation.HostAccess{m("master-1"), m("master-2")},
			[]change{{"remove_node", []string{"worker-1"}}, {"add_master", []string{"master-2"}}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := ClusterChanges(prior, Cluster{Version: "1.34.2", Hosts: c.next})
			var gotC []change
			for _, g := range got {
				gotC = append(gotC, change{g.Action, g.Targets})
				if !slices.Equal(g.IDParts, g.Targets) {
					t.Errorf("%s: id parts %v, want the targets %v", g.Action, g.IDParts, g.Targets)
				}
			}
			if !slices.EqualFunc(gotC, c.want, func(a, b change) bool { return a.action == b.action && slices.Equal(a.targets, b.targets) }) {
				t.Errorf("got: %v want: %v", gotC, c.want)
			}
		})
	}
	three := &Cluster{Version: "1.34.2", Hosts: []operation.HostAccess{m("master-1"), m("master-2"), m("master-3")}}
	got := ClusterChanges(three, Cluster{Version: "1.34.2", Hosts: []operation.HostAccess{m("master-1"), m("master-3")}})
	if len(got) != 1 || got[0].Action != "remove_node" || !slices.Equal(got[0].Targets, []string{"master-2"}) {
		t.Errorf("remove a master: got %+v, want one remove_node of master-2", got)
	}
}
