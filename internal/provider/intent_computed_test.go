package provider

import (
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/intentops/terraform-provider-cp/internal/engine"
	"github.com/intentops/terraform-provider-cp/internal/intent"
	"github.com/intentops/terraform-provider-cp/internal/planner"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// predictOp is an operation of one stage: snapshot on the first master
// (no host of its own) producing an internal etcd.snapshot, and rotate on
// worker-1 producing a secret with a ttl and a public report, as the
// engine would record them.
func predictOp(t *testing.T) intentOp {
	t.Helper()
	snapshot := &protocol.Job{ID: "snapshot", Outputs: protocol.Outputs{Artifacts: []protocol.ArtifactSpec{
		{ID: "etcd.snapshot", Sensitivity: protocol.SensitivityInternal}}}}
	rotate := &protocol.Job{ID: "rotate", Outputs: protocol.Outputs{Artifacts: []protocol.ArtifactSpec{
		{ID: "token", Sensitivity: protocol.SensitivitySecret, TTL: protocol.Duration(time.Hour)},
		{ID: "report", Sensitivity: protocol.SensitivityPublic}}}}
	p := &protocol.Plan{ID: "p", Template: "kubernetes.rotate@1.0.0",
		Stages: []protocol.PlanStage{{ID: "s1"}, {ID: "s2"}},
		Intent: protocol.Intent{Hosts: []protocol.Host{{Name: "worker-1", Role: protocol.RoleWorker}, {Name: "master-1", Role: protocol.RoleMaster}}},
		Instances: []*protocol.JobInstance{
			{ID: "gate-x", Gate: &protocol.Gate{ID: "x"}},
			{ID: "snapshot", JobID: "snapshot", Stage: "s1", Job: snapshot},
			{ID: "rotate[worker-1]", JobID: "rotate", Stage: "s2", Host: "worker-1", Job: rotate},
		}}
	return intentOp{Action: "rotate", ID: "small.rotate.12345678", Composed: &planner.Composed{Plan: p}}
}

// ranArtifacts are the artifacts a run of predictOp records.
func ranArtifacts() []protocol.Artifact {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	return []protocol.Artifact{
		{ID: "etcd.snapshot", Sensitivity: protocol.SensitivityInternal, Producer: "snapshot", Host: "master-1", Value: "snap-2", Fingerprint: "sha256:e2"},
		{ID: "report", Sensitivity: protocol.SensitivityPublic, Producer: "rotate[worker-1]", Host: "worker-1", Value: "line 1\nline 2", Fingerprint: "sha256:r2"},
		{ID: "token", Sensitivity: protocol.SensitivitySecret, Producer: "rotate[worker-1]", Host: "worker-1", Ref: "worker-1:/var/lib/cp/artifacts/k/token",
			Fingerprint: "sha256:t2", ExpiresAt: at},
	}
}

// priorArtifacts are a state's: one of predictOp's outputs from an earlier
// run (report on worker-1) among artifacts it does not produce.
func priorArtifacts() []protocol.Artifact {
	return []protocol.Artifact{
		{ID: "ca", Sensitivity: protocol.SensitivityPublic, Producer: "init[master-1]", Host: "master-1", Value: "ca", Fingerprint: "sha256:c"},
		{ID: "report", Sensitivity: protocol.SensitivityPublic, Producer: "rotate[worker-1]", Host: "worker-1", Value: "old", Fingerprint: "sha256:r1"},
		{ID: "zz", Sensitivity: protocol.SensitivityPublic, Producer: "init[worker-1]", Host: "worker-1", Value: "z", Fingerprint: "sha256:z"},
	}
}

// conforms reports where planned, a value with unknowns, differs from
// applied: every known part of the plan must be what apply records
// (Terraform's check after apply).
func conforms(t *testing.T, where string, planned, applied attr.Value) {
	t.Helper()
	if planned.IsUnknown() {
		return
	}
	switch p := planned.(type) {
	case types.List:
		a := applied.(types.List)
		if len(p.Elements()) != len(a.Elements()) {
			t.Fatalf("%s: planned %d elements, apply records %d:\nplanned %v\napplied %v", where, len(p.Elements()), len(a.Elements()), p, a)
		}
		for i := range p.Elements() {
			conforms(t, where+"["+string(rune('0'+i))+"]", p.Elements()[i], a.Elements()[i])
		}
	case types.Object:
		a := applied.(types.Object)
		for k, v := range p.Attributes() {
			conforms(t, where+"."+k, v, a.Attributes()[k])
		}
	default:
		if !planned.Equal(applied) {
			t.Errorf("%s: planned %v, apply records %v", where, planned, applied)
		}
	}
}

type computedVals struct{ IntentComputed }

func newComputed(pause string) (*computedVals, computed) {
	m := &computedVals{}
	m.PauseAfterStage = types.StringNull()
	if pause != "" {
		m.PauseAfterStage = types.StringValue(pause)
	}
	m.Plan, m.PlanSummary = types.StringValue(""), types.StringValue("") // views set: record renders none
	return m, m.computed()
}

// What the plan keeps known of artifacts and operation is what record
// leaves after the run completes, for a resource that keeps its prior
// artifacts (the cluster) and one that does not.
func TestPredictedComputedMatchesRecord(t *testing.T) {
	op := predictOp(t)
	res := &engine.Result{Artifacts: ranArtifacts(), Operation: protocol.Operation{ID: op.ID, Status: protocol.StatusCompleted}}
	for _, keep := range []bool{true, false} {
		_, plan := newComputed("")
		_, prior := newComputed("")
		*prior.Artifacts = artifactsList(priorArtifacts())
		plan.planned([]intentOp{op})
		plan.predict(prior, []intentOp{op}, keep)
		var kept []protocol.Artifact
		if keep {
			kept = artifactsFromList(*prior.Artifacts)
		}
		_, applied := newComputed("")
		applied.record([]opResult{{Op: op, Result: res}}, kept,
			func(opResult, []protocol.Artifact) []protocol.Capability { return nil },
			func([]protocol.Artifact, []protocol.Capability) intent.Handle { return intent.Handle{} })
		if plan.Artifacts.IsUnknown() || plan.Operation.IsUnknown() {
			t.Fatalf("keep=%v: nothing predicted: artifacts %v operation %v", keep, *plan.Artifacts, *plan.Operation)
		}
		conforms(t, "artifacts", *plan.Artifacts, *applied.Artifacts)
		conforms(t, "operation", *plan.Operation, *applied.Operation)
	}
}

// The cluster's plan keeps its prior artifacts known and in place, the
// one its job produces again unknown where it is, and its new ones after
// them sorted, known in what their declaration decides.
func TestPlannedArtifacts(t *testing.T) {
	l := plannedArtifacts(priorArtifacts(), []intentOp{predictOp(t)})
	var got []string
	for _, e := range l.Elements() {
		at := e.(types.Object).Attributes()
		var parts []string
		for _, k := range []string{"id", "host", "producer", "sensitivity", "value", "ref", "fingerprint", "expires_at"} {
			v := at[k].(types.String)
			s := v.ValueString()
			if v.IsUnknown() {
				s = "?"
			}
			parts = append(parts, k+"="+s)
		}
		got = append(got, strings.Join(parts, " "))
	}
	want := []string{
		"id=ca host=master-1 producer=init[master-1] sensitivity=public value=ca ref= fingerprint=sha256:c expires_at=",
		"id=report host=worker-1 producer=rotate[worker-1] sensitivity=public value=? ref= fingerprint=? expires_at=",
		"id=zz host=worker-1 producer=init[worker-1] sensitivity=public value=z ref= fingerprint=sha256:z expires_at=",
		"id=etcd.snapshot host=master-1 producer=snapshot sensitivity=internal value=? ref= fingerprint=? expires_at=",
		"id=token host=worker-1 producer=rotate[worker-1] sensitivity=secret value= ref=? fingerprint=? expires_at=?",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// The planned operation knows its id, action, template, status and
// number of phases; what the run counts and when it ran are unknown.
func TestPlannedOperation(t *testing.T) {
	o := plannedOperation(predictOp(t))
	at := o.Attributes()
	for k, want := range map[string]string{"id": "small.rotate.12345678", "action": "rotate", "template": "kubernetes.rotate@1.0.0", "status": "Completed"} {
		if got := at[k].(types.String); got.IsUnknown() || got.ValueString() != want {
			t.Errorf("%s: got %v want %q", k, got, want)
		}
	}
	if got := at["phases_total"].(types.Int64); got.IsUnknown() || got.ValueInt64() != 2 {
		t.Errorf("phases_total: got %v want 2", got)
	}
	for _, k := range []string{"phases_done", "jobs_run", "jobs_satisfied", "started_at", "finished_at", "timeline"} {
		if !at[k].IsUnknown() {
			t.Errorf("%s is known at plan: %v", k, at[k])
		}
	}
}

// With pause_after_stage apply may stop part way with the operation
// Paused and the state saved: nothing is predicted.
func TestPredictNothingWhenPaused(t *testing.T) {
	_, plan := newComputed("s1")
	_, prior := newComputed("")
	*prior.Artifacts = artifactsList(priorArtifacts())
	plan.planned([]intentOp{predictOp(t)})
	plan.predict(prior, []intentOp{predictOp(t)}, true)
	if !plan.Artifacts.IsUnknown() || !plan.Operation.IsUnknown() || !plan.Caps.IsUnknown() {
		t.Errorf("predicted with pause_after_stage: artifacts %v operation %v capabilities %v", *plan.Artifacts, *plan.Operation, *plan.Caps)
	}
}

// An operation's artifacts replace those of the same id and host where
// they are; new ones follow, sorted by id then host.
func TestMergeInPlace(t *testing.T) {
	prev := []protocol.Artifact{{ID: "b", Host: "h1", Value: "1"}, {ID: "a", Host: "h2", Value: "1"}, {ID: "b", Host: "h1", Value: "2"}}
	next := []protocol.Artifact{{ID: "c", Host: "h1", Value: "n"}, {ID: "a", Host: "h2", Value: "n"}, {ID: "a", Host: "h1", Value: "n"}}
	var got []string
	for _, a := range mergeInPlace(prev, next) {
		got = append(got, a.ID+"@"+a.Host+"="+a.Value)
	}
	if want := "b@h1=2 a@h2=n a@h1=n c@h1=n"; strings.Join(got, " ") != want {
		t.Errorf("got: %s want: %s", strings.Join(got, " "), want)
	}
}

// Artifacts keep their host in state; a state written before reads a
// secret's host from its reference.
func TestArtifactsKeepTheirHost(t *testing.T) {
	arts := []protocol.Artifact{{ID: "node_facts", Host: "worker-2", Sensitivity: protocol.SensitivityPublic, Value: "v"},
		{ID: "kubeconfig.admin", Host: "master-1", Sensitivity: protocol.SensitivitySecret, Ref: "master-1:/etc/kubernetes/admin.conf"}}
	back := artifactsFromList(artifactsList(arts))
	if back[0].Host != "worker-2" || back[1].Host != "master-1" {
		t.Errorf("hosts not kept: %+v", back)
	}
	old := artifactObject(arts[1]).(types.Object).Attributes()
	old["host"] = types.StringNull()
	l := types.ListValueMust(artifactType, []attr.Value{types.ObjectValueMust(artifactType.AttrTypes, old)})
	if got := artifactsFromList(l)[0].Host; got != "master-1" {
		t.Errorf("an artifact without host: got host %q want master-1 (from its reference)", got)
	}
}

// A cluster's planned capabilities are its handle's exports, unless a
// planned job reports attributes of one of them.
func TestPlannedClusterCaps(t *testing.T) {
	h := intent.Handle{Kind: intent.ClusterKind, Name: "small", Capabilities: []protocol.Capability{
		{Key: "kubernetes.api", Attributes: map[string]string{"endpoint": "https://10.0.0.1:6443"}}}}
	op := predictOp(t)
	got := plannedClusterCaps(types.StringValue(h.Encode()), []intentOp{op})
	if got.IsUnknown() || len(got.Elements()) != 1 || !strings.Contains(got.String(), "https://10.0.0.1:6443") {
		t.Errorf("got %v want the handle's kubernetes.api", got)
	}
	op.Composed.Plan.Instances[1].Job.Outputs.Provides.Capabilities = []protocol.Capability{{Key: "kubernetes.api", Attributes: map[string]string{"endpoint": "{x}"}}}
	if got := plannedClusterCaps(types.StringValue(h.Encode()), []intentOp{op}); !got.IsUnknown() {
		t.Errorf("a job reports attributes of kubernetes.api: got %v want unknown", got)
	}
	if got := plannedClusterCaps(types.StringUnknown(), nil); !got.IsUnknown() {
		t.Errorf("unknown handle: got %v want unknown", got)
	}
	h.Capabilities = nil
	if got := plannedClusterCaps(types.StringValue(h.Encode()), nil); !got.IsUnknown() {
		t.Errorf("a handle without exports (no masters): got %v want unknown", got)
	}
}
