package engine

import (
	"maps"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// The attributes of a capability a job provides are substituted from
// the instance: its parameters (only values of their declared type), the
// idempotency-key names, in one pass; other placeholders stay.
func TestCapabilityAttributesSubstituted(t *testing.T) {
	job := newJob("install")
	job.Inputs.Parameters = map[string]protocol.ParamSpec{
		"namespace": {Type: "dns_label", Default: "tempo"},
		"port":      {Type: "integer"},
		"image":     {Type: "string"},
	}
	r := &run{plan: &protocol.Plan{ID: "plan-7", Intent: protocol.Intent{TargetResource: "prod"}}}
	cases := []struct {
		name   string
		host   string
		params map[string]string
		attrs  map[string]string
		want   map[string]string
	}{
		{"parameter and default", "w1", map[string]string{"port": "3200"},
			map[string]string{"endpoint": "http://tempo.{namespace}.svc:{port}"},
			map[string]string{"endpoint": "http://tempo.tempo.svc:3200"}},
		{"the instance's value over the default", "w1", map[string]string{"namespace": "tracing", "port": "3200"},
			map[string]string{"endpoint": "http://tempo.{namespace}.svc:{port}"},
			map[string]string{"endpoint": "http://tempo.tracing.svc:3200"}},
		{"a value not of its type is not substituted", "w1", map[string]string{"namespace": "Bad_NS", "port": "32oo"},
			map[string]string{"endpoint": "http://tempo.{namespace}.svc:{port}"},
			map[string]string{"endpoint": "http://tempo..svc:"}},
		{"idempotency-key names", "w1", nil,
			map[string]string{"node": "{node_id}", "where": "{host}/{cluster}/{job_id}/{operation}"},
			map[string]string{"node": "w1", "where": "w1/prod/install/plan-7"}},
		{"a job that runs once is the cluster's", "", nil,
			map[string]string{"node": "{node_id}"}, map[string]string{"node": "cluster"}},
		{"one pass: a value holding braces stays as it is", "w1", map[string]string{"image": "{host}"},
			map[string]string{"image": "{image}"}, map[string]string{"image": "{host}"}},
		{"names the instance does not know stay for the intent", "w1", nil,
			map[string]string{"region": "{region}", "env": "{environment}-{host}"},
			map[string]string{"region": "{region}", "env": "{environment}-w1"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := newInst(job, "s", tc.host)
			in.Params = tc.params
			st := &instState{in: in, host: tc.host}
			if got := r.capAttributes(st, tc.attrs); !maps.Equal(got, tc.want) {
				t.Errorf("got: %v want: %v", got, tc.want)
			}
		})
	}
}

// A run reports the attributes substituted.
func TestRunReportsSubstitutedCapabilities(t *testing.T) {
	n := clusterNet("w1")
	p := clusterPlan("w1")
	for _, in := range p.Instances {
		if in.JobID == "runtime" {
			j := *in.Job
			j.Outputs.Provides.Capabilities = []protocol.Capability{{Key: "container.runtime.containerd", Scope: protocol.ScopeNode,
				Attributes: map[string]string{"socket": "unix:///run/containerd/{host}.sock"}}}
			in.Job = &j
		}
	}
	e, _ := newTestEngine(n, nil)
	res := mustRun(t, e, p, RunInput{})
	got := map[string]string{}
	for _, c := range res.Capabilities {
		if c.Key == "container.runtime.containerd" {
			got[c.Host] = c.Attributes["socket"]
		}
	}
	want := map[string]string{"m1": "unix:///run/containerd/m1.sock", "w1": "unix:///run/containerd/w1.sock"}
	if !maps.Equal(got, want) {
		t.Errorf("got: %v want: %v", got, want)
	}
}
