package diagnose

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// funcAnalyzer is an in-process analyzer for Diagnose's fallback paths.
type funcAnalyzer struct {
	name string
	fn   func(ctx context.Context, req Request) (Answer, error)
}

func (a funcAnalyzer) Name() string { return a.name }
func (a funcAnalyzer) Analyze(ctx context.Context, req Request) (Answer, error) {
	return a.fn(ctx, req)
}

func answering(name string, d Diagnosis, p *protocol.PlanPatch) funcAnalyzer {
	return funcAnalyzer{name: name, fn: func(context.Context, Request) (Answer, error) { return Answer{Diagnosis: d, Patch: p}, nil }}
}

func TestDiagnoseAnalyzerOrder(t *testing.T) {
	fx := createFixture(t, map[string]string{"registry_mirrors": "https://mirror.example.internal"})
	f := fx.failure(t, "init-control-plane[master-1]", readLog(t, "image-pull-init.log"), nil)
	var got []string
	failing := funcAnalyzer{name: "first", fn: func(_ context.Context, req Request) (Answer, error) {
		got = append(got, "first")
		return Answer{}, errors.New("connection refused")
	}}
	panicking := funcAnalyzer{name: "second", fn: func(context.Context, Request) (Answer, error) {
		got = append(got, "second")
		panic("index out of range")
	}}
	third := answering("third", modelDiagnosis(), ptr(seedPatch()))
	res := Diagnose(context.Background(), f, Options{Analyzers: []Analyzer{failing, nil, panicking, third}, Review: fx.review})
	if res.Diagnosis.Source != "analyzer:third" || res.Patch == nil || res.Patch.Author != "analyzer:third" {
		t.Fatalf("got: %+v want: the third analyzer's answer", res)
	}
	if !slices.Equal(got, []string{"first", "second"}) {
		t.Errorf("analyzers asked got: %q want: first, second (then the third answered)", got)
	}
	wantWarn := []string{"analyzer first: analyzer failed: connection refused; falling back",
		"analyzer #2: analyzer failed: analyzer is nil; falling back",
		"analyzer second: analyzer failed: panicked: index out of range; falling back"}
	if !slices.Equal(res.Warnings, wantWarn) {
		t.Errorf("warnings\ngot:  %q\nwant: %q", res.Warnings, wantWarn)
	}
	if len(res.Rejected) != 3 || res.Rejected[2].Source != "analyzer:second" {
		t.Errorf("rejected got: %+v want: the three unusable analyzers", res.Rejected)
	}
}

func TestDiagnoseRequestIsRedacted(t *testing.T) {
	fx := createFixture(t, nil)
	var seen Request
	a := funcAnalyzer{name: "spy", fn: func(_ context.Context, req Request) (Answer, error) {
		seen = req
		return Answer{}, fmt.Errorf("cannot handle token %s", secretToken)
	}}
	res := Diagnose(context.Background(), leakyFailure(t, fx), Options{Analyzers: []Analyzer{a}, Review: fx.review, Redactor: testRedactor()})
	assertNoSecret(t, "request JSON", seen.JSON)
	b, _ := json.Marshal(seen.Failure)
	assertNoSecret(t, "request failure", b)
	out, _ := json.Marshal(res)
	if strings.Contains(string(out), secretToken) || strings.Contains(Explain(res), secretToken) {
		t.Errorf("the secret an analyzer echoed leaked into the result: %s", out)
	}
}

