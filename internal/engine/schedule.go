package engine

import (
	"container/heap"
	"context"
	"fmt"
)

// intHeap is a min-heap of plan indexes.
type intHeap []int

func (h intHeap) Len() int           { return len(h) }
func (h intHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h intHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *intHeap) Push(x any)        { *h = append(*h, x.(int)) }
func (h *intHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// hostEntry proposes a host whose queue head is idx; stale entries are
// dropped when popped.
type hostEntry struct{ idx, host int }

type hostHeap []hostEntry

func (h hostHeap) Len() int           { return len(h) }
func (h hostHeap) Less(i, j int) bool { return h[i].idx < h[j].idx }
func (h hostHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *hostHeap) Push(x any)        { *h = append(*h, x.(hostEntry)) }
func (h *hostHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// scheduler holds the ready queues. Ready instances wait in their host's
// queue; the next to start is the smallest head among hosts with a free
// slot, so the global order is plan order. An instance whose job is at its
// Serial limit waits in the job's queue until an instance of that job ends.
type scheduler struct {
	r          *run
	hostQ      []intHeap
	hostFree   []int
	hosts      hostHeap
	jobQ       map[string]*intHeap
	jobRunning map[string]int
	running    int
	done       chan int
	failed     bool
	stopReason string
	cancelled  bool // a gate's cancel option was chosen
	// jobFailed counts the failed instances of each serial job;
	// jobStopped holds, for a serial job past its controls.max_failures,
	// why its instances not started yet are not run (rolling.go).
	jobFailed  map[string][]string
	jobStopped map[string]string
}

func (r *run) schedule(ctx context.Context) {
	s := &scheduler{
		r:          r,
		hostQ:      make([]intHeap, len(r.hosts)),
		hostFree:   make([]int, len(r.hosts)),
		jobQ:       map[string]*intHeap{},
		jobRunning: map[string]int{},
		jobFailed:  map[string][]string{},
		jobStopped: map[string]string{},
		done:       make(chan int, len(r.states)),
	}
	for i := range s.hostFree {
		s.hostFree[i] = r.cfg.PerHost
	}
	// Instances decided before scheduling (fixed by an intervention) let
	// their dependents go; the rest start when their needs are done.
	for _, st := range r.states {
		if st.decided {
			s.settle(st)
		}
	}
	for _, st := range r.states {
		if !st.decided && st.pending == 0 {
			s.ready(st)
		}
	}
	for {
		if s.stopReason == "" {
			if ctx.Err() != nil {
				s.stopReason = r.interruptReason()
			} else if s.failed && r.cfg.FailFast {
				s.stopReason = "not started: fail-fast stopped the run after a failure"
			}
		}
		if s.stopReason == "" {
			s.dispatch()
		}
		if s.running == 0 {
			break
		}
		select {
		case i := <-s.done:
			s.finish(i)
		case <-ctx.Done():
			if s.stopReason == "" {
				s.stopReason = r.interruptReason()
			}
			// Keep draining completions; ctx.Done stays closed, so wait
			// on done alone from here.
			i := <-s.done
			s.finish(i)
		}
	}
	for _, st := range r.states {
		if !st.decided && !r.pendingForPause(st) {
			st.decided = true
			reason := s.stopReason
			if reason == "" {
				reason = "not started"
			}
			if s.stopReason != "" && r.interrupted() {
				st.res.Status = StatusPending
			} else {
				st.res.Status = StatusSkipped
			}
			st.res.Reason = reason
		}
	}
}

// ready queues an instance whose needs are all finished. Gates are decided
// at once; they take no slot.
func (s *scheduler) ready(st *instState) {
	if st.queued {
		return
	}
	st.queued = true
	if s.r.holdForPause(st) {
		return
	}
	if st.in.IsGate() {
		s.r.decideGate(st)
		s.settle(st)
		return
	}
	heap.Push(&s.hostQ[st.hostIdx], st.idx)
	heap.Push(&s.hosts, hostEntry{idx: s.hostQ[st.hostIdx][0], host: st.hostIdx})
}

// dispatch starts instances while slots are free.
func (s *scheduler) dispatch() {
	for s.running < s.r.cfg.Parallelism && s.hosts.Len() > 0 {
		e := heap.Pop(&s.hosts).(hostEntry)
		q := &s.hostQ[e.host]
		if s.hostFree[e.host] == 0 || q.Len() == 0 || (*q)[0] != e.idx {
			continue // stale proposal
		}
		i := heap.Pop(q).(int)
		if q.Len() > 0 {
			heap.Push(&s.hosts, hostEntry{idx: (*q)[0], host: e.host})
		}
		st := s.r.states[i]
		job := st.in.JobID
		if reason := s.jobStopped[job]; reason != "" {
			s.notRun(st, reason)
			continue
		}
		if serial := st.in.Job.Controls.Serial; serial > 0 && s.jobRunning[job] >= serial {
			jq := s.jobQ[job]
			if jq == nil {
				jq = &intHeap{}
				s.jobQ[job] = jq
			}
			heap.Push(jq, i)
			continue
		}
		s.running++
		s.hostFree[e.host]--
		s.jobRunning[job]++
		s.r.start(st)
		go func() {
			s.r.execute(st)
			s.done <- i
		}()
	}
}

// finish releases the slots of a finished instance and settles it.
func (s *scheduler) finish(i int) {
	st := s.r.states[i]
	s.running--
	s.hostFree[st.hostIdx]++
	job := st.in.JobID
	s.jobRunning[job]--
	s.countRollingFailure(st)
	if jq := s.jobQ[job]; jq != nil && jq.Len() > 0 && s.jobStopped[job] == "" {
		j := heap.Pop(jq).(int)
		h := s.r.states[j].hostIdx
		heap.Push(&s.hostQ[h], j)
		heap.Push(&s.hosts, hostEntry{idx: s.hostQ[h][0], host: h})
	}
	if q := s.hostQ[st.hostIdx]; q.Len() > 0 {
		heap.Push(&s.hosts, hostEntry{idx: q[0], host: st.hostIdx})
	}
	st.decided = true
	s.r.finishInstance(st)
	s.settle(st)
}

// settle propagates a decided instance to its dependents: finished ones
// count down their needs, anything else skips them (and theirs).
func (s *scheduler) settle(st *instState) {
	if st.res.Status == StatusFailed {
		s.failed = true
	}
	if st.res.Status.Finished() {
		s.release(st.dependents)
		if g := st.group; g != nil && g.complete() {
			s.release(g.dependents)
		}
		return
	}
	var reason string
	switch st.res.Status {
	case StatusFailed:
		reason = fmt.Sprintf("needs %s which failed", st.in.ID)
	case StatusWaiting:
		reason = fmt.Sprintf("needs gate %s which waits for a decision", st.in.ID)
	case StatusInterrupted:
		return // dependents stay pending: the next run resumes them
	case StatusCancelled:
		s.stopForCancel(st)
		reason = fmt.Sprintf("needs gate %s whose cancel option was chosen", st.in.ID)
	default:
		reason = st.res.Reason // a skipped need: keep the root cause
	}
	s.skipDependents(st, reason)
}

// release counts down one need of each dependent and queues those whose
// needs are all finished.
func (s *scheduler) release(dependents []int) {
	for _, d := range dependents {
		ds := s.r.states[d]
		ds.pending--
		if ds.pending == 0 && !ds.decided {
			s.ready(ds)
		}
	}
}

// skipDependents skips what needs st, directly or through the group it is
// a member of, and what needs those, with reason. A group's dependents are
// skipped once, at its first member that does not finish.
func (s *scheduler) skipDependents(st *instState, reason string) {
	var stack []int
	push := func(st *instState) {
		stack = append(stack, st.dependents...)
		if g := st.group; g != nil && !g.broken {
			g.broken = true
			stack = append(stack, g.dependents...)
		}
	}
	push(st)
	for len(stack) > 0 {
		d := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		ds := s.r.states[d]
		if ds.decided {
			continue
		}
		ds.decided = true
		ds.res.Status = StatusSkipped
		ds.res.Reason = reason
		s.r.emitFinished(ds)
		push(ds)
	}
}
