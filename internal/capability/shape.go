package capability

import (
	"fmt"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// Shape returns the creating pack's parameter values that the constraints
// call for (provides[i].shaped_by), with a note per value saying which
// constraint set it: "storage_size 200Gi (min_capacity_gb 200)". A
// same-as-workload constraint takes the workload's value; a shape with
// When applies only to that value of its constraint.
func Shape(shapes []protocol.ConstraintShape, constraints, workload map[string]string, consumer string) (map[string]string, []string) {
	var out map[string]string
	var notes []string
	for _, s := range shapes {
		v, ok := constraints[s.Constraint]
		if !ok {
			continue
		}
		if v == ValueSameAsWorkload {
			v = workload[s.Constraint]
		}
		if v == "" || (s.When != "" && v != s.When) {
			continue
		}
		if out == nil {
			out = map[string]string{}
		}
		out[s.Parameter] = s.Render(v, consumer)
		notes = append(notes, fmt.Sprintf("%s %s (%s %s)", s.Parameter, out[s.Parameter], s.Constraint, v))
	}
	return out, notes
}

// newCreate is the create decision of creator c, its parameters shaped by
// the requirement's constraints.
func (r *resolution) newCreate(c Creator) *Create {
	params, notes := Shape(c.ShapedBy, r.constraints, r.req.Workload, r.req.Consumer)
	return &Create{Pack: c.Pack, Version: c.Version, Action: c.Action, Provider: c.Provider, Params: params, Shaped: notes}
}
