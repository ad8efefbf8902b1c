package packs

import (
	"errors"
	"strings"
	"testing"
)

// The {placeholders} of a job's provided capability attributes must name
// one of the job's parameters or an idempotency-key name; any other is
// refused with file, line and field.
func TestJobCapabilityPlaceholders(t *testing.T) {
	cases := []struct{ name, attrs, want string }{
		{"parameter and built-ins", `{greeting: "{greeting}", node: "{node_id}@{cluster}", who: "{host}/{job_id}/{operation}"}`, ""},
		{"unknown", `{colour: "{colour}"}`,
			`jobs/prepare.yaml:12: outputs.provides.capabilities[0].attributes.colour: attribute colour="{colour}" names parameter "colour", which is not in inputs.parameters`},
		{"an intent value is not the job's", `{region: "{region}"}`,
			`outputs.provides.capabilities[0].attributes.region: attribute region="{region}" names parameter "region", which is not in inputs.parameters`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(demoWith(t, "jobs/prepare.yaml", "{key: demo.prepared, scope: node}",
				"{key: demo.prepared, scope: node, attributes: "+tc.attrs+"}"), "demo")
			if tc.want == "" {
				if err != nil {
					t.Errorf("got: %v want: loaded", err)
				}
				return
			}
			var ps Problems
			if !errors.As(err, &ps) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got: %v\nwant: a problem %q", err, tc.want)
			}
		})
	}
}