func TestDiagnoseContextCancelled(t *testing.T) {
	fx := createFixture(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	a := funcAnalyzer{name: "slow", fn: func(ctx context.Context, _ Request) (Answer, error) {
		<-ctx.Done()
		return Answer{}, ctx.Err()
	}}
	res := Diagnose(ctx, fx.failure(t, "init-control-plane[master-1]", readLog(t, "port-in-use.log"), nil), Options{Analyzers: []Analyzer{a}, Review: fx.review})
	if res.Diagnosis.Rule != "port-in-use" || !containsSub(res.Warnings, "context canceled") {
		t.Errorf("got: rule %q warnings %q want: port-in-use from the rules and a cancellation warning", res.Diagnosis.Rule, res.Warnings)
	}
}

func TestDiagnoseRulePatchRejected(t *testing.T) {
	fx := createFixture(t, nil)
	f := fx.failure(t, "init-control-plane[master-1]", readLog(t, "image-pull-init.log"), nil)
	noInserts := func(p protocol.PlanPatch) error {
		if p.Changes[0].InsertAfter != "" {
			return errors.New("invalid plan edit: registry mirrors are forbidden by policy")
		}
		return fx.review(p)
	}
	res := Diagnose(context.Background(), f, Options{Review: noInserts})
	if got := changes(res.Patch); !slices.Equal(got, []string{"retry init-control-plane"}) {
		t.Errorf("changes got: %q want: the degraded retry", got)
	}
	if len(res.Rejected) != 1 || !strings.Contains(res.Rejected[0].Reason, "forbidden by policy") || res.Rejected[0].Patch == nil {
		t.Errorf("rejected got: %+v want: the rule's mirror patch with the planner's reason", res.Rejected)
	}
	d := res.Diagnosis
	if d.Risk != RiskLow || len(d.ManualSteps) == 0 || !containsSub(d.Notes, "rejected by the planner") || containsSub(d.Notes, "placeholder") {
		t.Errorf("diagnosis got: %+v want: manual steps, low risk, the rejection note and no placeholder note", d)
	}

	nothing := func(protocol.PlanPatch) error { return errors.New("plan is frozen") }
	res = Diagnose(context.Background(), f, Options{Review: nothing})
	if res.Patch != nil || len(res.Rejected) != 2 || !containsSub(res.Warnings, "no patch is proposed") {
		t.Errorf("got: patch %v rejected %+v warnings %q want: no patch, both rejected", res.Patch, res.Rejected, res.Warnings)
	}
	if !strings.Contains(Explain(res), "No plan patch is proposed.") {
		t.Errorf("Explain does not say that no patch is proposed:\n%s", Explain(res))
	}

	panicky := func(protocol.PlanPatch) error { panic("nil map") }
	res = Diagnose(context.Background(), f, Options{Review: panicky})
	if res.Patch != nil || !containsSub(res.Warnings, "the planner callback panicked: nil map") {
		t.Errorf("got: patch %v warnings %q want: no patch and the panic as a warning", res.Patch, res.Warnings)
	}
}

func TestDiagnoseWithoutReviewer(t *testing.T) {
	fx := createFixture(t, nil)
	res := Diagnose(context.Background(), fx.failure(t, "join-workers[worker-1]", readLog(t, "join-token.log"), nil), Options{})
	if res.Patch == nil || !containsSub(res.Warnings, "no planner review is configured") {
		t.Errorf("got: patch %v warnings %q want: a patch checked locally, with a warning", res.Patch, res.Warnings)
	}
}

func TestDiagnoseUnrecognised(t *testing.T) {
	fx := createFixture(t, nil)
	log := "helm: INSTALLATION FAILED: values don't meet the specifications of the schema(s)\nline 2\nline 3\nline 4\nline 5\nline 6"
	res := Diagnose(context.Background(), fx.failure(t, "install-storage[master-1]", log, nil), Options{Review: fx.review})
	d := res.Diagnosis
	if res.Patch != nil || d.Source != "diagnose" || d.Confidence != 0 || len(d.Evidence) != 5 || d.Evidence[4] != "line 6" {
		t.Errorf("got: %+v patch %v want: no rule, no patch, the last five lines quoted", d, res.Patch)
	}
}

func TestDiagnosePanickingRule(t *testing.T) {
	fx := createFixture(t, nil)
	rules := Rules{{ID: "boom", Signature: Signature{Lines: BuiltinRules()[0].Signature.Lines},
		Patch: func(Failure, Match) Draft { panic("bad rule") }}}
	res := Diagnose(context.Background(), fx.failure(t, "install-container-runtime[worker-1]", readLog(t, "disk-apt.log"), nil),
		Options{Review: fx.review, Rules: rules})
	if res.Diagnosis.Source != "diagnose" || !containsSub(res.Warnings, "built-in rules failed: bad rule") {
		t.Errorf("got: %+v warnings %q want: unrecognised with the panic as a warning", res.Diagnosis, res.Warnings)
	}
}

func TestDiagnoseDeterministic(t *testing.T) {
	fx := createFixture(t, nil)
	var outs []string
	for range 3 {
		f := fx.failure(t, "init-control-plane[master-1]", readLog(t, "image-pull-init.log"),
			[]protocol.EvidenceResult{failedEvidence("kubeadm_init_completed", "master-1", "", ""), failedEvidence("kube_apiserver_healthy", "master-1", "", "")})
		b, err := json.Marshal(Diagnose(context.Background(), f, Options{Review: fx.review}))
		if err != nil {
			t.Fatal(err)
		}
		outs = append(outs, string(b))
	}
	if outs[0] != outs[1] || outs[1] != outs[2] {
		t.Errorf("Diagnose is not deterministic:\n%s\n%s", outs[0], outs[1])
	}
}

func TestRulePlanner(t *testing.T) {
	fx := createFixture(t, nil)
	f := fx.failure(t, "init-control-plane[master-1]", readLog(t, "image-pull-init.log"), nil)
	res := Diagnose(context.Background(), f, Options{Review: fx.review})
	p, err := RulePlanner{}.Propose(f, res.Diagnosis)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(p)
	b, _ := json.Marshal(res.Patch)
	if string(a) != string(b) {
		t.Errorf("RulePlanner got: %s want the patch Diagnose proposed: %s", a, b)
	}
	if _, err := (RulePlanner{}).Propose(f, Diagnosis{Source: "analyzer:x"}); err == nil {
		t.Errorf("got: nil want: an error for a diagnosis made by no rule")
	}
	other := fx.failure(t, "init-control-plane[master-1]", readLog(t, "port-in-use.log"), nil)
	if _, err := (RulePlanner{}).Propose(other, res.Diagnosis); err == nil || !strings.Contains(err.Error(), "does not match") {
		t.Errorf("got: %v want: the rule does not match another failure", err)
	}
}

func TestAnalyzerWithoutPreparedJSON(t *testing.T) {
	script := analyzerScript(t)
	stdin := t.TempDir() + "/stdin.json"
	ans := t.TempDir() + "/a.json"
	if err := os.WriteFile(ans, []byte(`{"diagnosis": {"summary": "s", "risk": "low"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := CommandAnalyzer{Path: script, Args: []string{stdin, ans}}.Analyze(context.Background(), Request{Failure: Failure{Job: "j", Instance: "j[h]"}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(stdin)
	if !strings.Contains(string(b), `"instance":"j[h]"`) {
		t.Errorf("stdin got: %s want the failure as JSON", b)
	}
}
