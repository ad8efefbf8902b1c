package provider

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/intentops/terraform-provider-cp/internal/engine"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

func refreshEv(instance, id string, passed bool, observed string) engine.InstanceEvidence {
	e := engine.InstanceEvidence{Instance: instance}
	e.ID, e.Host, e.Passed, e.Observed = id, "node-1", passed, observed
	e.CheckedAt = time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	return e
}

// opObject is an operation attribute with the given status.
func opObject(status string) types.Object {
	vals := map[string]attr.Value{}
	for k, t := range operationType.AttrTypes {
		switch t {
		case types.Int64Type:
			vals[k] = types.Int64Value(0)
		case types.StringType:
			vals[k] = types.StringValue("")
		default:
			vals[k] = types.ListValueMust(types.StringType, nil)
		}
	}
	vals["status"], vals["action"] = types.StringValue(status), types.StringValue("install")
	return types.ObjectValueMust(operationType.AttrTypes, vals)
}

// priorScenario is a cp_scenario state whose operation has status and
// whose recorded evidence is evs.
func priorScenario(status string, evs ...engine.InstanceEvidence) *scenarioModel {
	m := &scenarioModel{Pack: types.StringValue("drift-probe"), Action: types.StringValue("install")}
	m.Operation = opObject(status)
	setRecordedEvidence(m.computed(), evs)
	return m
}

// The recorded evidence reads back as it was stored.
func TestRecordedEvidenceRoundTrip(t *testing.T) {
	evs := []engine.InstanceEvidence{refreshEv("a[node-1]", "up", true, "up"), refreshEv("a[node-1]", "pid", false, "exit code 1")}
	m := priorScenario("Completed", evs...)
	if got := recordedEvidence(m.computed()); !reflect.DeepEqual(got, evs) {
		t.Errorf("got %+v, want %+v", got, evs)
	}
}

// A check that still passes keeps its record (not even the time or the
// output change); a failing one replaces it, recording why it failed
// (what it observed and expected).
func TestMergeEvidence(t *testing.T) {
	rec := []engine.InstanceEvidence{refreshEv("a[node-1]", "up", true, "up"), refreshEv("a[node-2]", "up", true, "up"), refreshEv("b", "ok", true, "exit code 0")}
	later := time.Date(2026, 12, 1, 11, 0, 0, 0, time.UTC)
	same := rec[0]
	same.CheckedAt, same.Observed = later, "up (with another output)"
	gone := refreshEv("a[node-2]", "up", false, "")
	gone.Detail, gone.CheckedAt = `observed "", expected up; stderr: cat: flag: No such file or directory`, later
	stopped := refreshEv("b", "ok", false, "exit code 3")
	stopped.Detail = "exit code 3, expected 0"
	merged, drifted := mergeEvidence(rec, []engine.InstanceEvidence{same, gone, stopped})
	if merged[0] != rec[0] {
		t.Errorf("a check that still passes changed its record: %+v", merged[0])
	}
	if merged[1].Passed || merged[1].Observed != gone.Detail || !merged[1].CheckedAt.Equal(later) {
		t.Errorf("the failing result is not recorded with why: %+v", merged[1])
	}
	if merged[2].Passed || merged[2].Observed != "exit code 3, expected 0" {
		t.Errorf("a failing check is not recorded with what was expected: %+v", merged[2])
	}
	if len(drifted) != 2 || drifted[0].Instance != "a[node-2]" || drifted[1].Instance != "b" {
		t.Errorf("drifted: %+v", drifted)
	}
	if got := driftText(drifted[1]); got != "evidence ok failed: observed exit code 3, expected 0" {
		t.Errorf("drift text %q", got)
	}
	if got := driftText(drifted[0]); got != "evidence up failed: "+gone.Detail {
		t.Errorf("drift text %q", got)
	}
	if got := driftText(refreshEv("x", "active", false, "inactive")); got != "evidence active failed: observed inactive" {
		t.Errorf("drift text %q", got)
	}
}

// driftPlan: start[h] -> confirm[h] on two hosts, then a gate and a
// report that need every confirm; lone has no needs.
func driftPlan() *protocol.Plan {
	ev := &protocol.Job{ID: "start", Outputs: protocol.Outputs{Evidence: []protocol.Evidence{{ID: "up", Command: "true"}}}}
	noEv := &protocol.Job{ID: "lone"}
	in := func(id, host string, job *protocol.Job, needs ...string) *protocol.JobInstance {
		return &protocol.JobInstance{ID: id, Host: host, Job: job, IdempotencyKey: id + ":k", Needs: needs}
	}
	gate := &protocol.JobInstance{ID: "approve", Gate: &protocol.Gate{ID: "approve"}, Needs: []string{"confirm[node-1]", "confirm[node-2]"}}
	return &protocol.Plan{Instances: []*protocol.JobInstance{
		in("start[node-1]", "node-1", ev), in("start[node-2]", "node-2", ev),
		in("confirm[node-1]", "node-1", ev, "start[node-1]"), in("confirm[node-2]", "node-2", ev, "start[node-2]"),
		gate, in("report", "", ev, "approve"), in("lone", "", noEv), in("new", "", ev),
	}}
}

func keysOf(p *protocol.Plan) map[string]string {
	out := map[string]string{}
	for _, in := range p.Instances {
		out[in.ID] = in.IdempotencyKey
	}
	return out
}

