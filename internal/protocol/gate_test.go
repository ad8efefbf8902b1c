package protocol

import (
	"encoding/json"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

func TestGateOptionYAML(t *testing.T) {
	cases := []struct {
		name string
		src  string
		want GateOption
	}{
		{"bare string proceeds", `uninstall`, GateOption{ID: "uninstall", Effect: EffectProceed, Plain: true}},
		{"mapping with cancel", `{id: cancel operation, effect: cancel}`, GateOption{ID: "cancel operation", Effect: EffectCancel}},
		{"mapping with bind", `{id: bind s3, effect: bind, candidate: aws-s3}`, GateOption{ID: "bind s3", Effect: EffectBind, Candidate: "aws-s3"}},
		{"mapping with create", `{id: new, effect: create, provider: dedicated_minio}`, GateOption{ID: "new", Effect: EffectCreate, Provider: "dedicated_minio"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var o GateOption
			if err := yaml.Unmarshal([]byte(tc.src), &o); err != nil {
				t.Fatal(err)
			}
			if o != tc.want {
				t.Fatalf("got: %+v want: %+v", o, tc.want)
			}
		})
	}
}

func TestGateOptionJSON(t *testing.T) {
	var g Gate
	if err := json.Unmarshal([]byte(`{"id":"g","type":"approval","options":["go",{"id":"stop","effect":"cancel"}],"chosen":""}`), &g); err != nil {
		t.Fatal(err)
	}
	if len(g.Options) != 2 || g.Options[0] != (GateOption{ID: "go", Effect: EffectProceed, Plain: true}) || g.Options[1] != Cancel("stop") {
		t.Fatalf("got: %+v", g.Options)
	}
	b, err := json.Marshal(Gate{ID: "g", Type: GateApproval, Options: []GateOption{Proceed("go")}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"options":[{"id":"go","effect":"proceed"}]`) {
		t.Fatalf("got: %s", b)
	}
}

func TestGateValidateOptions(t *testing.T) {
	base := func(opts ...GateOption) Gate { return Gate{ID: "g", Type: GateApproval, Options: opts} }
	cases := []struct {
		name string
		g    Gate
		want string
	}{
		{"valid", base(Proceed("go"), Cancel("stop")), ""},
		{"no options", base(), "needs at least one option"},
		{"unknown effect", base(GateOption{ID: "x", Effect: "maybe"}), `effect "maybe" is not one of [bind cancel create proceed]`},
		{"empty id", base(GateOption{Effect: EffectProceed}), "option id is empty"},
		{"bind without candidate", base(GateOption{ID: "b", Effect: EffectBind}), "effect bind needs the candidate"},
		{"create without provider", base(GateOption{ID: "c", Effect: EffectCreate}), "effect create needs the provider kind"},
		{"candidate on proceed", base(GateOption{ID: "p", Effect: EffectProceed, Candidate: "x"}), "only bind options name a candidate"},
		{"provider on cancel", base(GateOption{ID: "p", Effect: EffectCancel, Provider: "x"}), "only create options name a provider"},
		{"duplicate", base(Proceed("go"), Cancel("go")), `option "go" is listed twice`},
		{"chosen not an option", Gate{ID: "g", Type: GateApproval, Options: []GateOption{Proceed("go")}, Chosen: "go"}, "not a bind or create option"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.g.Validate()
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Fatalf("got: %v want: %q", err, tc.want)
			}
		})
	}
}

func TestDecisionChoose(t *testing.T) {
	g := Gate{ID: "select", Type: GateProviderSelection, RequiredRoles: []string{"sre"}, Chosen: "bind a",
		Options: []GateOption{{ID: "bind a", Effect: EffectBind, Candidate: "a"}, {ID: "bind b", Effect: EffectBind, Candidate: "b"}, Cancel("cancel operation")}}
	cases := []struct {
		name   string
		d      Decision
		effect OptionEffect
		err    string
	}{
		{"the option the plan was built for", Decision{Option: "bind a", Actor: "ana", Roles: []string{"sre"}}, EffectBind, ""},
		{"another bind option", Decision{Option: "bind b", Actor: "ana", Roles: []string{"sre"}}, "", `differs from "bind a", the option the plan was built for`},
		{"cancel is always open", Decision{Option: "cancel operation", Actor: "ana", Roles: []string{"sre"}}, EffectCancel, ""},
		{"cancel needs the role too", Decision{Option: "cancel operation", Actor: "bob", Roles: []string{"dev"}}, "", `actor "bob" has roles ["dev"] but the gate requires one of ["sre"]`},
		{"unknown option", Decision{Option: "bind c", Actor: "ana", Roles: []string{"sre"}}, "", `option "bind c" is not one of ["bind a" "bind b" "cancel operation"]`},
	}
	unplanned := g
	unplanned.Chosen = ""
	if _, err := (Decision{Option: "bind a", Actor: "ana", Roles: []string{"sre"}}).Choose(unplanned); err == nil || !strings.Contains(err.Error(), "the plan holds no provider for this gate; plan again") {
		t.Errorf("bind on a gate whose plan holds none got: %v", err)
	}
	if o, err := (Decision{Option: "cancel operation", Actor: "ana", Roles: []string{"sre"}}).Choose(unplanned); err != nil || o.Effect != EffectCancel {
		t.Errorf("cancel on a gate whose plan holds none got: %v", err)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o, err := tc.d.Choose(g)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("got: %v want: %q", err, tc.err)
				}
				return
			}
			if err != nil || o.Effect != tc.effect {
				t.Fatalf("got: %+v, %v want effect %s", o, err, tc.effect)
			}
		})
	}
}
