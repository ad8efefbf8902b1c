package packs

import (
	"strings"
	"testing"
)

// TestJobMissingInputIsRefused: missing_input is read only on a pack
// parameter; a job declaring it on its own parameter is refused, naming
// the job and the parameter and saying where to declare it, while the
// same flag on pack.yaml's parameter loads.
func TestJobMissingInputIsRefused(t *testing.T) {
	cases := map[string]struct {
		file, old, new string
		want           string // "" when the pack loads
	}{
		"on the job parameter": {"jobs/prepare.yaml", "      greeting: {}\n", "      greeting: {missing_input: true}\n",
			`jobs/prepare.yaml:8: inputs.parameters.greeting.missing_input: job "prepare" declares missing_input on parameter "greeting", but only a pack parameter's missing_input is read; remove it here and declare missing_input: true on parameters.greeting in pack.yaml`},
		"on the pack parameter": {"pack.yaml", "      default: hello\n", "      missing_input: true\n", ""},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p, err := Load(gateDemoWith(t, tc.file, tc.old, tc.new), "demo")
			if tc.want == "" {
				if err != nil {
					t.Fatalf("got: %v want: the pack loads", err)
				}
				if !p.Parameters["greeting"].MissingInput {
					t.Fatal("got: pack parameter greeting without missing_input want: it kept")
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), "\n  demo/"+tc.want) {
				t.Fatalf("got:\n%v\nwant a line starting: demo/%s", err, tc.want)
			}
		})
	}
}
