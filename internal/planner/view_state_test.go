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
