package e2e

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/engine"
	"github.com/intentops/terraform-provider-cp/internal/intent"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// Host attributes reach hosts as CP_HOST, CP_HOST_ADDRESS, CP_HOST_ROLE,
// CP_HOSTS, CP_HOST_LABELS and CP_HOST_TAINTS. Every payload goes into
// each of them on worker-1; plan (intent.CheckHosts, what every intent
// resource runs) must refuse it at the attribute's path, or the apply
// must take it literally.

type hostAttr struct {
	name string
	set  func(h *protocol.Host, v string)
	path string // the attribute path plan must name
}

var hostAttrs = []hostAttr{
	{"name", func(h *protocol.Host, v string) { h.Name = v }, "workers[0].name"},
	{"address", func(h *protocol.Host, v string) { h.Address = v }, "workers[0].address"},
	{"role", func(h *protocol.Host, v string) { h.Role = v }, "hosts[1].role"},
	{"label_key", func(h *protocol.Host, v string) { h.Labels = map[string]string{v: "x"} }, "workers[0].labels"},
	{"label_value", func(h *protocol.Host, v string) { h.Labels = map[string]string{"tier": v} }, `workers[0].labels["tier"]`},
	{"taint", func(h *protocol.Host, v string) { h.Taints = []string{v} }, "workers[0].taints[0]"},
}

// hostProblems runs the plan-time host checks the way a cluster does:
// masters and workers by attribute, the role implied, IPv4 only.
func hostProblems(hosts []protocol.Host, roleSet bool) intent.Problems {
	var in []intent.HostInput
	mi, wi := 0, 0
	for _, h := range hosts {
		var p intent.Path
		switch {
		case roleSet: // hosts with a role of their own, as cp_scenario's
			p = intent.Root("hosts").Index(mi + wi)
			wi++
		case h.Role == protocol.RoleMaster:
			p, mi = intent.Root("masters").Index(mi), mi+1
		default:
			p, wi = intent.Root("workers").Index(wi), wi+1
		}
		in = append(in, intent.HostInput{Path: p, Name: h.Name, Address: h.Address, Role: h.Role, RoleSet: roleSet && h.Role != protocol.RoleMaster,
			Labels: h.Labels, Taints: h.Taints})
	}
	rules := intent.HostRules{DefaultPort: 22, IPv4Only: true, Kind: "node"}
	if roleSet {
		rules.Roles = intent.NodeRoles
	}
	return intent.CheckHosts(in, rules)
}

type acceptedHost struct {
	attr hostAttr
	p    payload
}

func hostPlanStage(t *testing.T) []acceptedHost {
	var out []acceptedHost
	for _, a := range hostAttrs {
		for _, p := range loadPayloads(t) {
			hosts := injectHosts()
			v := p.value(canaryPath("host."+a.name, p))
			a.set(&hosts[1], v)
			ps := hostProblems(hosts, a.name == "role")
			if len(ps) == 0 {
				out = append(out, acceptedHost{attr: a, p: p})
				continue
			}
			named := false
			for _, pr := range ps {
				s := pr.Path.String()
				named = named || strings.HasPrefix(s, a.path)
				if strings.ContainsAny(pr.Detail, "\n\r\x00") {
					t.Errorf("host %s = %q: the refusal prints a control character raw: %q", a.name, v, pr.Detail)
				}
			}
			if !named {
				t.Errorf("host %s = %q: refused, but not at %s: %v", a.name, v, a.path, ps)
			}
		}
	}
	return out
}

// TestInjectionHostsPlanStage: every payload in every host attribute is
// refused at its path, or accepted as a value that cannot break out.
func TestInjectionHostsPlanStage(t *testing.T) {
	acc := hostPlanStage(t)
	for _, a := range acc {
		t.Logf("accepted at plan: host %s = %q", a.attr.name, a.p.raw)
		if strings.ContainsAny(a.p.raw, "\n\r\x00\t,=;$`'\" ") && a.attr.name != "label_value" {
			t.Errorf("host %s = %q accepted at plan", a.attr.name, a.p.raw)
		}
	}
}

// TestInjectionHostsApplyStage applies a sample of what plan accepted in
// host attributes, on fresh test hosts, and looks for their effects.
func TestInjectionHostsApplyStage(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("TF_ACC unset: the apply stage needs root and test hosts")
	}
	acc := hostPlanStage(t)
	// name and address choose which host is reached; the others are data.
	var data []acceptedHost
	for _, a := range acc {
		if a.attr.name != "name" && a.attr.name != "address" && a.attr.name != "role" {
			data = append(data, a)
		}
	}
	sample := 2
	if os.Getenv("CP_INJECT_FULL") == "1" {
		sample = len(data)
	} else if s, err := strconv.Atoi(os.Getenv("CP_INJECT_SAMPLE")); err == nil {
		sample = s
	}
	if len(data) == 0 {
		t.Fatal("no host payload accepted at plan reaches a host; the apply stage would prove nothing")
	}
	for i := 0; i < sample && i < len(data); i++ {
		a := data[(i*7)%len(data)]
		t.Run(fmt.Sprintf("%s/line%d", a.attr.name, a.p.line), func(t *testing.T) {
			e := startHosts(t, "inject-k8s", "master-1", "worker-1")
			hosts := e.intentHosts([]string{"master-1"}, []string{"worker-1"})
			canary := canaryPath("host."+a.attr.name, a.p)
			a.attr.set(&hosts[1], a.p.value(canary))
			req := baseRequest("kubernetes", "create", hosts)
			c := e.compose(req)
			res := e.run(c.Plan, engine.RunInput{})
			t.Logf("host %s = %q: %s", a.attr.name, a.p.value(canary), res.Operation.Status)
			e.checkNoInjection(t, canary)
		})
	}
}
