package packs

import (
	"strings"
	"testing"
)

// TestStageContracts: a stage's produces names what one of its jobs
// provides, and its requires what an earlier stage produces, what one of
// its jobs requires as input or what the pack requires; anything else
// refuses the pack with the template, the stage and the name.
func TestStageContracts(t *testing.T) {
	const head = "plan_template:\n  id: demo.install\n  action: install\n  title: Install demo\n  stages:\n"
	const prepare = "    - id: prepare\n      title: Prepare\n      jobs: [prepare]\n"
	const apply = "    - id: apply\n      title: Apply\n      jobs: [apply]\n"
	withRequires := "  requires:\n    - {capability: demo.base, scope: cluster}\n  parameters:\n"
	cases := []struct {
		name     string
		template string
		pack     string // replaces "  parameters:\n" in pack.yaml when set
		want     string // "" when the pack loads
	}{
		{name: "produces a capability", template: head + prepare + "      produces: [demo.prepared]\n" + apply},
		{name: "produces an artifact", template: head + prepare + "      produces: [demo.token]\n" + apply},
		{name: "produces an evidence id", template: head + prepare + "      produces: [marker_present]\n" + apply},
		{name: "produces what no job provides", template: head + prepare + "      produces: [demo.prepared, demo.ready]\n" + apply,
			want: `templates/install.yaml:9: stages[0].produces[1]: template demo.install stage "prepare" produces "demo.ready", which none of its jobs (prepare) provides`},
		{name: "produces what a later stage provides", template: head + prepare + "      produces: [applied]\n" + apply,
			want: `stages[0].produces[0]: template demo.install stage "prepare" produces "applied", which none of its jobs (prepare) provides`},
		{name: "requires from an earlier stage", template: head + prepare + apply + "      requires: [greeting_written]\n"},
		{name: "requires from a job input", template: head + prepare + apply + "      requires: [demo.token]\n"},
		{name: "requires from the pack's requires", template: head + prepare + "      requires: [demo.base]\n" + apply, pack: withRequires},
		{name: "requires what nothing gives", template: head + prepare + apply + "      requires: [demo.token, demo.snapshot]\n",
			want: `templates/install.yaml:12: stages[1].requires[1]: template demo.install stage "apply" requires "demo.snapshot", which no earlier stage produces, none of its jobs (apply) requires as input and pack.yaml does not require`},
		{name: "requires what a later stage produces", template: head + prepare + "      requires: [applied]\n" + apply,
			want: `stages[0].requires[0]: template demo.install stage "prepare" requires "applied", which no earlier stage produces`},
		{name: "requires the pack's requirement when the pack has none", template: head + prepare + "      requires: [demo.base]\n" + apply,
			want: `stages[0].requires[0]: template demo.install stage "prepare" requires "demo.base"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fsys := demoWithTemplate(t, tc.template)
			if tc.pack != "" {
				f := fsys["pack.yaml"]
				f.Data = []byte(strings.Replace(string(f.Data), "  parameters:\n", tc.pack, 1))
			}
			_, err := Load(fsys, "demo")
			if tc.want == "" {
				if err != nil {
					t.Fatalf("got: %v want: the pack loads", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got:\n%v\nwant: %s", err, tc.want)
			}
		})
	}
}
