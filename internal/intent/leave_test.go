package intent

import (
	"slices"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/operation"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

func leaveHosts(names ...string) []operation.HostAccess {
	var out []operation.HostAccess
	for _, n := range names {
		out = append(out, operation.HostAccess{Host: protocol.Host{Name: n}})
	}
	return out
}

// A host that leaves the cluster gets the pack's uninstall_node, planned
// over the prior and the next hosts with the leaving ones as targets and
// an id naming them; nothing leaving, hosts only added, or a pack without
// the action need nothing.
func TestLeaveChange(t *testing.T) {
	pack := &protocol.ScenarioPack{ID: "agent", PlanTemplates: []protocol.TemplateRef{{Action: "install"}, {Action: LeaveAction}}}
	prior := leaveHosts("master-1", "worker-1", "worker-2", "worker-3")
	next := leaveHosts("master-1", "worker-1", "worker-4")
	c := LeaveChange(pack, prior, next)
	if c == nil {
		t.Fatal("no change for worker-2 and worker-3 leaving")
	}
	var hosts []string
	for _, h := range c.Hosts {
		hosts = append(hosts, h.Host.Name)
	}
	if c.Action != LeaveAction || !slices.Equal(c.Targets, []string{"worker-2", "worker-3"}) ||
		!slices.Equal(hosts, []string{"master-1", "worker-1", "worker-2", "worker-3", "worker-4"}) ||
		!slices.Equal(c.IDParts, []string{"agent", "leave", "worker-2", "worker-3"}) {
		t.Errorf("change = %+v, hosts %v", c, hosts)
	}
	for name, got := range map[string]*Change{
		"nothing left":      LeaveChange(pack, prior, prior),
		"hosts only added":  LeaveChange(pack, next[:2], next),
		"no uninstall_node": LeaveChange(&protocol.ScenarioPack{ID: "x", PlanTemplates: []protocol.TemplateRef{{Action: "install"}}}, prior, next),
		"no pack":           LeaveChange(nil, prior, next),
	} {
		if got != nil {
			t.Errorf("%s: change %+v, want none", name, got)
		}
	}
}
