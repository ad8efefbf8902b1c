package planner

import (
	"strings"
	"testing"
)

// A repair in the compact view: the drifted instance says repair with its
// reason (truncated), the instances that follow it will run, the others
// read satisfied; planned_instances carries the same three statuses.
func TestCompactRepair(t *testing.T) {
	k := builtinPack(t, "kubernetes")
	in := createInput(k)
	in.Intent = clusterIntent(1, 3)
	p := builtinCluster(t, in)
	drifted, follower := "", ""
	for _, ji := range p.Instances {
		if ji.Host == "worker-2" && ji.Job != nil && len(ji.Job.Outputs.Evidence) > 0 && drifted == "" {
			drifted = ji.ID
		}
	}
	for _, ji := range p.Instances {
		for _, n := range ji.Needs {
			if n == drifted && follower == "" && !ji.IsGate() {
				follower = ji.ID
			}
		}
	}
	if drifted == "" || follower == "" {
		t.Fatalf("no drifted instance with a follower on worker-2 in the plan")
	}
	st := ViewState{Satisfied: map[string]bool{}, Repair: map[string]string{
		drifted: "evidence containerd_service_active failed: observed inactive, expected active" + strings.Repeat(" and more", 30),
	}}
	for _, ji := range p.Instances {
		if ji.ID != drifted && ji.ID != follower && !ji.IsGate() {
			st.Satisfied[ji.ID] = true
		}
	}
	got := compactGolden(t, "compact_repair", p, st, 150)
	if !strings.Contains(got, "repair (1): worker-2: evidence containerd_service_active failed: observed inactive, expected active and more") || !strings.Contains(got, "...") {
		t.Errorf("compact view does not show the repair, truncated:\n%s", got)
	}
	if !strings.Contains(got, "(1 repair, 1 will run, ") {
		t.Errorf("header does not count the repair and the follower:\n%s", got)
	}
	views := Instances(p, st)
	for id, want := range map[string]string{drifted: StatusRepair, follower: StatusWillRun} {
		if views[id].Status != want {
			t.Errorf("planned instance %s: status %q, want %q", id, views[id].Status, want)
		}
	}
	for id := range st.Satisfied {
		if views[id].Status != StatusSatisfied {
			t.Errorf("planned instance %s: status %q, want satisfied", id, views[id].Status)
			break
		}
	}
}

func TestTruncateText(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"a  b\n c", 10, "a b c"},
		{"abcdefghij", 4, "abcd..."},
		{"ééé", 3, "é..."},
	} {
		if got := truncateText(c.in, c.n); got != c.want {
			t.Errorf("truncateText(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}

// The simple view reads pending without statuses, the counts of each
// stage with them, and done once the operation completed.
func TestRenderSimpleState(t *testing.T) {
	k := builtinPack(t, "kubernetes")
	in := createInput(k)
	in.Intent = clusterIntent(1, 3)
	p := builtinCluster(t, in)
	if got := RenderSimpleState(p, ViewState{}); got != RenderSimple(p) || !strings.Contains(got, "Validate nodes: 10 jobs, pending\n") {
		t.Errorf("without statuses:\n%s", got)
	}
	st := ViewState{Satisfied: map[string]bool{}, Repair: map[string]string{"validate-nodes[worker-2]": "evidence x failed"}}
	for _, ji := range p.Instances {
		if ji.Stage == "validate-nodes" && ji.Host != "worker-2" && ji.Host != "" {
			st.Satisfied[ji.ID] = true
		}
	}
	got := RenderSimpleState(p, st)
	if !strings.Contains(got, "Validate nodes: 10 jobs, 3 will run, 6 satisfied, 1 repair\n") || !strings.Contains(got, "Install CNI: 1 job, 1 will run, 0 satisfied\n") {
		t.Errorf("with statuses:\n%s", got)
	}
	done := RenderSimpleState(p, ViewState{Completed: true})
	if strings.Contains(done, "pending") || !strings.Contains(done, "Validate nodes: 10 jobs, done\n") {
		t.Errorf("completed:\n%s", done)
	}
}