// Followers are the dependents on the repaired instance's host, through
// others on that host; a dependent for another host, or behind a gate,
// does not follow.
func TestFollowers(t *testing.T) {
	p := driftPlan()
	p.Instances = append(p.Instances,
		&protocol.JobInstance{ID: "tune[node-2]", Host: "node-2", Job: &protocol.Job{ID: "tune"}, Needs: []string{"confirm[node-2]"}},
		&protocol.JobInstance{ID: "peer[node-1]", Host: "node-1", Job: &protocol.Job{ID: "peer"}, Needs: []string{"start[node-2]"}})
	got := followers(p, map[string]string{"start[node-2]": "x"})
	want := map[string]string{"confirm[node-2]": "follows the repair of start[node-2]", "tune[node-2]": "follows the repair of start[node-2]"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// Each branch of evidenceStates: with refresh_evidence off, or an
// operation not completed, nothing is said; a failing record is a repair
// with its followers; satisfied needs the same key and, for a job with
// evidence, a record.
func TestEvidenceStates(t *testing.T) {
	p := driftPlan()
	recs := []engine.InstanceEvidence{
		refreshEv("start[node-1]", "up", true, "up"), refreshEv("start[node-2]", "up", false, "down"),
		refreshEv("confirm[node-1]", "up", true, "up"), refreshEv("confirm[node-2]", "up", true, "up"), refreshEv("report", "up", true, "up"),
	}
	on, off := &providerData{RefreshEvidence: true}, &providerData{}
	done := priorScenario("Completed", recs...).computed()
	if r, s := evidenceStates(off, &done, keysOf(p), p); r != nil || s != nil {
		t.Errorf("refresh_evidence off: %v %v", r, s)
	}
	failed := priorScenario("Failed", recs...).computed()
	if r, s := evidenceStates(on, &failed, keysOf(p), p); r != nil || s != nil {
		t.Errorf("operation not completed: %v %v", r, s)
	}
	repair, satisfied := evidenceStates(on, &done, keysOf(p), p)
	if want := []string{"confirm[node-2]", "start[node-2]"}; !reflect.DeepEqual(protocol.SortedKeys(repair), want) {
		t.Errorf("repair %v, want %v", repair, want)
	}
	if !strings.Contains(repair["start[node-2]"], "evidence up failed: observed down") {
		t.Errorf("repair reason %q", repair["start[node-2]"])
	}
	// lone has no evidence to record; new has evidence but no record;
	// report, for no host, is judged by its own evidence.
	if want := []string{"confirm[node-1]", "lone", "report", "start[node-1]"}; !reflect.DeepEqual(protocol.SortedKeys(satisfied), want) {
		t.Errorf("satisfied %v, want %v", satisfied, want)
	}
	keys := keysOf(p)
	keys["start[node-1]"] = "another key"
	if _, s := evidenceStates(on, &done, keys, p); s["start[node-1]"] {
		t.Error("an instance whose key changed is satisfied")
	}
	allGood := priorScenario("Completed", refreshEv("start[node-1]", "up", true, "up")).computed()
	if r, _ := evidenceStates(on, &allGood, keysOf(p), p); r != nil {
		t.Errorf("repair without a failing record: %v", r)
	}
}

// withRepair: the configuration's changes win; with none, a prior state
// whose evidence failed plans the resource's own action again, unless
// refresh_evidence is off or its operation did not complete.
func TestWithRepair(t *testing.T) {
	h := scenarioHooks{}
	plan := &scenarioModel{Pack: types.StringValue("drift-probe"), Action: types.StringValue("install")}
	drifted := priorScenario("Completed", refreshEv("start[node-1]", "up", false, "down"))
	holds := priorScenario("Completed", refreshEv("start[node-1]", "up", true, "up"))
	on := &intentBase{data: &providerData{RefreshEvidence: true}}
	off := &intentBase{data: &providerData{}}
	if got := withRepair(on, h, plan, drifted, nil); len(got) != 1 || got[0].Action != "install" {
		t.Errorf("drifted: %+v, want the install again", got)
	}
	own := singleAction("upgrade", true, false, false, "drift-probe")
	if got := withRepair(on, h, plan, drifted, own); !reflect.DeepEqual(got, own) {
		t.Errorf("the configuration's change replaced: %+v", got)
	}
	for name, c := range map[string]struct {
		b     *intentBase
		prior *scenarioModel
	}{
		"holds": {on, holds}, "refresh off": {off, drifted}, "no prior": {on, nil},
		"not completed": {on, priorScenario("Failed", refreshEv("start[node-1]", "up", false, "down"))},
	} {
		if got := withRepair(c.b, h, plan, c.prior, nil); got != nil {
			t.Errorf("%s: %+v, want no change", name, got)
		}
	}
}

// refresh_evidence defaults to on; false turns it off.
func TestRefreshEvidenceSetting(t *testing.T) {
	for _, c := range []struct {
		v    types.Bool
		want bool
	}{{types.BoolNull(), true}, {types.BoolValue(true), true}, {types.BoolValue(false), false}} {
		d, diags := providerModel{RefreshEvidence: c.v}.settings("test")
		if diags.HasError() {
			t.Fatalf("settings: %v", diags)
		}
		if d.RefreshEvidence != c.want {
			t.Errorf("refresh_evidence %v: RefreshEvidence %v, want %v", c.v, d.RefreshEvidence, c.want)
		}
	}
}
