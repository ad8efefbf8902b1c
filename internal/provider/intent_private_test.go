package provider

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/intentops/terraform-provider-cp/internal/engine"
	"github.com/intentops/terraform-provider-cp/internal/intent"
	"github.com/intentops/terraform-provider-cp/internal/operation"
	"github.com/intentops/terraform-provider-cp/internal/planner"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// memPrivate is private state in memory.
type memPrivate map[string][]byte

func (m memPrivate) GetKey(_ context.Context, k string) ([]byte, diag.Diagnostics) { return m[k], nil }
func (m memPrivate) SetKey(_ context.Context, k string, v []byte) diag.Diagnostics {
	m[k] = v
	return nil
}

var privNow = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

func pausedKept(after string) keptPrivate {
	return keptPrivate{Op: &operation.Kept{Operation: protocol.Operation{ID: "k.create.1", Status: protocol.StatusPaused}, Action: "create", IDParts: []string{"m1"}, PausedAfter: after, Resumable: true, Create: true}}
}

func pausedDay2() keptPrivate {
	return keptPrivate{Op: &operation.Kept{Operation: protocol.Operation{ID: "k.upgrade.1", Status: protocol.StatusPaused}, Action: "upgrade", IDParts: []string{"1.35"}, Resumable: true}}
}

func withBuild(k keptPrivate, version string) keptPrivate {
	k.Op.Operation.ID = "k.create.1"
	k.Build = &buildRecord{Pack: "kubernetes", Version: version}
	return k
}

func keptWith(status protocol.OperationStatus, resumable bool) keptPrivate {
	return keptPrivate{Op: &operation.Kept{Operation: protocol.Operation{Status: status}, Action: "create", IDParts: []string{"m1"}, Resumable: resumable, Create: true}}
}

func TestResumeChanges(t *testing.T) {
	add := []intent.Change{{Action: "add_node", IDParts: []string{"w2"}}}
	for _, tc := range []struct {
		name string
		kept keptPrivate
		in   []intent.Change
		want string
	}{
		{name: "nothing kept", in: nil, want: ""},
		{name: "paused create, no change of its own", kept: pausedKept("a"), want: "create[m1]"},
		{name: "paused create plans the whole intent", kept: pausedKept("a"), in: add, want: "create[m1]"},
		{name: "paused day-2 before another change", kept: pausedDay2(), in: add, want: "upgrade[1.35] add_node[w2]"},
		{name: "paused day-2 already planned", kept: pausedDay2(), in: []intent.Change{{Action: "upgrade"}}, want: "upgrade[]"},
		{name: "failed after a pause", kept: keptWith(protocol.StatusFailed, true), want: "create[m1]"},
		{name: "waiting for a patch review", kept: keptWith(protocol.StatusPlanPatchReview, true), want: "create[m1]"},
		{name: "not resumable", kept: keptWith(protocol.StatusPaused, false), want: ""},
		{name: "completed", kept: keptWith(protocol.StatusCompleted, true), want: ""},
		{name: "cancelled", kept: keptWith(protocol.StatusCancelled, true), want: ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, c := range resumeChanges(tc.kept, tc.in) {
				got = append(got, c.Action+"["+strings.Join(c.IDParts, ",")+"]")
			}
			if strings.Join(got, " ") != tc.want {
				t.Fatalf("got: %q want: %q", strings.Join(got, " "), tc.want)
			}
		})
	}
}

func stagedOp(id string, stages ...string) intentOp {
	p := &protocol.Plan{ID: id, Template: "kubernetes.create@1.0.0", Intent: protocol.Intent{TargetResource: "k"}}
	for _, s := range stages {
		p.Stages = append(p.Stages, protocol.PlanStage{ID: s})
	}
	return intentOp{ID: id, Action: "create", Composed: &planner.Composed{Plan: p, Pack: &protocol.ScenarioPack{ID: "kubernetes", Version: "1.0.0"}}, Req: planner.Request{Now: privNow}}
}

