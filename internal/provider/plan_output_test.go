package provider

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/intentops/terraform-provider-cp/internal/intent"
	"github.com/intentops/terraform-provider-cp/internal/planner"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

func gatePlan() *protocol.Plan {
	gate := func(id string) *protocol.JobInstance {
		return &protocol.JobInstance{ID: id, Stage: "s", Origin: protocol.OriginGate, Gate: &protocol.Gate{ID: id, Type: protocol.GateApproval,
			Reason: "r", Options: []protocol.GateOption{protocol.Proceed("go"), protocol.Cancel("stop")}, RequiredRoles: []string{"sre"}}}
	}
	return &protocol.Plan{Template: "t", Instances: []*protocol.JobInstance{gate("a"), gate("b"), gate("c")}}
}

func approval(gate, option string) approvalModel {
	return approvalModel{Gate: types.StringValue(gate), Option: types.StringValue(option)}
}

// An approval with one of the gate's options approves it for the
// provider's actor when the actor holds one of the gate's roles; the first
// of several decides; one with another option, or naming another gate,
// leaves it waiting, and so does one by an actor without the role, shown
// refused with why.
func TestGateStates(t *testing.T) {
	sre := intent.Actor{Name: "ci", Roles: []string{"sre"}}
	st := gateStates(gatePlan(), []approvalModel{approval("a", "nope"), approval("a", "stop"), approval("a", "go"), approval("x", "go"), approval("c", "missing")}, sre)
	if got, want := st.Gates["a"], (planner.GateState{Approved: true, Actor: "ci", Option: "stop"}); got != want {
		t.Errorf("gate a: %+v, want %+v", got, want)
	}
	for _, id := range []string{"b", "c"} {
		if st.Gates[id].Approved {
			t.Errorf("gate %s approved without a valid approval: %+v", id, st.Gates[id])
		}
	}
	dev := intent.Actor{Name: "dan", Roles: []string{"developer", "qa"}}
	st = gateStates(gatePlan(), []approvalModel{approval("a", "go")}, dev)
	want := planner.GateState{Actor: "dan", Option: "go", Refused: "actor dan holds roles developer, qa, not one of the gate's roles"}
	if got := st.Gates["a"]; got != want {
		t.Errorf("gate a approved by an actor without its role: %+v, want %+v", got, want)
	}
}

// Each waiting gate is one warning naming it, its roles and the entry to
// paste; an approved gate gives none.
func TestWarnWaiting(t *testing.T) {
	ov := renderOpViews([]intentOp{{Action: "create", Composed: &planner.Composed{Plan: gatePlan()}}}, []approvalModel{approval("b", "go")}, intent.Actor{Name: "ci", Roles: []string{"sre"}})
	var diags diag.Diagnostics
	ov.warnWaiting(&diags)
	if len(diags) != 2 || diags.HasError() {
		t.Fatalf("want 2 warnings (a and c), got %v", diags)
	}
	for i, id := range []string{"a", "c"} {
		d := diags[i]
		if d.Summary() != "Gate "+id+" is waiting" {
			t.Errorf("warning %d: %q", i, d.Summary())
		}
		for _, want := range []string{"role sre", `approvals = [{ gate = "` + id + `", option = "go" }]`} {
			if !strings.Contains(d.Detail(), want) {
				t.Errorf("warning for %s lacks %q: %s", id, want, d.Detail())
			}
		}
	}
	if ov.instances().Elements()["b"].(types.Object).Attributes()["status"].(types.String).ValueString() != planner.StatusApproved {
		t.Errorf("gate b is not approved in planned_instances: %v", ov.instances())
	}
}
