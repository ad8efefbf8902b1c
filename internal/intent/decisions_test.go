package intent

import (
	"strings"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/packs"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

func deletionGate() protocol.Gate {
	return protocol.Gate{ID: "confirm-cluster-deletion", Type: protocol.GateDestructive, RequiredRoles: []string{"platform_admin"},
		Options: []protocol.GateOption{protocol.Proceed("delete cluster"), protocol.Cancel("cancel operation")}}
}

func selectionGate() protocol.Gate {
	return protocol.Gate{ID: "select-s3", Type: protocol.GateProviderSelection, Chosen: "bind a",
		Options: []protocol.GateOption{{ID: "bind a", Effect: protocol.EffectBind, Candidate: "a"}, {ID: "bind b", Effect: protocol.EffectBind, Candidate: "b"}, protocol.Cancel("cancel operation")}}
}

// wantProblems checks that ps holds exactly the problems want, each as
// "path: summary: detail substring".
func wantProblems(t *testing.T, ps Problems, want []string) {
	t.Helper()
	if len(ps) != len(want) {
		t.Fatalf("got %d problems:\n%s\nwant %d: %q", len(ps), ps.Error(), len(want), want)
	}
	for i, w := range want {
		if !strings.Contains(ps[i].String(), w) {
			t.Errorf("problem %d got: %s want containing: %s", i, ps[i], w)
		}
	}
}

func TestCheckApprovals(t *testing.T) {
	admin := Actor{Name: "alice", Roles: []string{"platform_admin"}}
	dev := Actor{Name: "dan", Roles: []string{"developer"}}
	gates := GateSet{Planned: []protocol.Gate{deletionGate(), selectionGate()},
		Later: []protocol.Gate{{ID: "confirm-node-removal", Type: protocol.GateDestructive, Options: []protocol.GateOption{protocol.Proceed("remove node")}}}}
	cases := []struct {
		name      string
		approvals []Approval
		actor     Actor
		want      []string
	}{
		{"proceed by the role", []Approval{{"confirm-cluster-deletion", "delete cluster"}}, admin, nil},
		{"cancel by the role", []Approval{{"confirm-cluster-deletion", "cancel operation"}}, admin, nil},
		{"a later gate decided ahead", []Approval{{"confirm-node-removal", "remove node"}}, dev, nil},
		{"the chosen bind", []Approval{{"select-s3", "bind a"}}, dev, nil},
		{"unknown gate", []Approval{{"confirm-everything", "yes"}}, admin,
			[]string{`approvals[0].gate: Unknown gate: neither the plan nor the pack has a gate "confirm-everything"; gates in this plan: "confirm-cluster-deletion", "select-s3"`}},
		{"wrong option names the gate's options and effects", []Approval{{"confirm-cluster-deletion", "maybe"}}, admin,
			[]string{`approvals[0].option: Unknown option: gate confirm-cluster-deletion (destructive) has no option "maybe"; its options: "delete cluster" (proceeds), "cancel operation" (cancels the operation).`}},
		{"missing role", []Approval{{"confirm-cluster-deletion", "delete cluster"}}, dev,
			[]string{`approvals[0]: Gate waits: the approver lacks its role: gate confirm-cluster-deletion waits: option "delete cluster" needs an actor holding one of the roles "platform_admin", but actor "dan" holds "developer"`}},
		{"missing role for cancel too", []Approval{{"confirm-cluster-deletion", "cancel operation"}}, Actor{Name: "eve"},
			[]string{`approvals[0]: Gate waits: the approver lacks its role: gate confirm-cluster-deletion waits: option "cancel operation" needs an actor holding one of the roles "platform_admin", but actor "eve" holds none`}},
		{"decided twice", []Approval{{"confirm-cluster-deletion", "delete cluster"}, {"confirm-cluster-deletion", "cancel operation"}}, admin,
			[]string{`approvals[1].gate: Gate decided twice: gate confirm-cluster-deletion is already decided by approvals[0]`}},
		{"another bind than the plan's", []Approval{{"select-s3", "bind b"}}, dev,
			[]string{`approvals[0].option: Option differs from the plan: the plan of gate select-s3 is built for "bind a"`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			wantProblems(t, CheckApprovals(Root("approvals"), tc.approvals, gates, tc.actor), tc.want)
		})
	}
	// A decision without the gate's role is a warning, not a refusal: the
	// gate waits; the others refuse the plan.
	ps := CheckApprovals(Root("approvals"), []Approval{{"confirm-cluster-deletion", "delete cluster"}, {"confirm-everything", "yes"}}, gates, dev)
	if len(ps) != 2 || !ps[0].Warning || ps[1].Warning || len(ps.Errors()) != 1 || ps.Errors()[0].Path.String() != "approvals[1].gate" {
		t.Errorf("warning and refusal got: %+v", ps)
	}
	// A day-2 or destroy plan has no resolution gates: an approval for the
	// create's approve-dedicated-minio stays, a wrong option still does not.
	partial := gates
	partial.Partial = true
	wantProblems(t, CheckApprovals(Root("approvals"), []Approval{{"approve-dedicated-minio", "create dedicated_minio"}}, partial, admin), nil)
	wantProblems(t, CheckApprovals(Root("approvals"), []Approval{{"confirm-cluster-deletion", "maybe"}}, partial, admin),
		[]string{`approvals[0].option: Unknown option: gate confirm-cluster-deletion (destructive) has no option "maybe"; its options: "delete cluster" (proceeds), "cancel operation" (cancels the operation).`})
}

func TestDecisionsCarryTheActor(t *testing.T) {
	ds := Decisions([]Approval{{"g", "o"}}, Actor{Name: "alice", Roles: []string{"sre"}})
	if len(ds) != 1 || ds[0].Gate != "g" || ds[0].Option != "o" || ds[0].Actor != "alice" || len(ds[0].Roles) != 1 || ds[0].Roles[0] != "sre" {
		t.Fatalf("got: %+v", ds)
	}
}

func TestPlannedAndTemplateGates(t *testing.T) {
	g := deletionGate()
	p := &protocol.Plan{Instances: []*protocol.JobInstance{{ID: "x", Job: &protocol.Job{}}, {ID: g.ID, Gate: &g}}}
	if got := PlannedGates(p); len(got) != 1 || got[0].ID != g.ID {
		t.Fatalf("planned got: %+v", got)
	}
	k, err := builtinCatalogForDecisions()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, g := range TemplateGates(k) {
		ids = append(ids, g.ID)
	}
	// Every gate of every template, once: the day-2 templates add theirs.
	want := 0
	for _, tpl := range k.Templates {
		want += len(tpl.Gates)
	}
	joined := "," + strings.Join(ids, ",") + ","
	for _, id := range []string{"confirm-cluster-deletion", "confirm-node-removal", "approve-upgrade"} {
		if !strings.Contains(joined, ","+id+",") {
			t.Errorf("template gates got: %q, want %s among them", ids, id)
		}
	}
	if len(ids) != want {
		t.Errorf("template gates got %d (%q), want the %d the templates declare", len(ids), ids, want)
	}
}

func TestCheckInterventions(t *testing.T) {
	fixable := &protocol.Job{ID: "join-worker", Controls: protocol.Controls{ManualIntervention: protocol.ManualIntervention{Allowed: true}}}
	locked := &protocol.Job{ID: "generate-join-token"}
	p := &protocol.Plan{Instances: []*protocol.JobInstance{
		{ID: "join-worker[w1]", JobID: "join-worker", Host: "w1", Pack: "kubernetes@1.0.0", Job: fixable},
		{ID: "generate-join-token", JobID: "generate-join-token", Pack: "kubernetes@1.0.0", Job: locked},
	}}
	cases := []struct {
		name string
		ivs  []InterventionRef
		want []string
	}{
		{"allowed job and node", []InterventionRef{{Job: "join-worker", Node: "w1"}}, nil},
		{"job that forbids it", []InterventionRef{{Job: "generate-join-token"}},
			[]string{"interventions[0].job: Manual intervention not allowed: job generate-join-token of kubernetes@1.0.0 declares controls.manual_intervention.allowed: false"}},
		{"unknown job", []InterventionRef{{Job: "fix-all"}}, []string{`interventions[0].job: Unknown job: the plan has no job "fix-all"; an intervention names the job that failed, e.g. one of: "generate-join-token", "join-worker"`}},
		{"unknown node", []InterventionRef{{Job: "join-worker", Node: "w9"}}, []string{`interventions[0].node: Unknown node: no job of the plan runs on "w9"; nodes of the plan: "w1"`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			wantProblems(t, CheckInterventions(Root("interventions"), tc.ivs, p), tc.want)
		})
	}
}

func TestArtifactVisibility(t *testing.T) {
	k, err := builtinCatalogForDecisions()
	if err != nil {
		t.Fatal(err)
	}
	roles, found := ArtifactRoles(k, "kubeconfig.admin")
	if !found || strings.Join(roles, ",") != "platform_admin,sre" {
		t.Fatalf("kubeconfig.admin roles got: %q, %v", roles, found)
	}
	cases := []struct {
		name     string
		artifact string
		actor    Actor
		err      string
	}{
		{"role held", "kubeconfig.admin", Actor{Name: "alice", Roles: []string{"developer", "sre"}}, ""},
		{"role missing", "kubeconfig.admin", Actor{Name: "dan", Roles: []string{"developer"}},
			`cp_artifact: artifact kubeconfig.admin is visible to the roles "platform_admin", "sre" only, and actor "dan" holds "developer"`},
		{"no roles at all", "kubeconfig.admin", Actor{}, `actor (no actor set) holds none`},
		{"unknown artifact", "kubeconfig.nobody", Actor{Name: "alice"}, "cp_artifact: no job of kubernetes@"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := PackArtifactVisible("cp_artifact", k, tc.artifact, tc.actor)
			if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
				t.Fatalf("got: %v want: %q", err, tc.err)
			}
		})
	}
	if err := CheckArtifactVisible("expose_kubeconfig", "cluster.endpoint", nil, Actor{}); err != nil {
		t.Fatalf("an artifact without visible_to_roles got: %v want: visible to all", err)
	}
}

