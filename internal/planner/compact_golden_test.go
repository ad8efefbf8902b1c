package planner

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// builtinCluster is the builtin kubernetes input with the parameters the
// builtin goldens use.
func builtinCluster(t *testing.T, in Input) *protocol.Plan {
	t.Helper()
	in.Intent.Parameters = map[string]string{"cluster_name": "prod-k8s", "cni": "calico", "container_runtime": "containerd", "storage": "longhorn"}
	p, err := Build(in)
	if err != nil {
		t.Fatalf("got: %v want: a plan", err)
	}
	return p
}

func tempoGatePlan(t *testing.T) *protocol.Plan {
	t.Helper()
	in, err := tempoInput("prod", nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Build(in)
	if err != nil {
		t.Fatalf("got: %v want: a plan", err)
	}
	return p
}

// compactGolden renders the compact view with the per-instance view of
// the instances the test names, and checks both against the golden file.
func compactGolden(t *testing.T, name string, p *protocol.Plan, st ViewState, maxLines int) string {
	t.Helper()
	got := RenderCompact(p, st)
	if n := strings.Count(got, "\n"); n > maxLines {
		t.Errorf("compact view has %d lines, want at most %d", n, maxLines)
	}
	checkGolden(t, name, []byte(got))
	return got
}

func TestGoldenCompact(t *testing.T) {
	t.Run("create_3_7", func(t *testing.T) {
		k := builtinPack(t, "kubernetes")
		in := createInput(k)
		in.Intent = clusterIntent(3, 7)
		compactGolden(t, "compact_create_3_7", builtinCluster(t, in), ViewState{}, 150)
	})
	t.Run("create_1000", func(t *testing.T) {
		k := builtinPack(t, "kubernetes")
		in := createInput(k)
		in.Intent = clusterIntent(3, 997)
		compactGolden(t, "compact_create_1000", builtinCluster(t, in), ViewState{}, 200)
	})
	t.Run("create_patched", func(t *testing.T) {
		k := builtinPack(t, "kubernetes")
		in := createInput(k)
		in.Patches = []protocol.PlanPatch{registryPatch("ana (sre)")}
		in.Intent.Parameters = map[string]string{"cluster_name": "prod-k8s", "cni": "calico", "container_runtime": "containerd", "storage": "longhorn",
			"registry_mirrors": "https://mirror.gcr.io"}
		p, err := Build(in)
		if err != nil {
			t.Fatalf("got: %v want: a plan", err)
		}
		got := compactGolden(t, "compact_create_patched", p, ViewState{}, 150)
		for _, want := range []string{"Changes against the template:", "      patch: ", "retried by a patch: master-1"} {
			if !strings.Contains(got, want) {
				t.Errorf("missing %q in:\n%s", want, got)
			}
		}
	})
	t.Run("add_node_one_worker", func(t *testing.T) {
		k := builtinPack(t, "kubernetes")
		in := addNodeInput(k, testNow.Add(-time.Hour))
		in.State = builtinAddNodeState(testNow.Add(-time.Hour))
		p := builtinCluster(t, in)
		st := ViewState{Satisfied: map[string]bool{"generate-wireguard-key[master-1]": true, "generate-wireguard-key[worker-1]": true, "generate-wireguard-key[worker-2]": true}}
		got := compactGolden(t, "compact_add_node_one_worker", p, st, 150)
		if !strings.Contains(got, "satisfied, apply skips (3): master-1, worker-1, worker-2") {
			t.Errorf("the satisfied instances are not shown:\n%s", got)
		}
		if !strings.Contains(got, "inserted: ") {
			t.Errorf("the inserted join token job is not shown with its reason:\n%s", got)
		}
	})
	t.Run("gate_waiting", func(t *testing.T) {
		got := compactGolden(t, "compact_gate_waiting", tempoGatePlan(t), ViewState{}, 150)
		for _, want := range []string{
			"approve-dedicated-minio (approval): waiting for a decision by an actor with role platform_admin or sre",
			`approvals = [{ gate = "approve-dedicated-minio", option = "create dedicated_minio" }]`,
			"after gate approve-dedicated-minio",
			"- gate approve-dedicated-minio: waiting",
		} {
			if !strings.Contains(got, want) {
				t.Errorf("missing %q in:\n%s", want, got)
			}
		}
	})
	t.Run("gate_refused", func(t *testing.T) {
		st := ViewState{Gates: map[string]GateState{"approve-dedicated-minio": {Actor: "bob", Option: "cancel operation", Refused: "actor bob holds none of the roles platform_admin, sre"}}}
		got := compactGolden(t, "compact_gate_refused", tempoGatePlan(t), st, 150)
		for _, want := range []string{
			`the decision of bob (option "cancel operation") is refused: actor bob holds none of the roles platform_admin, sre`,
			`approvals = [{ gate = "approve-dedicated-minio", option = "cancel operation" }]`,
		} {
			if !strings.Contains(got, want) {
				t.Errorf("missing %q in:\n%s", want, got)
			}
		}
	})
	t.Run("gate_approved", func(t *testing.T) {
		st := ViewState{Gates: map[string]GateState{"approve-dedicated-minio": {Approved: true, Actor: "ana", Option: "create dedicated_minio"}}}
		got := compactGolden(t, "compact_gate_approved", tempoGatePlan(t), st, 150)
		if !strings.Contains(got, `approved by ana with option "create dedicated_minio"`) || !strings.Contains(got, "- gate approve-dedicated-minio: approved") {
			t.Errorf("the approval is not shown:\n%s", got)
		}
		if strings.Contains(got, "approvals = [") {
			t.Errorf("an approved gate still offers the HCL to paste:\n%s", got)
		}
	})
}

// The compact view grows with jobs, not hosts: 1,000 and 5,000 nodes
// render the same number of lines when the hosts form ranges.
func TestCompactSizeIndependentOfNodes(t *testing.T) {
	k := builtinPack(t, "kubernetes")
	lines := map[int]int{}
	for _, n := range []int{10, 1000, 5000} {
		in := createInput(k)
		in.Intent = clusterIntent(3, n-3)
		lines[n] = strings.Count(RenderCompact(builtinCluster(t, in), ViewState{}), "\n")
	}
	if lines[10] != lines[1000] || lines[1000] != lines[5000] {
		t.Fatalf("lines by node count: %v, want the same", lines)
	}
}

// Hosts that do not form a range are listed, compressed where they do.
func TestCompactListsScatteredHosts(t *testing.T) {
	k := builtinPack(t, "kubernetes")
	in := createInput(k)
	in.Intent = clusterIntent(3, 0)
	for _, i := range []int{1, 2, 3, 5, 9, 10, 11, 12} {
		in.Intent.Hosts = append(in.Intent.Hosts, protocol.Host{Name: fmt.Sprintf("worker-%d", i), Address: fmt.Sprintf("10.0.1.%d", i), Role: protocol.RoleWorker})
	}
	got := RenderCompact(builtinCluster(t, in), ViewState{})
	if want := "join-workers (8): worker-1..3, worker-5, worker-9..12"; !strings.Contains(got, want) {
		t.Fatalf("missing %q in:\n%s", want, got)
	}
}

func TestWaitingGates(t *testing.T) {
	p := tempoGatePlan(t)
	w := WaitingGates(p, ViewState{})
	if len(w) != 1 {
		t.Fatalf("waiting gates %+v, want approve-dedicated-minio", w)
	}
	want := WaitingGate{ID: "approve-dedicated-minio", Type: "approval", Roles: []string{"platform_admin", "sre"},
		Approval: `approvals = [{ gate = "approve-dedicated-minio", option = "create dedicated_minio" }]`}
	if got := w[0]; got.ID != want.ID || got.Type != want.Type || !slices.Equal(got.Roles, want.Roles) || got.Approval != want.Approval || got.Refused != "" {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	st := ViewState{Gates: map[string]GateState{"approve-dedicated-minio": {Actor: "bob", Option: "cancel operation", Refused: "no role"}}}
	if got := WaitingGates(p, st); len(got) != 1 || got[0].Refused != "no role" || !strings.Contains(got[0].Approval, `option = "cancel operation"`) {
		t.Fatalf("refused decision: got %+v", got)
	}
	st = ViewState{Gates: map[string]GateState{"approve-dedicated-minio": {Approved: true, Actor: "ana", Option: "create dedicated_minio"}}}
	if got := WaitingGates(p, st); len(got) != 0 {
		t.Fatalf("approved gate still waiting: %+v", got)
	}
	// a decision naming no option of the gate pastes the first option that
	// does not cancel
	st = ViewState{Gates: map[string]GateState{"approve-dedicated-minio": {Actor: "bob", Option: "nope", Refused: "not an option"}}}
	if got := WaitingGates(p, st); len(got) != 1 || !strings.Contains(got[0].Approval, `option = "create dedicated_minio"`) {
		t.Fatalf("unknown option: got %+v", got)
	}
}

func TestViewsAgree(t *testing.T) {
	p := tempoGatePlan(t)
	st := ViewState{Satisfied: map[string]bool{"create-bucket": true}}
	v := Views(p, st)
	if v.Compact != RenderCompact(p, st) || v.Digest != Digest(p) || len(v.Waiting) != 1 || v.Instances["create-bucket"].Status != StatusSatisfied {
		t.Fatalf("Views differ from the single views: %+v", v)
	}
}
