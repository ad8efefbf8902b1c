package provider

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/intentops/terraform-provider-cp/internal/engine"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

func foldEv(instance, host, id string, passed bool, observed string, at time.Time) engine.InstanceEvidence {
	return engine.InstanceEvidence{Instance: instance, EvidenceResult: protocol.EvidenceResult{ID: id, Host: host, Passed: passed, Observed: observed, CheckedAt: at}}
}

func evidenceEntries(l types.List) []map[string]string {
	var out []map[string]string
	for _, v := range l.Elements() {
		at := v.(types.Object).Attributes()
		out = append(out, map[string]string{"instance": at["instance"].(types.String).ValueString(), "host": at["host"].(types.String).ValueString(),
			"id": at["id"].(types.String).ValueString(), "checked_at": at["checked_at"].(types.String).ValueString()})
	}
	return out
}

// The checks of a job's instances that agree are one entry JOB[*] over
// their hosts as ranges, at the latest time; a check that differs, and
// one of an instance without a host, keep their own entry, in the order
// they came.
func TestEvidenceFoldsAgreeingChecksByJob(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	evs := []engine.InstanceEvidence{
		foldEv("validate", "", "inputs", true, "ok", t0),
		foldEv("join[w-1]", "w-1", "node_registered", true, "yes", t0),
		foldEv("join[w-2]", "w-2", "node_registered", true, "yes", t0.Add(2*time.Second)),
		foldEv("join[w-3]", "w-3", "node_registered", false, "no", t0.Add(time.Second)),
		foldEv("join[w-4]", "w-4", "node_registered", true, "yes", t0.Add(time.Second)),
	}
	l := evidenceValue(evs)
	want := []map[string]string{
		{"instance": "validate", "host": "", "id": "inputs", "checked_at": "2026-12-01T12:00:00Z"},
		{"instance": "join[*]", "host": "w-1, w-2, w-4", "id": "node_registered", "checked_at": "2026-12-01T12:00:02Z"},
		{"instance": "join[w-3]", "host": "w-3", "id": "node_registered", "checked_at": "2026-12-01T12:00:01Z"},
	}
	if got := evidenceEntries(l); !reflect.DeepEqual(got, want) {
		t.Errorf("entries:\n got %v\nwant %v", got, want)
	}
	back := evidenceRecords(l)
	wantBack := []engine.InstanceEvidence{evs[0],
		foldEv("join[w-1]", "w-1", "node_registered", true, "yes", t0.Add(2*time.Second)),
		foldEv("join[w-2]", "w-2", "node_registered", true, "yes", t0.Add(2*time.Second)),
		foldEv("join[w-4]", "w-4", "node_registered", true, "yes", t0.Add(2*time.Second)),
		evs[3]}
	if !reflect.DeepEqual(back, wantBack) {
		t.Errorf("records read back:\n got %+v\nwant %+v", back, wantBack)
	}
	// Stored again, the records read back are the same entries.
	if got := evidenceEntries(evidenceValue(back)); !reflect.DeepEqual(got, want) {
		t.Errorf("entries of the records read back:\n got %v\nwant %v", got, want)
	}
}

// A thousand hosts' agreeing checks are one entry.
func TestEvidenceOfManyHostsIsOneEntry(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	var evs []engine.InstanceEvidence
	for i := 1; i <= 1000; i++ {
		h := fmt.Sprintf("worker-%d", i)
		evs = append(evs, foldEv("join["+h+"]", h, "node_registered", true, "yes", t0))
	}
	got := evidenceEntries(evidenceValue(evs))
	if len(got) != 1 || got[0]["host"] != "worker-1..1000" {
		t.Errorf("entries %v, want one over worker-1..1000", got)
	}
	if back := evidenceRecords(evidenceValue(evs)); len(back) != 1000 || back[999].Instance != "join[worker-1000]" {
		t.Errorf("read back %d records, want 1000 ending with join[worker-1000]", len(back))
	}
}
