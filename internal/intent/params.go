package intent

import (
	"slices"

	"github.com/intentops/terraform-provider-cp/internal/planner"
)

// PatchParams is one plan patch change that sets parameters of the jobs
// it inserts: the path of its parameters map and the job ids.
type PatchParams struct {
	Path Path // e.g. plan_patches[0].changes[1].parameters
	Jobs []string
}

// ParamPaths says where a resource's parameter values were written.
type ParamPaths struct {
	// Own maps a parameter that the resource sets with an attribute of
	// its own (kubernetes_version, pod_cidr...) to that attribute.
	Own map[string]Path
	// Base is the parameters map; any other parameter is Base["name"].
	Base Path
	// Fallback is where a parameter goes when the resource has no
	// parameters map (Base is nil), e.g. cp_node's cluster_handle.
	Fallback Path
	// Patches set parameters of jobs they insert.
	Patches []PatchParams
}

// Of returns the path of the value a parameter error refused.
func (pp ParamPaths) Of(e *planner.ParamError) Path {
	if e.Job != "" {
		for _, p := range pp.Patches {
			if slices.Contains(p.Jobs, e.Job) {
				return p.Path.Key(e.Name)
			}
		}
	}
	if p, ok := pp.Own[e.Name]; ok {
		return p
	}
	if pp.Base == nil {
		return pp.Fallback
	}
	return pp.Base.Key(e.Name)
}

// ParamProblems turns the planner's refused parameter values into
// problems at the attribute each value came from.
func ParamProblems(errs planner.ParamErrors, pp ParamPaths) Problems {
	var ps Problems
	for _, e := range errs {
		where := "pack " + e.Pack
		if e.Job != "" {
			where = "job " + e.Job + " of " + where
		}
		ps.add(pp.Of(e), "Invalid parameter value", "%s (parameter %s of %s).", e.Msg, e.Name, where)
	}
	return ps
}