func TestCheckPauseStage(t *testing.T) {
	ops := []intentOp{stagedOp("k.create.1", "validate", "install-runtime", "init")}
	for _, tc := range []struct {
		stage string
		err   bool
	}{{"", false}, {"install-runtime", false}, {"init", false}, {"instal-runtime", true}} {
		var d diag.Diagnostics
		checkPauseStage(ops, nil, tc.stage, &d)
		if d.HasError() != tc.err {
			t.Fatalf("%q: got: %v want error: %v", tc.stage, d, tc.err)
		}
		if tc.err {
			e := d.Errors()[0]
			if !strings.Contains(e.Detail(), "install-runtime") || !strings.Contains(e.Detail(), `"instal-runtime"`) {
				t.Errorf("detail does not name the stage and the choices: %s", e.Detail())
			}
			if p, ok := e.(diag.DiagnosticWithPath); !ok || p.Path().String() != "pause_after_stage" {
				t.Errorf("error is not on pause_after_stage: %v", e)
			}
		}
	}
	var d diag.Diagnostics
	checkPauseStage(ops, []intent.Change{{Action: "create", Hosts: []operation.HostAccess{{}}}}, "init", &d)
	if !d.HasError() || !strings.Contains(d.Errors()[0].Detail(), "could not be resumed") {
		t.Errorf("a change computed from the prior hosts got: %v want: refused", d)
	}
	if got := stopAfter(ops[0], "init"); got != "init" {
		t.Errorf("stopAfter got: %q want: init", got)
	}
	if got := stopAfter(stagedOp("k.upgrade.1", "drain"), "init"); got != "" {
		t.Errorf("stopAfter of a plan without the stage got: %q want: none", got)
	}
}

// pause_after_stage reaches the run inputs and is refused at plan when
// no operation has it.
func TestPrepareRun(t *testing.T) {
	v := types.StringValue("install-runtime")
	var ip intentPlan
	var d diag.Diagnostics
	prepareRun(&ip, computed{Pause: &v}, []intent.Change{{Action: "create", IDParts: []string{"m1"}}}, []intentOp{stagedOp("k.create.1", "install-runtime")}, pausedKept("x"), privNow, &d)
	if d.HasError() || ip.inputs.PauseAfterStage != "install-runtime" || ip.inputs.Prev == nil || len(ip.inputs.Changes) != 1 {
		t.Fatalf("got: %+v %v", ip.inputs, d)
	}
}

func TestShowResume(t *testing.T) {
	ops := []intentOp{stagedOp("k.create.1", "validate", "install-runtime", "init", "verify")}
	for _, tc := range []struct {
		name, stage, want string
		kept              keptPrivate
	}{
		{name: "resumes", kept: pausedKept("install-runtime"), want: "resumes it (Paused -> Running) with stages init, verify"},
		{name: "pauses again later", kept: pausedKept("install-runtime"), stage: "init", want: "pauses again after stage init"},
		{name: "stays paused", kept: pausedKept("install-runtime"), stage: "install-runtime", want: "runs nothing new"},
		{name: "not paused", kept: keptPrivate{}, want: ""},
		{name: "built from the same version", kept: withBuild(keptWith(protocol.StatusFailed, true), "1.0.0"), want: ""},
		{name: "built from another version", kept: withBuild(keptWith(protocol.StatusFailed, true), "0.9.0"), want: "built from pack kubernetes 0.9.0 and is continued with kubernetes 1.0.0"},
		{name: "completed under another version", kept: withBuild(keptWith(protocol.StatusCompleted, true), "0.9.0"), want: ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var d diag.Diagnostics
			showResume(tc.kept, ops, tc.stage, &d)
			if tc.want == "" {
				if len(d) != 0 {
					t.Fatalf("got: %v want: nothing", d)
				}
				return
			}
			if len(d) != 1 || d.HasError() || !strings.Contains(d[0].Detail(), tc.want) {
				t.Fatalf("got: %v want: a warning with %q", d, tc.want)
			}
		})
	}
}

