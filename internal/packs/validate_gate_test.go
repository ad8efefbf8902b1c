package packs

import (
	"io/fs"
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// gateDemoWith returns the valid demo pack with one file's text replaced.
func gateDemoWith(t *testing.T, file, old, new string) fstest.MapFS {
	t.Helper()
	src := os.DirFS("testdata/valid/demo")
	m := fstest.MapFS{}
	err := fs.WalkDir(src, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(src, p)
		if err != nil {
			return err
		}
		m[p] = &fstest.MapFile{Data: b, Mode: 0o644}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if file != "" {
		f, ok := m[file]
		if !ok || !strings.Contains(string(f.Data), old) {
			t.Fatalf("fixture %s has no %q", file, old)
		}
		f.Data = []byte(strings.Replace(string(f.Data), old, new, 1))
	}
	return m
}

const demoOptions = "options: [proceed, {id: cancel operation, effect: cancel}]"

func TestGateOptionsLoad(t *testing.T) {
	cases := []struct {
		name          string
		file, old, nw string
		want          string // a problem line; "" loads
		check         func(t *testing.T, p *protocol.ScenarioPack)
	}{
		{name: "bare string proceeds, mapping cancels", check: func(t *testing.T, p *protocol.ScenarioPack) {
			g := p.Templates["install"].Gates[0]
			if len(g.Options) != 2 || g.Options[0].Effect != protocol.EffectProceed || g.Options[1].Effect != protocol.EffectCancel || g.Options[1].ID != "cancel operation" {
				t.Fatalf("got: %+v", g.Options)
			}
		}},
		{name: "every option as a mapping", file: "templates/install.yaml", old: demoOptions,
			nw: "options:\n        - {id: apply it, effect: proceed}\n        - id: cancel operation\n          effect: cancel",
			check: func(t *testing.T, p *protocol.ScenarioPack) {
				if got := p.Templates["install"].Gates[0].DescribeOptions(); got != "apply it (proceed) | cancel operation (cancel)" {
					t.Fatalf("got: %s", got)
				}
			}},
		{name: "bare cancel is refused", file: "templates/install.yaml", old: demoOptions, nw: "options: [proceed, cancel operation]",
			want: `templates/install.yaml:16: gates[0].options[1]: option "cancel operation" is a bare string, which proceeds; write {id: cancel operation, effect: cancel}`},
		{name: "bare reject is refused", file: "templates/install.yaml", old: demoOptions, nw: "options: [proceed, reject]",
			want: `templates/install.yaml:16: gates[0].options[1]: option "reject" is a bare string, which proceeds`},
		{name: "unknown effect", file: "templates/install.yaml", old: demoOptions, nw: "options: [proceed, {id: later, effect: postpone}]",
			want: `templates/install.yaml:16: gates[0].options[1].effect: option "later": effect "postpone" is not one a template gate can have`},
		{name: "bind is not a template effect", file: "templates/install.yaml", old: demoOptions, nw: "options: [proceed, {id: use s3, effect: bind, candidate: aws}]",
			want: `templates/install.yaml:16: gates[0].options[1].effect: option "use s3": effect "bind" is not one a template gate can have`},
		{name: "unknown option key", file: "templates/install.yaml", old: demoOptions, nw: "options: [proceed, {id: stop, effect: cancel, colour: red}]",
			want: `templates/install.yaml:16: gates[0].options[1].colour: unknown key "colour"; known keys here: candidate, effect, id, provider`},
		{name: "candidate on a proceed option", file: "templates/install.yaml", old: demoOptions, nw: "options: [{id: go, effect: proceed, candidate: x}]",
			want: `templates/install.yaml:16: gates[0].options[0]: option "go": candidate and provider belong to bind and create options`},
		{name: "duplicate option", file: "templates/install.yaml", old: demoOptions, nw: "options: [proceed, {id: proceed, effect: cancel}]",
			want: `templates/install.yaml:16: gates[0].options[1]: option "proceed" is already listed as options[0]`},
		{name: "empty option id", file: "templates/install.yaml", old: demoOptions, nw: "options: [proceed, {effect: cancel}]",
			want: `templates/install.yaml:16: gates[0].options[1].id: option id is empty`},
		{name: "no option proceeds", file: "templates/install.yaml", old: demoOptions, nw: "options: [{id: cancel operation, effect: cancel}]",
			want: `templates/install.yaml:16: gates[0].options: gate "approve" has no option that proceeds`},
		{name: "planner gate type in a template", file: "templates/install.yaml", old: "type: approval", nw: "type: cost_confirmation",
			want: `templates/install.yaml:14: gates[0].type: gate "approve": type cost_confirmation is produced by the planner`},
		{name: "cost loads", file: "pack.yaml", old: "  actions: [install]\n", nw: "  actions: [install]\n  cost: {monthly_usd: 40}\n",
			check: func(t *testing.T, p *protocol.ScenarioPack) {
				if p.Cost == nil || p.Cost.MonthlyUSD != 40 {
					t.Fatalf("cost got: %+v", p.Cost)
				}
			}},
		{name: "negative cost", file: "pack.yaml", old: "  actions: [install]\n", nw: "  actions: [install]\n  cost: {monthly_usd: -1}\n",
			want: `pack.yaml:7: cost.monthly_usd: monthly cost -1 is negative`},
		{name: "missing_input with a default", file: "pack.yaml", old: "      default: hello\n", nw: "      default: hello\n      missing_input: true\n",
			want: `pack.yaml:11: parameters.greeting.missing_input: parameter greeting has a default, so it is never missing`},
		{name: "missing_input parameter loads", file: "pack.yaml", old: "      default: hello\n", nw: "      missing_input: true\n",
			check: func(t *testing.T, p *protocol.ScenarioPack) {
				if !p.Parameters["greeting"].MissingInput {
					t.Fatalf("got: %+v", p.Parameters["greeting"])
				}
			}},
		{name: "missing_input parameter no job reads", file: "pack.yaml", old: "      default: hello\n", nw: "      default: hello\n    colour:\n      type: string\n      missing_input: true\n",
			want: `pack.yaml:13: parameters.colour.missing_input: no job reads parameter colour`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Load(gateDemoWith(t, tc.file, tc.old, tc.nw), "demo")
			if tc.want == "" {
				if err != nil {
					t.Fatalf("got: %v want: loads", err)
				}
				tc.check(t, p)
				return
			}
			if err == nil || !strings.Contains(err.Error(), "\n  demo/"+tc.want) {
				t.Fatalf("got:\n%v\nwant a line starting: demo/%s", err, tc.want)
			}
		})
	}
}

// TestBuiltinGateOptionsDeclareEffects checks that every builtin template
// gate says what each option does and has one that cancels.
func TestBuiltinGateOptionsDeclareEffects(t *testing.T) {
	cat, err := LoadBuiltin()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range cat.List() {
		for _, tmpl := range p.Templates {
			for _, g := range tmpl.Gates {
				n++
				cancels := false
				for _, o := range g.Options {
					if o.Plain {
						t.Errorf("%s gate %s option %q is a bare string; declare its effect", tmpl.Ref(), g.ID, o.ID)
					}
					cancels = cancels || o.Effect == protocol.EffectCancel
				}
				if !cancels {
					t.Errorf("%s gate %s has no cancel option", tmpl.Ref(), g.ID)
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("no builtin gate found")
	}
}
