package planner

import (
	"slices"
	"strings"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// InstanceView is one instance of the per-instance DAG, keyed by its id in
// InstanceViews, so that a change of plan diffs as the instances that
// changed rather than by position.
type InstanceView struct {
	Job   string `json:"job"`
	Stage string `json:"stage"`
	Host  string `json:"host"`
	// RunOn is where the instance executes when not on Host.
	RunOn string `json:"run_on"`
	// Needs are the instance ids it waits for, sorted; "JOB[*]" stands for
	// every instance of the job group JOB (see GroupKey) when it waits
	// for all of them, which keeps full-mesh fan-ins linear.
	Needs          []string `json:"needs"`
	Origin         string   `json:"origin"`
	Because        string   `json:"because"`
	SubOperation   string   `json:"sub_operation"`
	Gate           string   `json:"gate"` // gate type for gate nodes, else ""
	IdempotencyKey string   `json:"idempotency_key"`
	// Status is "will run" or "satisfied" for jobs, "approved" or
	// "waiting" for gates. It is not part of the DAG digest.
	Status string `json:"status,omitempty"`
}

// InstanceViews is the per-instance DAG keyed by instance id.
type InstanceViews map[string]InstanceView

// IDs returns the instance ids, sorted.
func (v InstanceViews) IDs() []string {
	ids := make([]string, 0, len(v))
	for id := range v {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// Instances returns the per-instance DAG of p keyed by instance id, with
// each instance's status from st.
func Instances(p *protocol.Plan, st ViewState) InstanceViews {
	out := make(InstanceViews, len(p.Instances))
	groups := groupSizes(p)
	for _, in := range p.Instances {
		v := dagView(p, in, groups)
		v.Status = instanceStatus(in, st)
		out[in.ID] = v
	}
	return out
}

// dagView is the instance without its status.
func dagView(p *protocol.Plan, in *protocol.JobInstance, groups map[string]int) InstanceView {
	v := InstanceView{Job: in.JobID, Stage: in.Stage, Host: in.Host, RunOn: in.RunOn, Needs: compressNeeds(p, in.Needs, groups),
		Origin: string(in.Origin), Because: in.Because, SubOperation: in.SubOperation, IdempotencyKey: in.IdempotencyKey}
	if in.IsGate() {
		v.Gate = string(in.Gate.Type)
	}
	return v
}

func instanceStatus(in *protocol.JobInstance, st ViewState) string {
	if in.IsGate() {
		if st.gate(in.ID).Approved {
			return StatusApproved
		}
		return StatusWaiting
	}
	return st.JobStatus(in.ID)
}

// GroupKey is the job group of an instance: its id without the "[host]"
// suffix of per-host instances (join-workers[worker-3] -> join-workers).
func GroupKey(in *protocol.JobInstance) string {
	if in.Host != "" {
		if k, ok := strings.CutSuffix(in.ID, "["+in.Host+"]"); ok {
			return k
		}
	}
	return in.ID
}

// groupSizes counts the instances of each job group of more than one.
func groupSizes(p *protocol.Plan) map[string]int {
	out := map[string]int{}
	for _, in := range p.Instances {
		if k := GroupKey(in); k != in.ID {
			out[k]++
		}
	}
	return out
}

// compressNeeds writes "GROUP[*]" for a run of needs that holds every
// instance of a group. Needs are sorted and distinct, and the ids of a
// group share the prefix "GROUP[", so such a run is contiguous: it is
// whole when its first and its group-size-th entries have that prefix.
func compressNeeds(p *protocol.Plan, needs []string, groups map[string]int) []string {
	out := make([]string, 0, min(len(needs), 8))
	for i := 0; i < len(needs); {
		if dep, ok := p.Instance(needs[i]); ok {
			k := GroupKey(dep)
			if n := groups[k]; n > 1 && k != dep.ID && i+n <= len(needs) && strings.HasPrefix(needs[i+n-1], k+"[") {
				out = append(out, k+"[*]")
				i += n
				continue
			}
		}
		out = append(out, needs[i])
		i++
	}
	return out
}
