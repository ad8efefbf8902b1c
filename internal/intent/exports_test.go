package intent

import (
	"maps"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/engine"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// tracingPack provides observability.tracing with an endpoint built from
// its typed parameters and the intent's own values.
func tracingPack() *protocol.ScenarioPack {
	return &protocol.ScenarioPack{
		ID: "tracing",
		Parameters: map[string]protocol.ParamSpec{
			"namespace": {Type: "dns_label", Default: "tempo"},
			"port":      {Type: "integer", Default: "3200"},
			"retention": {Type: "duration"},
		},
		Provides: []protocol.PackProvision{{Capability: "observability.tracing", Scope: protocol.ScopeCluster, Attributes: map[string]string{
			"endpoint":  "http://tempo.{namespace}.svc:{port}",
			"retention": "{retention}",
			"owner":     "{name}@{environment}",
			"api":       "{api_endpoint}",
		}}},
	}
}

func TestExportPlaceholders(t *testing.T) {
	cases := []struct {
		name        string
		params, own map[string]string
		want        map[string]string
	}{
		{"defaults", nil, map[string]string{"name": "t1", "environment": "stage"},
			map[string]string{"endpoint": "http://tempo.tempo.svc:3200", "owner": "t1@stage"}},
		{"the intent's values over the defaults", map[string]string{"namespace": "tracing", "port": "4317", "retention": "48h"},
			map[string]string{"name": "t1", "environment": "prod", "api_endpoint": "https://10.0.0.11:6443"},
			map[string]string{"endpoint": "http://tempo.tracing.svc:4317", "retention": "48h", "owner": "t1@prod", "api": "https://10.0.0.11:6443"}},
		{"a value not of its type is never substituted", map[string]string{"namespace": "Tracing_NS", "port": "ninety", "retention": "two days"},
			map[string]string{"name": "t1", "environment": "prod", "api_endpoint": "not a url"},
			map[string]string{"endpoint": "http://tempo..svc:", "owner": "t1@prod"}},
		{"an own value with a control character is not substituted", nil, map[string]string{"name": "t1\nx", "environment": "prod"},
			map[string]string{"endpoint": "http://tempo.tempo.svc:3200", "owner": "@prod"}},
		{"a parameter the pack does not declare is not a value", map[string]string{"colour": "blue", "name": "evil"},
			map[string]string{"environment": "prod"},
			map[string]string{"endpoint": "http://tempo.tempo.svc:3200", "owner": "@prod"}},
		{"one pass: a value holding a placeholder stays as it is", nil, map[string]string{"name": "{api_endpoint}", "environment": "prod", "api_endpoint": "https://10.0.0.11:6443"},
			map[string]string{"endpoint": "http://tempo.tempo.svc:3200", "owner": "{api_endpoint}@prod", "api": "https://10.0.0.11:6443"}},
	}
	p := tracingPack()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := Exports(p, ExportValues(p, tc.params, tc.own))
			if len(got) != 1 || !maps.Equal(got[0].Attributes, tc.want) {
				t.Errorf("got: %+v want: %v", got, tc.want)
			}
		})
	}
}

func TestSubstitute(t *testing.T) {
	cases := []struct{ in, want string }{
		{"{a}-{b}-{a}", "x--x"},
		{"no placeholder", "no placeholder"},
		{"{a.b}", "dotted"},
		{"{unknown}", ""},
		{"{ a }", "{ a }"}, // not a placeholder
		{"{c}", "{a}"},     // substituted once
	}
	values := map[string]string{"a": "x", "a.b": "dotted", "c": "{a}"}
	for _, tc := range cases {
		if got := Substitute(tc.in, values); got != tc.want {
			t.Errorf("Substitute(%q) got: %q want: %q", tc.in, got, tc.want)
		}
	}
}

// Attributes a job reported come substituted from the engine; what is
// left (the intent's own values) is substituted from the export values,
// over the pack's attributes.
func TestProvidedSubstitutesReported(t *testing.T) {
	p := tracingPack()
	reported := []engine.ProvidedCapability{{Key: "observability.tracing", Attributes: map[string]string{
		"endpoint": "http://tempo.tracing.svc:3200", "env": "{environment}"}}}
	got := Provided(p, reported, nil, ExportValues(p, map[string]string{"namespace": "tracing"}, map[string]string{"environment": "prod"}))
	want := map[string]string{"endpoint": "http://tempo.tracing.svc:3200", "env": "prod", "owner": "@prod"}
	if len(got) != 1 || !maps.Equal(got[0].Attributes, want) {
		t.Errorf("got: %+v want: %v", got, want)
	}
}
