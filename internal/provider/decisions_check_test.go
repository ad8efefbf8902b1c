package provider

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/intentops/terraform-provider-cp/internal/capability"
	"github.com/intentops/terraform-provider-cp/internal/intent"
	"github.com/intentops/terraform-provider-cp/internal/operation"
	"github.com/intentops/terraform-provider-cp/internal/packs"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

func builtinData(t *testing.T, actor string, roles ...string) *providerData {
	t.Helper()
	cat, err := packs.LoadBuiltin()
	if err != nil {
		t.Fatal(err)
	}
	return &providerData{Catalog: cat, Actor: actor, Roles: roles, Policy: capability.Policy{}}
}

// The admin kubeconfig is visible to sre and platform_admin only: both
// cp_artifact and expose_kubeconfig refuse it to an actor without them.
func TestArtifactVisibility(t *testing.T) {
	h := intent.Handle{Kind: intent.ClusterKind, Name: "prod"}
	for _, tc := range []struct {
		roles []string
		want  bool
	}{{[]string{"platform_admin"}, true}, {[]string{"sre"}, true}, {[]string{"developer"}, false}, {nil, false}} {
		d := builtinData(t, "ci", tc.roles...)
		err := artifactVisible(d, h, kubeconfigArtifact)
		if (err == nil) != tc.want {
			t.Errorf("cp_artifact with roles %v got %v want visible %v", tc.roles, err, tc.want)
		}
		if err != nil && !strings.Contains(err.Error(), `visible to the roles "platform_admin", "sre" only`) {
			t.Errorf("cp_artifact error got %q want the roles named", err)
		}
		var diags diag.Diagnostics
		checkExposeKubeconfig(d, true, &diags)
		if !diags.HasError() != tc.want {
			t.Errorf("expose_kubeconfig with roles %v got %q want visible %v", tc.roles, diagText(diags), tc.want)
		}
		if diags.HasError() {
			want := `expose_kubeconfig: artifact kubeconfig.admin is visible to the roles "platform_admin", "sre" only, and actor "ci" holds ` + orNoneText(tc.roles) +
				`; give the provider's actor_roles one of them, or set expose_kubeconfig = false.`
			if got := diags.Errors()[0].Detail(); got != want {
				t.Errorf("expose_kubeconfig with roles %v refused with\n%s\nwant\n%s", tc.roles, got, want)
			}
		}
		diags = nil
		checkExposeKubeconfig(d, false, &diags)
		if diags.HasError() {
			t.Errorf("expose_kubeconfig = false got %q want no check", diagText(diags))
		}
	}
	if err := artifactVisible(builtinData(t, "ci"), h, "kubeadm.join_token"); err != nil {
		t.Errorf("an artifact without visible_to_roles got %v want visible", err)
	}
}

// orNoneText is how the refusal names the actor's roles.
func orNoneText(roles []string) string {
	if len(roles) == 0 {
		return "none"
	}
	return `"` + strings.Join(roles, `", "`) + `"`
}

// checkDecisions reports each refused decision on its attribute path.
func TestCheckDecisionsPaths(t *testing.T) {
	d := builtinData(t, "ci", "sre", "platform_admin")
	s := intent.Spec{Pack: "kubernetes", Name: "prod", ResourceType: intent.ClusterKind, Environment: "prod",
		Hosts:  []operation.HostAccess{{Host: protocol.Host{Name: "master-1", Address: "10.0.0.11", Role: protocol.RoleMaster}}},
		Params: map[string]string{"cluster_name": "prod"},
		Patches: []protocol.PlanPatch{{ID: "p1", Author: "ops", Reason: "retry", Changes: []protocol.PatchChange{{Retry: &protocol.RetryChange{Job: "init-control-plane"}}},
			Approval: protocol.PatchApproval{Required: true, ApprovedBy: "bob"}}}}
	op, err := s.Compose(intent.Planning{Catalog: d.Catalog, Now: time.Unix(0, 0)}, intent.Change{Action: "create"})
	if err != nil {
		t.Fatal(err)
	}
	ip := intentPlan{spec: s, inputs: runInputs{
		Approvals: []approvalModel{
			{Gate: types.StringValue("confirm-cluster-deletion"), Option: types.StringValue("delete cluster")},
			{Gate: types.StringValue("confirm-drain"), Option: types.StringValue("nope")},
		},
		Interventions: []interventionModel{{Job: types.StringValue("validate-inputs"), Node: types.StringValue("master-1")}},
	}}
	var diags diag.Diagnostics
	checkDecisions([]intentOp{op}, ip, actorOf(d), &diags)
	txt := diagText(diags)
	for _, want := range []string{"approvals[1].option: Unknown option", "interventions[0].job: Manual intervention not allowed", "plan_patches[0].approval.approved_by: Approval by another actor"} {
		if !strings.Contains(txt, want) {
			t.Errorf("got:\n%s\nwant: %s", txt, want)
		}
	}
	if strings.Contains(txt, "approvals[0]") {
		t.Errorf("got:\n%s\nwant: approvals[0] accepted", txt)
	}
	diags = nil
	checkDecisions(nil, ip, actorOf(d), &diags)
	if diags.HasError() {
		t.Errorf("nothing to run got %q want: nothing checked", diagText(diags))
	}
}

// A planner error caused by a choice lands on the approval that made it.
func TestChoiceErrorOnItsApproval(t *testing.T) {
	approvals := []approvalModel{
		{Gate: types.StringValue("approve-upgrade"), Option: types.StringValue("upgrade")},
		{Gate: types.StringValue("select-object-storage-s3-provider"), Option: types.StringValue("bind x")},
	}
	var diags diag.Diagnostics
	err := fmt.Errorf("plan: %w: gate select-object-storage-s3-provider (provider_selection) has no option %q", capability.ErrUnknownOption, "bind x")
	if !addChoiceError(&diags, approvals, err) || !strings.Contains(diagText(diags), "approvals[1].option: Unknown option") {
		t.Errorf("got %q want the error on approvals[1].option", diagText(diags))
	}
	if addChoiceError(&diags, approvals, fmt.Errorf("other")) {
		t.Error("another error got: taken want: left to the planning error")
	}
}
