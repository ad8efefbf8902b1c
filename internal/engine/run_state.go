package engine

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// instState is the engine's view of one instance during a run.
type instState struct {
	idx        int
	in         *protocol.JobInstance
	host       string // the host it is for: CP_HOST ("" for gates)
	exec       string // the host it runs on: host, or the plan's RunOn
	hostIdx    int    // index of exec in run.hosts
	needs      []int
	dependents []int
	pending    int  // needs not finished yet
	decided    bool // status is final for this run
	queued     bool // handed to the scheduler's queues
	res        InstanceResult
}

// where names the host an instance runs on for messages: "master-1", or
// "master-1 for worker-3" when it runs on another host than its own.
func (st *instState) where() string {
	if st.exec == st.host {
		return st.host
	}
	return st.exec + " for " + st.host
}

// run is one execution of a plan.
type run struct {
	e      *Engine
	cfg    *Config
	plan   *protocol.Plan
	in     RunInput
	lay    layout
	em     *emitter
	opMu   sync.Mutex
	op     *protocol.Operation
	states []*instState
	byID   map[string]*instState
	hosts  []string // host index -> name
	conns  *connCache
	ships  *shipCache
	preps  *prepCache
	// commits holds final markers until the next command on their host.
	commits    commitQueue
	scriptMu   sync.Mutex
	scriptMemo map[string]*jobScript // pack + script path -> script
	store      *artifactStore
	// cmdCtx is the context of commands: cancelled GracePeriod after the
	// run's context is.
	cmdCtx context.Context
	// runCtx is the run's own context (cancelled by the caller).
	runCtx context.Context
	// interrupted reports whether the run's context is cancelled.
	interrupted func() bool
	resMu       sync.Mutex // guards states[*].res written by workers
	interv      []InterventionResult
	// begin is when the run started (wall clock, for a bare deadline).
	begin time.Time
	// stops holds what stopping the running jobs did per host.
	stopMu sync.Mutex
	stops  []string
	// rolling holds the serial jobs whose rolling stopped (rolling.go).
	rolling []*RollingStop
	// timedOut is set by endOperation when the run's time limit ran out.
	timedOut  *TimedOut
	pauseHeld bool // an instance was held by StopAfterStage (pause.go)
}

// buildStates indexes the plan and checks that it is runnable: unique ids,
// known needs, no cycle, each instance a job or a gate, a host for every job.
func (r *run) buildStates() error {
	r.byID = make(map[string]*instState, len(r.plan.Instances))
	hostIdx := map[string]int{}
	for i, in := range r.plan.Instances {
		if in == nil {
			return fmt.Errorf("plan %s: instance %d is nil", r.plan.ID, i)
		}
		if _, dup := r.byID[in.ID]; dup {
			return fmt.Errorf("plan %s: instance id %q is used twice", r.plan.ID, in.ID)
		}
		if in.Job == nil && in.Gate == nil {
			return fmt.Errorf("plan %s: instance %s has neither a job contract nor a gate", r.plan.ID, in.ID)
		}
		st := &instState{idx: i, in: in, hostIdx: -1}
		st.res = InstanceResult{ID: in.ID, Job: in.JobID, Stage: in.Stage, Status: StatusPending}
		if !in.IsGate() {
			h, err := chooseHost(r.plan, in)
			if err != nil {
				return err
			}
			st.host, st.exec = h, h
			st.res.Host = h
			if in.RunOn != "" {
				if _, ok := r.plan.Intent.Host(in.RunOn); !ok && len(r.plan.Intent.Hosts) > 0 {
					return fmt.Errorf("plan %s: instance %s runs on host %q, which is not a host of the intent", r.plan.ID, in.ID, in.RunOn)
				}
				st.exec = in.RunOn
			}
			hi, ok := hostIdx[st.exec]
			if !ok {
				hi = len(r.hosts)
				hostIdx[st.exec] = hi
				r.hosts = append(r.hosts, st.exec)
			}
			st.hostIdx = hi
		}
		r.states = append(r.states, st)
		r.byID[in.ID] = st
	}
	var groups map[string][]*instState
	for _, st := range r.states {
		for _, n := range st.in.Needs {
			deps, err := r.needStates(n, &groups)
			if err != nil {
				return fmt.Errorf("plan %s: instance %s %w", r.plan.ID, st.in.ID, err)
			}
			for _, dep := range deps {
				if dep == st {
					return fmt.Errorf("plan %s: instance %s needs itself", r.plan.ID, st.in.ID)
				}
				st.needs = append(st.needs, dep.idx)
				dep.dependents = append(dep.dependents, st.idx)
			}
		}
		st.pending = len(st.needs)
	}
	return r.checkAcyclic()
}

// checkAcyclic runs Kahn's algorithm and names an instance on a cycle.
func (r *run) checkAcyclic() error {
	indeg := make([]int, len(r.states))
	queue := make([]int, 0, len(r.states))
	for i, st := range r.states {
		indeg[i] = len(st.needs)
		if indeg[i] == 0 {
			queue = append(queue, i)
		}
	}
	seen := 0
	for len(queue) > 0 {
		i := queue[0]
		queue = queue[1:]
		seen++
		for _, d := range r.states[i].dependents {
			indeg[d]--
			if indeg[d] == 0 {
				queue = append(queue, d)
			}
		}
	}
	if seen == len(r.states) {
		return nil
	}
	for i, d := range indeg {
		if d > 0 {
			return fmt.Errorf("plan %s: the needs form a cycle through instance %s", r.plan.ID, r.states[i].in.ID)
		}
	}
	return nil
}

// chooseHost returns the host an instance runs on: its own, else the first
// master of the intent, else the first host of the intent.
func chooseHost(p *protocol.Plan, in *protocol.JobInstance) (string, error) {
	if in.Host != "" {
		return in.Host, nil
	}
	if m := p.Intent.HostsWithRole(protocol.RoleMaster); len(m) > 0 {
		return m[0].Name, nil
	}
	if len(p.Intent.Hosts) > 0 {
		return p.Intent.Hosts[0].Name, nil
	}
	return "", fmt.Errorf("plan %s: instance %s has no host and the intent lists no host to run it on", p.ID, in.ID)
}