func TestCheckPatchApprovals(t *testing.T) {
	patch := func(approvedBy string, roles ...string) protocol.PlanPatch {
		return protocol.PlanPatch{ID: "patch-1", Approval: protocol.PatchApproval{Required: true, Roles: roles, ApprovedBy: approvedBy}}
	}
	sre := Actor{Name: "alice", Roles: []string{"sre"}}
	cases := []struct {
		name    string
		patches []protocol.PlanPatch
		actor   Actor
		want    []string
	}{
		{"approved by the actor with the role", []protocol.PlanPatch{patch("alice", "sre")}, sre, nil},
		{"approved by the actor, no roles asked", []protocol.PlanPatch{patch("alice")}, Actor{Name: "alice"}, nil},
		{"not approved yet is the planner's to refuse", []protocol.PlanPatch{patch("", "sre")}, sre, nil},
		{"no approval required", []protocol.PlanPatch{{ID: "p"}}, Actor{}, nil},
		{"approved in another name", []protocol.PlanPatch{patch("bob", "sre")}, sre,
			[]string{`plan_patches[0].approval.approved_by: Approval by another actor: plan patch patch-1 is approved by "bob", but this provider acts as "alice"`}},
		{"approver lacks the role", []protocol.PlanPatch{patch("alice", "sre", "platform_admin")}, Actor{Name: "alice", Roles: []string{"developer"}},
			[]string{`plan_patches[0].approval.roles: Approver lacks the role: plan patch patch-1 needs approval by one of the roles "sre", "platform_admin", but actor "alice" holds "developer"`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			wantProblems(t, CheckPatchApprovals(Root("plan_patches"), nil, tc.patches, tc.actor), tc.want)
		})
	}
}

func builtinCatalogForDecisions() (*protocol.ScenarioPack, error) {
	cat, err := packs.LoadBuiltin()
	if err != nil {
		return nil, err
	}
	return cat.Get("kubernetes", "")
}
