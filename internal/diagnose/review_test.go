package diagnose

import (
	"errors"
	"strings"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/planner"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// seedPatch is the patch of seed 001 §14 with a mirror parameter.
func seedPatch() protocol.PlanPatch {
	return protocol.PlanPatch{ID: "patch-1", Author: "analyzer:test", Reason: "Nodes cannot pull images.", Risk: "medium",
		Changes: []protocol.PatchChange{
			{InsertAfter: "install-container-runtime", Jobs: []protocol.PatchJob{
				{ID: "configure-containerd-registry-mirror", Parameters: map[string]string{"registry_mirrors": "https://mirror.example.internal"}},
				{ID: "restart-containerd"}, {ID: "pre-pull-kubernetes-images"}}},
			{Retry: &protocol.RetryChange{Job: "init-control-plane"}},
		},
		Approval: protocol.PatchApproval{Required: true, Roles: []string{"sre"}}}
}

// cyclicPatch inserts a job that init-control-plane optionally needs
// after a job that needs init-control-plane.
func cyclicPatch() protocol.PlanPatch {
	p := seedPatch()
	p.Changes = []protocol.PatchChange{{InsertAfter: "verify-cluster", Jobs: []protocol.PatchJob{
		{ID: "configure-containerd-registry-mirror", Parameters: map[string]string{"registry_mirrors": "https://mirror.example.internal"}}}}}
	return p
}

func TestReviewer(t *testing.T) {
	fx := createFixture(t, nil)
	f := fx.failure(t, "init-control-plane[master-1]", "kubeadm init failed", nil)
	var handed []protocol.PlanPatch
	r := Reviewer{Library: f.JobLibrary, PlanJobs: f.PlanJobs, Rebuild: func(p protocol.PlanPatch) error {
		handed = append(handed, p)
		return fx.review(p)
	}}
	mut := func(change func(*protocol.PlanPatch)) protocol.PlanPatch {
		p := seedPatch()
		change(&p)
		return p
	}
	cases := []struct {
		name    string
		patch   protocol.PlanPatch
		planner error  // sentinel the planner's error wraps; nil when the reviewer rejects first
		want    string // substring of the error; empty means accepted
	}{
		{name: "seed patch", patch: seedPatch()},
		{name: "unknown job", patch: mut(func(p *protocol.PlanPatch) { p.Changes[0].Jobs[1].ID = "restart-docker" }),
			want: `job "restart-docker" is not in the pack's job library`},
		{name: "inline job", patch: mut(func(p *protocol.PlanPatch) {
			p.Changes[0].Jobs[1].Job = &protocol.Job{ID: "restart-containerd", Title: "x", Script: "rm -rf /"}
		}), want: "defined inline"},
		{name: "parameter the job does not read", patch: mut(func(p *protocol.PlanPatch) {
			p.Changes[0].Jobs[1].Parameters = map[string]string{"registry_mirrors": "x"}
		}), want: `job "restart-containerd" does not read parameter "registry_mirrors"`},
		{name: "anchor not in the plan", patch: mut(func(p *protocol.PlanPatch) { p.Changes[0].InsertAfter = "prepare-kubernetes-prerequisites" }),
			want: `insert_after "prepare-kubernetes-prerequisites" is not a job of the plan`},
		{name: "job already in the plan", patch: mut(func(p *protocol.PlanPatch) { p.Changes[0].Jobs[1].ID = "install-cni" }),
			want: `job "install-cni" is already in the plan`},
		{name: "malformed change", patch: mut(func(p *protocol.PlanPatch) { p.Changes[1].Remove = "install-storage" }),
			want: "set exactly one of insert_after, remove, retry"},
		{name: "no author", patch: mut(func(p *protocol.PlanPatch) { p.Author = " " }), want: "author is empty"},
		{name: "broken contract", patch: mut(func(p *protocol.PlanPatch) {
			p.Changes = []protocol.PatchChange{{Remove: "init-control-plane"}}
		}), planner: planner.ErrEdit, want: "jobs still in the plan need its outputs"},
		{name: "cycle", patch: cyclicPatch(), planner: planner.ErrCycle, want: "cycle"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			handed = nil
			err := r.Review(tc.patch)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("got: %v want: accepted", err)
				}
				if len(handed) != 1 || handed[0].Approval.ApprovedBy != ReviewApprover || tc.patch.Approval.ApprovedBy != "" {
					t.Errorf("planner got %+v, original approval %+v; want an approved copy and an unapproved original", handed, tc.patch.Approval)
				}
				return
			}
			if err == nil {
				t.Fatalf("got: accepted want: rejection containing %q", tc.want)
			}
			if !errors.Is(err, ErrRejected) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got: %v want: ErrRejected containing %q", err, tc.want)
			}
			if tc.planner != nil && !errors.Is(err, tc.planner) {
				t.Errorf("got: %v want: it to wrap the planner's %v", err, tc.planner)
			}
			if tc.planner == nil && len(handed) != 0 {
				t.Errorf("planner was asked about a patch the reviewer should refuse first")
			}
		})
	}
}

// TestReviewerWithoutPlanner checks what needs no planner.
func TestReviewerWithoutPlanner(t *testing.T) {
	r := Reviewer{Library: []LibraryJob{{ID: "restart-containerd"}}}
	p := protocol.PlanPatch{Author: "a", Reason: "r", Changes: []protocol.PatchChange{
		{InsertAfter: "anything", Jobs: []protocol.PatchJob{{ID: "restart-containerd"}}}, {Retry: &protocol.RetryChange{Job: "restart-containerd"}}}}
	if err := r.Review(p); err != nil {
		t.Errorf("got: %v want: accepted (plan jobs unknown)", err)
	}
	if err := (Reviewer{}).Review(p); err == nil || !strings.Contains(err.Error(), "not in the pack's job library") {
		t.Errorf("got: %v want: rejected, the library is empty", err)
	}
}
