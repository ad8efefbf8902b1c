package intent

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/operation"
	"github.com/intentops/terraform-provider-cp/internal/planner"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

func riskPack(level string) *protocol.ScenarioPack {
	return &protocol.ScenarioPack{ID: "demo", Version: "1.0.0", Risk: protocol.Risk{DefaultLevel: level}}
}

func TestPatchRisk(t *testing.T) {
	cases := []struct {
		name string
		pack *protocol.ScenarioPack
		risk string
		want string
	}{
		{"its own risk over a high default", riskPack("high"), "low", "low"},
		{"its own risk over a low default", riskPack("low"), "high", "high"},
		{"unset takes a high default", riskPack("high"), "", "high"},
		{"unset takes a low default", riskPack("low"), "", "low"},
		{"unset with a pack that sets no default", riskPack(""), "", ""},
		{"unset without a pack", nil, "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := PatchRisk(tc.pack, protocol.PlanPatch{Risk: tc.risk}); got != tc.want {
				t.Errorf("got %q want %q", got, tc.want)
			}
		})
	}
	in := []protocol.PlanPatch{{ID: "a"}, {ID: "b", Risk: "medium"}}
	out := WithPatchRisk(riskPack("high"), in)
	if out[0].Risk != "high" || out[1].Risk != "medium" || in[0].Risk != "" {
		t.Errorf("WithPatchRisk got %q, %q (input %q) want high, medium (input unchanged)", out[0].Risk, out[1].Risk, in[0].Risk)
	}
	if WithPatchRisk(riskPack("high"), nil) != nil {
		t.Error("WithPatchRisk of no patches got some want nil")
	}
}

// A patch of high effective risk (its own, or the pack's
// risk.default_level when it sets none) is refused at plan until an actor
// approves it, holding one of its approval.roles when it names some; low
// and medium patches are checked as before (only when approval.required).
func TestCheckPatchRisk(t *testing.T) {
	patch := func(risk, approvedBy string, roles ...string) protocol.PlanPatch {
		return protocol.PlanPatch{ID: "p1", Author: "ops", Risk: risk, Approval: protocol.PatchApproval{Roles: roles, ApprovedBy: approvedBy}}
	}
	sre := Actor{Name: "alice", Roles: []string{"sre"}}
	dev := Actor{Name: "alice", Roles: []string{"developer"}}
	cases := []struct {
		name  string
		pack  *protocol.ScenarioPack
		patch protocol.PlanPatch
		actor Actor
		want  []string
	}{
		{"high without approval", riskPack("low"), patch("high", "", "sre"), sre,
			[]string{`plan_patches[0]: High-risk plan patch not approved: plan patch p1 needs an approval because its risk is high: once it is reviewed by an actor holding one of the roles "sre", set approval.approved_by = "alice" (the provider's actor, who must hold one of them).`}},
		{"high without approval or roles", riskPack(""), patch("high", ""), sre,
			[]string{`plan_patches[0]: High-risk plan patch not approved: plan patch p1 needs an approval because its risk is high: once the provider's actor "alice" has reviewed it, set approval = { approved_by = "alice" } (add roles = [...] to name the roles that may approve).`}},
		{"high approved by a role holder", riskPack("low"), patch("high", "alice", "sre"), sre, nil},
		{"high approved by an actor without the role", riskPack("low"), patch("high", "alice", "sre"), dev,
			[]string{`plan_patches[0].approval.roles: Approver lacks the role: plan patch p1 needs approval by one of the roles "sre", but actor "alice" holds "developer"`}},
		{"high naming no roles, approved by the actor", riskPack("low"), patch("high", "alice"), dev, nil},
		{"high approved in another name", riskPack("low"), patch("high", "bob", "sre"), sre,
			[]string{`plan_patches[0].approval.approved_by: Approval by another actor: plan patch p1 is approved by "bob", but this provider acts as "alice"`}},
		{"unset risk, pack default high, no approval", riskPack("high"), patch("", "", "sre"), sre,
			[]string{`plan_patches[0]: High-risk plan patch not approved: plan patch p1 needs an approval because it sets no risk and pack demo@1.0.0 has risk.default_level high`}},
		{"unset risk, pack default high, approved by a role holder", riskPack("high"), patch("", "alice", "sre"), sre, nil},
		{"unset risk, pack default high, approved without the role", riskPack("high"), patch("", "alice", "sre"), dev,
			[]string{`plan_patches[0].approval.roles: Approver lacks the role`}},
		{"unset risk, pack default low, no approval", riskPack("low"), patch("", ""), sre, nil},
		{"unset risk, pack default medium, no approval", riskPack("medium"), patch("", ""), sre, nil},
		{"medium on a high-default pack, no approval", riskPack("high"), patch("medium", ""), sre, nil},
		{"low on a high-default pack, no approval", riskPack("high"), patch("low", ""), sre, nil},
		// As before: approved_by on a patch that needs no approval is not checked.
		{"low approved in another name, no approval required", riskPack("high"), patch("low", "bob", "sre"), dev, nil},
		{"medium approved in another name, no approval required", riskPack("low"), patch("medium", "bob"), dev, nil},
		{"not a level", riskPack("low"), patch("extreme", ""), sre,
			[]string{`plan_patches[0].risk: Invalid risk level: plan patch p1 has risk "extreme"; set one of "low", "medium", "high"`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			wantProblems(t, CheckPatchApprovals(Root("plan_patches"), tc.pack, []protocol.PlanPatch{tc.patch}, tc.actor), tc.want)
		})
	}
	// A low or medium patch that requires approval is checked as before.
	req := patch("medium", "alice", "sre")
	req.Approval.Required = true
	wantProblems(t, CheckPatchApprovals(Root("plan_patches"), riskPack("low"), []protocol.PlanPatch{req}, dev),
		[]string{`plan_patches[0].approval.roles: Approver lacks the role`})
}

