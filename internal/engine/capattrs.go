package engine

import (
	"regexp"

	"github.com/intentops/terraform-provider-cp/internal/paramtype"
)

// capPlaceholder is a {name} in a provided capability's attribute.
var capPlaceholder = regexp.MustCompile(`\{[a-zA-Z0-9_.]+\}`)

// capAttributes returns a job's provided capability attributes with the
// {placeholders} the instance knows substituted, in one pass: a parameter
// the job declares, with the instance's value when it is one of the
// parameter's type (the planner checked it; it is checked again so that
// no unchecked value is substituted), and the names idempotency keys may
// use: node_id and host (the instance's host, "cluster" for a job that
// runs once), cluster, job_id and
// operation (the plan id). Any other placeholder stays for the caller,
// which substitutes the intent's own values (name, environment, region).
func (r *run) capAttributes(st *instState, attrs map[string]string) map[string]string {
	if len(attrs) == 0 {
		return attrs
	}
	out := make(map[string]string, len(attrs))
	for k, v := range attrs {
		out[k] = capPlaceholder.ReplaceAllStringFunc(v, func(m string) string {
			if val, ok := r.capValue(st, m[1:len(m)-1]); ok {
				return val
			}
			return m
		})
	}
	return out
}

func (r *run) capValue(st *instState, name string) (string, bool) {
	if spec, ok := st.in.Job.Inputs.Parameters[name]; ok {
		v, set := st.in.Params[name]
		if !set || v == "" {
			v = spec.Default
		}
		if v == "" || paramtype.Check(spec, v) != nil {
			return "", true
		}
		return v, true
	}
	switch name {
	case "node_id", "host":
		if st.in.Host == "" { // one instance for the cluster
			return "cluster", true
		}
		return st.in.Host, true
	case "cluster":
		return r.clusterName(), true
	case "job_id":
		return st.in.JobID, true
	case "operation":
		return r.plan.ID, true
	}
	return "", false
}

// clusterName is what {cluster} stands for, as in idempotency keys.
func (r *run) clusterName() string {
	in := &r.plan.Intent
	for _, v := range []string{in.TargetResource, in.Parameters["cluster_name"], in.Parameters["name"], in.ID} {
		if v != "" {
			return v
		}
	}
	return "cluster"
}
