package operation

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

func keptCreate(id string, st protocol.OperationStatus) Kept {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	op := protocol.Operation{ID: id, PlanID: "p1", Status: st, Actor: "ops",
		Timeline: []protocol.TimelineEntry{{At: at, Status: st, Event: "status", Detail: "job x failed: token s3cr3t-token.abcdef"}}}
	return Kept{Operation: op, Action: "create", IDParts: []string{"kubernetes"}}
}

func TestEncodeFailed_roundTripRedactedCompact(t *testing.T) {
	k := keptCreate("prod.create.0123abcd", protocol.StatusFailed)
	b, err := EncodeFailed(k, func(s string) string { return strings.ReplaceAll(s, "s3cr3t-token.abcdef", "***") })
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte("s3cr3t")) {
		t.Fatalf("the secret is in the record: %s", b)
	}
	if k.Operation.Timeline[0].Detail != "job x failed: token s3cr3t-token.abcdef" {
		t.Fatalf("the record given was modified: %q", k.Operation.Timeline[0].Detail)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, b); err != nil || compact.String() != string(b) {
		t.Fatalf("the record is not compact JSON (%v): %s", err, b)
	}
	got, err := ChooseFailed(b, k.Operation.ID)
	if err != nil || got == nil {
		t.Fatalf("ChooseFailed: %v, %v", got, err)
	}
	if !got.Create || got.Operation.Status != protocol.StatusFailed || got.Action != "create" || len(got.Operation.Timeline) != 1 ||
		got.Operation.Timeline[0].Detail != "job x failed: token ***" {
		t.Fatalf("decoded record: %+v", got)
	}
}

func TestEncodeFailed_refusesTerminal(t *testing.T) {
	for _, st := range []protocol.OperationStatus{protocol.StatusCompleted, protocol.StatusCancelled} {
		if _, err := EncodeFailed(keptCreate("a.create.00000000", st), nil); err == nil {
			t.Errorf("%s: a record was encoded", st)
		}
	}
}

func TestChooseFailed(t *testing.T) {
	const id = "prod.create.0123abcd"
	enc := func(k Kept) []byte {
		k.Create = true
		b, err := k.Encode()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	notCreate, _ := keptCreate(id, protocol.StatusFailed).Encode()
	cases := []struct {
		name string
		rec  []byte
		want bool
		err  bool
	}{
		{"no record", nil, false, false},
		{"other operation id", enc(keptCreate("prod.create.ffff0000", protocol.StatusFailed)), false, false},
		{"same operation id", enc(keptCreate(id, protocol.StatusFailed)), true, false},
		{"same id, waiting for approval", enc(keptCreate(id, protocol.StatusWaitingForApproval)), true, false},
		{"same id, completed", enc(keptCreate(id, protocol.StatusCompleted)), false, false},
		{"same id, not a create", notCreate, false, false},
		{"garbage", []byte("{not json"), false, true},
		{"not an operation", []byte(`{"operation":{"id":"x","status":"Nope"}}`), false, true},
	}
	for _, c := range cases {
		got, err := ChooseFailed(c.rec, id)
		if (err != nil) != c.err {
			t.Errorf("%s: error %v, want error %v", c.name, err, c.err)
		}
		if (got != nil) != c.want {
			t.Errorf("%s: chosen %v, want %v", c.name, got != nil, c.want)
		}
		if got != nil && got.Operation.ID != id {
			t.Errorf("%s: chose operation %s", c.name, got.Operation.ID)
		}
	}
}

func TestFailedPath(t *testing.T) {
	a, b := FailedPath("prod.create.0123abcd"), FailedPath("prod.create.ffff0000")
	if a != b {
		t.Errorf("another operation of the same intent and action has another record: %s, %s", a, b)
	}
	if c := FailedPath("staging.create.0123abcd"); c == a {
		t.Errorf("another intent shares the record %s", c)
	}
	if !strings.HasPrefix(a, FailedDir+"/create.") || !strings.HasSuffix(a, ".json") || strings.ContainsAny(strings.TrimPrefix(a, FailedDir+"/"), "/ '") {
		t.Errorf("record path %q", a)
	}
}

func TestFailedHost(t *testing.T) {
	h := func(name string, role string) HostAccess {
		return HostAccess{Host: protocol.Host{Name: name, Role: role}}
	}
	if _, ok := FailedHost(nil); ok {
		t.Error("a host was chosen from none")
	}
	got, _ := FailedHost([]HostAccess{h("worker-1", protocol.RoleWorker), h("master-2", protocol.RoleMaster), h("master-1", protocol.RoleMaster)})
	if got.Host.Name != "master-1" {
		t.Errorf("got %s, want master-1 (the first master by name)", got.Host.Name)
	}
	got, _ = FailedHost([]HostAccess{h("b", protocol.RoleWorker), h("a", protocol.RoleWorker)})
	if got.Host.Name != "a" {
		t.Errorf("got %s, want a (the first host by name when none is a master)", got.Host.Name)
	}
}
