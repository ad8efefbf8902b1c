package engine

import (
	"container/heap"
	"fmt"
	"strings"
)

// countRollingFailure counts a failed instance of a serial job. Once more
// of the job's instances have failed than its controls.max_failures
// allows, the rolling stops: the instances of the job waiting for their
// turn are not run, nor are those that become ready later (dispatch), nor
// what needs them. Instances already running finish.
func (s *scheduler) countRollingFailure(st *instState) {
	c := st.in.Job.Controls
	if c.Serial <= 0 || st.res.Status != StatusFailed {
		return
	}
	job := st.in.JobID
	s.jobFailed[job] = append(s.jobFailed[job], st.in.ID)
	failed := s.jobFailed[job]
	if len(failed) <= c.MaxFailures || s.jobStopped[job] != "" {
		return
	}
	stop := &RollingStop{Job: job, Failed: append([]string(nil), failed...), MaxFailures: c.MaxFailures}
	s.r.rolling = append(s.r.rolling, stop)
	if c.MaxFailures == 0 {
		s.jobStopped[job] = fmt.Sprintf("not run: rolling job %s stopped at its first failed host (%s); controls.max_failures is 0", job, failed[0])
	} else {
		s.jobStopped[job] = fmt.Sprintf("not run: rolling job %s stopped after %d failed hosts (%s), more than controls.max_failures %d",
			job, len(failed), strings.Join(failed, ", "), c.MaxFailures)
	}
	if jq := s.jobQ[job]; jq != nil {
		for jq.Len() > 0 {
			s.notRun(s.r.states[heap.Pop(jq).(int)], s.jobStopped[job])
		}
	}
}

// RollingStop says that a serial job's rolling stopped: which instances
// failed, the limit, and which instances were then not run (plan order).
type RollingStop struct {
	Job         string   `json:"job"`
	Failed      []string `json:"failed"`
	MaxFailures int      `json:"max_failures"`
	NotRun      []string `json:"not_run,omitempty"`
}

// notRun decides an instance a stopped rolling does not start: skipped,
// with its dependents.
func (s *scheduler) notRun(st *instState, reason string) {
	for _, rs := range s.r.rolling {
		if rs.Job == st.in.JobID {
			rs.NotRun = append(rs.NotRun, st.in.ID)
		}
	}
	st.decided = true
	st.res.Status = StatusSkipped
	st.res.Reason = reason
	s.r.emitFinished(st)
	s.skipDependents(st, reason)
}
