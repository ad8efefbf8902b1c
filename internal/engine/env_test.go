package engine

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

func envIntent() *protocol.Intent {
	return &protocol.Intent{TargetResource: "prod", Hosts: []protocol.Host{
		{Name: "m1", Address: "10.0.0.1", Role: protocol.RoleMaster},
		{Name: "w1", Address: "10.0.0.2", Role: protocol.RoleWorker,
			Labels: map[string]string{"zone": "a", "tier": "app", "example.com/team": ""},
			Taints: []string{"gpu:NoExecute", "dedicated=db:NoSchedule"}},
	}}
}

func TestEnvEncodesHostsLabelsAndTaintsCommaSeparated(t *testing.T) {
	intent := envIntent()
	if err := checkHosts(intent); err != nil {
		t.Fatalf("checkHosts: %v", err)
	}
	env := hostEnv(intent, "w1")
	want := map[string]string{
		protocol.EnvHosts:              "m1 10.0.0.1 master,w1 10.0.0.2 worker",
		protocol.EnvHostLabels:         "example.com/team=,tier=app,zone=a",
		protocol.EnvHostTaints:         "dedicated=db:NoSchedule,gpu:NoExecute",
		protocol.EnvHostAddress:        "10.0.0.2",
		protocol.EnvHostRole:           protocol.RoleWorker,
		protocol.EnvFirstMaster:        "m1",
		protocol.EnvFirstMasterAddress: "10.0.0.1",
		protocol.EnvCluster:            "prod",
	}
	for k, v := range want {
		if env[k] != v {
			t.Errorf("%s = %q, want %q", k, env[k], v)
		}
	}
	if got := hostEnv(intent, "m1"); got[protocol.EnvHostLabels] != "" || got[protocol.EnvHostTaints] != "" {
		t.Errorf("a host without labels or taints gets %q and %q, want both empty", got[protocol.EnvHostLabels], got[protocol.EnvHostTaints])
	}
}

// A value that would add an entry or a field to one of the lists is
// refused; the message names the host and what to fix.
func TestEnvRefusesValuesThatBreakTheEncoding(t *testing.T) {
	cases := map[string]struct {
		mod  func(h *protocol.Host)
		want string
	}{
		"newline in a label value": {func(h *protocol.Host) {
			h.Labels = map[string]string{"inj": "x\nnode-role.kubernetes.io/control-plane=yes"}
		}, `label inj: value "x\nnode-role.kubernetes.io/control-plane=yes" holds a control character`},
		"comma in a label value": {func(h *protocol.Host) {
			h.Labels = map[string]string{"inj": "x,node-role.kubernetes.io/control-plane=yes"}
		}, `label inj: value "x,node-role.kubernetes.io/control-plane=yes" is not a Kubernetes label value`},
		"equals sign in a label value": {func(h *protocol.Host) { h.Labels = map[string]string{"a": "b=c"} }, `label a: value "b=c"`},
		"comma in a label key":         {func(h *protocol.Host) { h.Labels = map[string]string{"a,b": "c"} }, `label key "a,b" is not a Kubernetes label key`},
		"comma in a taint":             {func(h *protocol.Host) { h.Taints = []string{"a=b:NoSchedule,c=d:NoExecute"} }, `taint 0: "a=b:NoSchedule,c=d:NoExecute" is not a taint`},
		"newline in a taint":           {func(h *protocol.Host) { h.Taints = []string{"a:NoSchedule\nb:NoExecute"} }, `taint 0: "a:NoSchedule\nb:NoExecute" holds a control character`},
		"comma in a host name":         {func(h *protocol.Host) { h.Name = "w1,evil 10.0.0.9 master" }, `name "w1,evil 10.0.0.9 master" holds ','`},
		"space in an address":          {func(h *protocol.Host) { h.Address = "10.0.0.2 master" }, `address "10.0.0.2 master" holds ' '`},
		"newline in a role":            {func(h *protocol.Host) { h.Role = "worker\nx" }, `role "worker\nx" holds '\n'`},
		"empty name":                   {func(h *protocol.Host) { h.Name = "" }, `host 1: name is empty`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			intent := envIntent()
			c.mod(&intent.Hosts[1])
			err := checkHosts(intent)
			if !errors.Is(err, ErrHostValue) {
				t.Fatalf("checkHosts = %v, want ErrHostValue", err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q does not say %q", err, c.want)
			}
		})
	}
}

// The payload: a newline in a label value must not reach a script
// as a second label. Run refuses the plan before dialling any host.
func TestEnvLabelPayloadRefusedBeforeAnythingRuns(t *testing.T) {
	for _, payload := range []string{"x\nnode-role.kubernetes.io/control-plane=yes", "x,node-role.kubernetes.io/control-plane=yes"} {
		n := clusterNet("w1")
		ran := 0
		n.script = func(*memHost, string, map[string]string, io.Writer) int { ran++; return 0 }
		e, _ := newTestEngine(n, nil)
		p := clusterPlan("w1")
		p.Intent.Hosts[1].Labels = map[string]string{"inj": payload}
		res, err := e.Run(context.Background(), p, RunInput{})
		if !errors.Is(err, ErrHostValue) || res != nil {
			t.Fatalf("Run with label %q = %v, %v; want no result and ErrHostValue", payload, res, err)
		}
		if !strings.Contains(err.Error(), `host 1 ("w1")`) {
			t.Errorf("error %q does not name the host", err)
		}
		if n.dials != 0 || ran != 0 {
			t.Errorf("label %q: %d dials and %d scripts before the refusal, want none", payload, n.dials, ran)
		}
	}
}

// What a script sees: splitting CP_HOST_LABELS on commas gives exactly the
// host's labels, for every accepted value.
func TestEnvLabelsSplitBackToTheSameLabels(t *testing.T) {
	labels := map[string]string{"a": "", "b.example/c-d": "e_f.g", "Z": "9"}
	enc := encodeLabels(labels)
	got := map[string]string{}
	for _, kv := range strings.Split(enc, protocol.EnvListSeparator) {
		k, v, _ := strings.Cut(kv, "=")
		got[k] = v
	}
	if len(got) != len(labels) {
		t.Fatalf("%q splits into %v, want %v", enc, got, labels)
	}
	for k, v := range labels {
		if got[k] != v {
			t.Errorf("%q gives %s=%q, want %q", enc, k, got[k], v)
		}
	}
}

// TestBoundCluster: a plan bound to a cluster passes its name as
// CP_BOUND_CLUSTER; a plan binding none, or a name that is no DNS label,
// passes nothing.
func TestBoundCluster(t *testing.T) {
	bind := func(name string) protocol.Binding {
		return protocol.Binding{Requirement: protocol.CapabilityRequirement{Key: "kubernetes.cluster"}, Decision: "bind", Provider: "prov",
			Capability: &protocol.Capability{Key: "kubernetes.cluster", Attributes: map[string]string{"name": name}}}
	}
	cases := map[string]struct {
		bindings []protocol.Binding
		want     string
	}{
		"bound":         {[]protocol.Binding{bind("prod-k8s")}, "prod-k8s"},
		"provider name": {[]protocol.Binding{bind("")}, "prov"},
		"not a label":   {[]protocol.Binding{bind("x\ny")}, ""},
		"created":       {[]protocol.Binding{{Requirement: protocol.CapabilityRequirement{Key: "kubernetes.cluster"}, Decision: "create"}}, ""},
		"none":          {nil, ""},
	}
	for name, c := range cases {
		if got := boundCluster(&protocol.Plan{Bindings: c.bindings}); got != c.want {
			t.Errorf("%s: got %q want %q", name, got, c.want)
		}
	}
}