// The built-in kubernetes pack's risk.default_level is high: a cluster
// patch that sets no risk needs an approval; approved by an sre it is
// planned, and the plan's changes show each patch's effective risk.
func TestKubernetesPatchRiskFromThePack(t *testing.T) {
	cat := builtin(t)
	k, err := cat.Get("kubernetes", "")
	if err != nil {
		t.Fatal(err)
	}
	sre := Actor{Name: "alice", Roles: []string{"sre"}}
	retry := protocol.PlanPatch{ID: "retry-init", Author: "ops", Reason: "retry",
		Changes: []protocol.PatchChange{{Retry: &protocol.RetryChange{Job: "init-control-plane"}}}}
	wantProblems(t, CheckPatchApprovals(Root("plan_patches"), k, []protocol.PlanPatch{retry}, sre),
		[]string{`plan_patches[0]: High-risk plan patch not approved: plan patch retry-init needs an approval because it sets no risk and pack kubernetes@1.0.0 has risk.default_level high`})

	retry.Approval = protocol.PatchApproval{Roles: []string{"sre"}, ApprovedBy: "alice"}
	insert := protocol.PlanPatch{ID: "restart", Author: "ana", Reason: "restart the runtime", Risk: "low",
		Changes: []protocol.PatchChange{{InsertAfter: "install-container-runtime", Jobs: []protocol.PatchJob{{ID: "restart-containerd"}}}}}
	patches := []protocol.PlanPatch{retry, insert}
	wantProblems(t, CheckPatchApprovals(Root("plan_patches"), k, patches, sre), nil)

	s := Spec{Pack: "kubernetes", Name: "prod", ResourceType: ClusterKind, Environment: "prod",
		Hosts:   []operation.HostAccess{{Host: protocol.Host{Name: "master-1", Address: "10.0.0.11", Role: protocol.RoleMaster}}},
		Params:  map[string]string{"cluster_name": "prod"},
		Patches: patches}
	op, err := s.Compose(Planning{Catalog: cat, Now: time.Unix(0, 0)}, Change{Action: "create"})
	if err != nil {
		t.Fatalf("got: %v want: the approved patches planned", err)
	}
	if s.Patches[0].Risk != "" {
		t.Errorf("got: the spec's patch risk %q want: unchanged (unset)", s.Patches[0].Risk)
	}
	found := false
	for _, in := range op.Composed.Plan.Instances {
		found = found || in.JobID == "restart-containerd"
	}
	if !found {
		t.Error("got: no restart-containerd in the plan want: inserted by the approved patch")
	}
	checkGoldenText(t, "patch_risk_changes", changesSection(planner.RenderCompact(op.Composed.Plan, planner.ViewState{})))
}

// changesSection is the compact plan's "Changes against the template"
// block.
func changesSection(compact string) string {
	var out []string
	in := false
	for _, l := range strings.Split(compact, "\n") {
		if strings.HasPrefix(l, "Changes against the template:") {
			in = true
		} else if in && !strings.HasPrefix(l, " ") {
			break
		}
		if in {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n") + "\n"
}

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// checkGoldenText compares got with testdata/NAME.golden; -update
// rewrites the file.
func checkGoldenText(t *testing.T, name, got string) {
	t.Helper()
	file := filepath.Join("testdata", name+".golden")
	if *update {
		must(t, os.MkdirAll("testdata", 0o755))
		must(t, os.WriteFile(file, []byte(got), 0o644))
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("read %s: %v (go test ./internal/intent -update writes it)", file, err)
	}
	if got != string(want) {
		t.Errorf("%s differs:\ngot:\n%s\nwant:\n%s", file, got, want)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
