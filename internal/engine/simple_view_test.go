package engine

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestSimpleViewAndJournal(t *testing.T) {
	n := clusterNet("w1", "w2")
	n.host("w2").set("break:join", "kubelet did not start")
	var view, journal strings.Builder
	sv := NewSimpleView(&view)
	e, _ := newTestEngine(n, func(c *Config) { c.Parallelism = 1; c.Sinks = append(c.Sinks, sv, NewJournal(&journal)) })
	mustRun(t, e, clusterPlan("w1", "w2"), RunInput{})
	want := "Create Test Cluster\nStatus: Failed\nCurrent phase: Join workers\nProgress: 3 of 5 phases\nNeeds attention: yes: join[w2] failed"
	if got := sv.Render(); got != want {
		t.Errorf("final view got:\n%s\nwant:\n%s", got, want)
	}
	if !strings.Contains(view.String(), "Status: Running\nCurrent phase: Install container runtime\nProgress: 1 of 5 phases\nNeeds attention: no") {
		t.Errorf("view never showed the runtime phase running:\n%s", view.String())
	}
	var seq int64
	for _, line := range strings.Split(strings.TrimSpace(journal.String()), "\n") {
		var ev Event
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("journal line %q: %v", line, err)
		}
		if ev.Seq != seq+1 {
			t.Fatalf("journal seq got: %d want: %d", ev.Seq, seq+1)
		}
		seq = ev.Seq
	}
}
