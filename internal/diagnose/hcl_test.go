package diagnose

import (
	"context"
	"testing"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// TestPatchHCLSeed pins the exact block the provider's users paste: the
// plan_patches schema of the cp resources.
func TestPatchHCLSeed(t *testing.T) {
	p := protocol.PlanPatch{ID: "diagnose-image-pull-init-control-plane", Author: "diagnose:rule/image-pull",
		Reason: "Images cannot be pulled on master-1.", Risk: "medium",
		Changes: []protocol.PatchChange{
			{InsertAfter: "install-container-runtime", Jobs: []protocol.PatchJob{
				{ID: "configure-containerd-registry-mirror", Parameters: map[string]string{"registry_mirrors": "https://mirror.example.internal"}},
				{ID: "restart-containerd"}, {ID: "pre-pull-kubernetes-images"}}},
			{Retry: &protocol.RetryChange{Job: "init-control-plane"}},
		},
		Approval: protocol.PatchApproval{Required: true, Roles: []string{"sre"}}}
	want := `  plan_patches = [{
    id     = "diagnose-image-pull-init-control-plane"
    author = "diagnose:rule/image-pull"
    reason = "Images cannot be pulled on master-1."
    risk   = "medium"
    changes = [
      {
        insert_after = "install-container-runtime"
        jobs         = ["configure-containerd-registry-mirror", "restart-containerd", "pre-pull-kubernetes-images"]
        parameters   = { registry_mirrors = "https://mirror.example.internal" }
      },
      { retry = "init-control-plane" },
    ]
    approval = { required = true, roles = ["sre"], approved_by = "" }   # fill approved_by to approve
  }]
`
	if got := PatchHCL(p); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestPatchHCLGolden(t *testing.T) {
	cases := []struct {
		name  string
		patch protocol.PlanPatch
	}{
		{"patch_escaping.hcl", protocol.PlanPatch{
			Author: "analyzer:gpt-4o", Reason: "Quote \"x\", path C:\\tmp, tab\there\nnext line ${var.secret} %{ if true }x%{ endif } $${already} 100% $HOME \x01 é",
			Changes: []protocol.PatchChange{
				{InsertAfter: "install-container-runtime", Jobs: []protocol.PatchJob{
					{ID: "configure-containerd-registry-mirror", Parameters: map[string]string{"registry_mirrors": "https://a.example/${x}", "mirrored.registries": "docker.io"}},
					{ID: "custom", Parameters: map[string]string{"registry_mirrors": "https://b.example"}, Job: &protocol.Job{ID: "custom"}},
				}},
				{Remove: "install-storage"},
				{Retry: &protocol.RetryChange{Job: "join-workers"}},
			},
			Approval: protocol.PatchApproval{Required: true, Roles: []string{"sre", "platform_admin"}}}},
		{"patch_approved.hcl", protocol.PlanPatch{ID: "p-2", Author: "alice", Reason: "retry after fixing DNS by hand",
			Changes:  []protocol.PatchChange{{Retry: &protocol.RetryChange{Job: "join-worker"}}},
			Approval: protocol.PatchApproval{Required: true, Roles: []string{"sre"}, ApprovedBy: "bob"}}},
		{"patch_no_approval.hcl", protocol.PlanPatch{Author: "alice", Reason: "drop storage",
			Changes: []protocol.PatchChange{{Remove: "install-storage"}}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { checkGolden(t, tc.name, PatchHCL(tc.patch)) })
	}
}

func TestHCLString(t *testing.T) {
	cases := []struct{ in, want string }{
		{`plain`, `"plain"`},
		{`a"b`, `"a\"b"`},
		{`a\b`, `"a\\b"`},
		{"l1\nl2\r\tx", `"l1\nl2\r\tx"`},
		{"${x}", `"$${x}"`},
		{"%{x}", `"%%{x}"`},
		{"$${x}", `"$$${x}"`},
		{"$x 50% {}", `"$x 50% {}"`},
		{"\x01\u200b", `"\u0001\u200B"`},
		{"é ✓", `"é ✓"`},
		{"", `""`},
	}
	for _, tc := range cases {
		if got := hclString(tc.in); got != tc.want {
			t.Errorf("hclString(%q) got: %s want: %s", tc.in, got, tc.want)
		}
	}
	keys := map[string]string{"registry_mirrors": "registry_mirrors", "a-b": "a-b", "a.b": `"a.b"`, "1a": `"1a"`, "": `""`}
	for in, want := range keys {
		if got := hclKey(in); got != want {
			t.Errorf("hclKey(%q) got: %s want: %s", in, got, want)
		}
	}
}

func TestExplainGolden(t *testing.T) {
	fx := createFixture(t, nil)
	f := fx.failure(t, "init-control-plane[master-1]", readLog(t, "image-pull-init.log"), nil)
	res := Diagnose(context.Background(), f, Options{Review: fx.review})
	checkGolden(t, "explain_image_pull.txt", Explain(res))

	nf := addNodeFixture(t, testNow.Add(24*time.Hour))
	unknown := seedPatch()
	unknown.Changes[0].InsertAfter = "prepare-kubernetes-prerequisites"
	unknown.Changes[0].Jobs[0].ID = "configure-docker-mirror"
	unknown.Changes[1].Retry.Job = "join-worker"
	res = Diagnose(context.Background(), nf.failure(t, "join-worker[worker-6]", readLog(t, "dns-join.log"), nil),
		Options{Review: nf.review, Analyzers: []Analyzer{answering("gpt-test", Diagnosis{Summary: "Mirror needed", Risk: RiskMedium, Confidence: 0.4}, &unknown)}})
	checkGolden(t, "explain_dns_fallback.txt", Explain(res))
}