// What an apply keeps: the last operation with its change (the stage of
// a pause), the consumed values (the token with its expiry and the CA
// hash, not the admin kubeconfig), the build; and what the next apply
// reads back: the kept token given to the run as the secret input's
// value, unless it expired.
func TestKeepAndReadPrivate(t *testing.T) {
	op := stagedOp("k.create.1", "install-runtime")
	op.Composed.Pack.Jobs = map[string]*protocol.Job{
		"gen": {ID: "gen", Outputs: protocol.Outputs{Artifacts: []protocol.ArtifactSpec{
			{ID: "kubeadm.join_token", Sensitivity: protocol.SensitivitySecret, TTL: protocol.Duration(24 * time.Hour)},
			{ID: "kubeadm.ca_cert_hash", Sensitivity: protocol.SensitivityPublic},
			{ID: "kubeconfig.admin", Sensitivity: protocol.SensitivitySecret},
		}}},
		"join": {ID: "join", Inputs: protocol.Inputs{Requires: protocol.Requires{Artifacts: []protocol.ArtifactRef{
			{ID: "kubeadm.join_token"}, {ID: "kubeadm.ca_cert_hash"}, {ID: "kubeconfig.admin"}}}}},
	}
	res := &engine.Result{Operation: protocol.Operation{ID: op.ID, Status: protocol.StatusPaused}, Artifacts: []protocol.Artifact{
		{ID: "kubeadm.ca_cert_hash", Sensitivity: protocol.SensitivityPublic, Value: "sha256:abc"},
	}}
	ip := intentPlan{spec: intent.Spec{Customization: &protocol.Customization{BaseTemplate: "kubernetes.create"}, Patches: []protocol.PlanPatch{{ID: "p1"}}}}
	ip.inputs.PauseAfterStage = "install-runtime"
	ip.inputs.Changes = []intent.Change{{Action: "create", IDParts: []string{"master-1"}}}
	prev := keptPrivate{Values: []operation.KeptValue{{ID: "kubeadm.join_token", Sensitivity: "secret", Value: "tok-1", ExpiresAt: privNow.Add(time.Hour)}}}
	store := memPrivate{}
	var d diag.Diagnostics
	keepPrivate(context.Background(), store, prev, ip, []opResult{{Op: op, Result: res}}, privNow, &d)
	if d.HasError() {
		t.Fatal(d)
	}
	for _, k := range []string{privOperation, privSecrets, privBuild} {
		if len(store[k]) == 0 {
			t.Fatalf("key %s not written", k)
		}
	}
	if strings.Contains(string(store[privSecrets]), "kubeconfig") {
		t.Errorf("the admin kubeconfig was kept: %s", store[privSecrets])
	}
	got := readPrivate(context.Background(), store, &d)
	if got.Op == nil || got.Op.PausedAfter != "install-runtime" || strings.Join(got.Op.IDParts, ",") != "master-1" || got.Op.Action != "create" || !got.Op.Resumable || !got.Op.Create {
		t.Fatalf("operation got: %+v", got.Op)
	}
	if got.Build == nil || got.Build.Version != "1.0.0" || got.Build.Customization == nil || strings.Join(got.Build.Patches, ",") != "p1" {
		t.Fatalf("build got: %+v", got.Build)
	}
	if len(got.Values) != 2 {
		t.Fatalf("values got: %+v want: the token and the CA hash", got.Values)
	}
	token := protocol.Artifact{ID: "kubeadm.join_token", Sensitivity: protocol.SensitivitySecret, Ref: "master-1:/var/lib/cp/t"}
	for _, tc := range []struct {
		at   time.Time
		want string
	}{{privNow.Add(30 * time.Minute), "tok-1"}, {privNow.Add(time.Hour), ""}} {
		var in runInputs
		in.withKept(got, tc.at)
		in.Artifacts = []protocol.Artifact{token}
		ri := in.engineInput(op.ID, "ci", nil)
		if ri.Artifacts[0].SecretValue != tc.want {
			t.Errorf("at %s: token value got: %q want: %q", tc.at, ri.Artifacts[0].SecretValue, tc.want)
		}
	}
	// A record that cannot be read is a warning and is ignored.
	var d2 diag.Diagnostics
	bad := readPrivate(context.Background(), memPrivate{privOperation: []byte(`{"operation":{"id":"x","status":"Asleep"}}`)}, &d2)
	if bad.Op != nil || d2.HasError() || d2.WarningsCount() != 1 {
		t.Fatalf("got: %+v %v want: no record and a warning", bad.Op, d2)
	}
}

// The run continues the kept operation of the same id; another id, or
// nothing kept, is a new operation planned now: DraftIntent, PlanPreview
// and CapabilityResolution, at the planning clock.
func TestRunPrevious(t *testing.T) {
	op := stagedOp("k.create.1", "install-runtime")
	p, err := runPrevious(op, runInputs{}, "ci")
	if err != nil || p.Status != protocol.StatusCapabilityResolution || len(p.Timeline) != 3 || !p.Timeline[0].At.Equal(privNow) {
		t.Fatalf("new got: %+v %v", p, err)
	}
	k := pausedKept("install-runtime")
	if p, _ := runPrevious(op, runInputs{Prev: k.Op}, "ci"); p.Status != protocol.StatusPaused {
		t.Fatalf("kept got: %s want: Paused", p.Status)
	}
	k.Op.Operation.ID = "k.upgrade.9"
	if p, _ := runPrevious(op, runInputs{Prev: k.Op}, "ci"); p.Status != protocol.StatusCapabilityResolution {
		t.Fatalf("another operation's record got: %s want: a new one", p.Status)
	}
}
