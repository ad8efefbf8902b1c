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
	host       string       // the host it is for: CP_HOST ("" for gates)
	exec       string       // the host it runs on: host, or the plan's RunOn
	hostIdx    int          // index of exec in run.hosts
	needs      []int        // plan indexes of the instances it needs by id
	groups     []*needGroup // the job groups it needs whole (group needs)
	dependents []int        // plan indexes of the instances needing it by id
	group      *needGroup   // the group it is a member of, when some instance needs that group whole
	pending    int          // needs and group needs not finished yet
	decided    bool         // status is final for this run
	queued     bool         // handed to the scheduler's queues
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
	// groups holds the job groups needed whole, by key; groupMembers
	// every job group's members, built at the first group need
	// (need_groups.go).
	groups       map[string]*needGroup
	groupMembers map[string][]int
	// hostEnvs holds what the intent puts in every instance's
	// environment, built at the first (env.go).
	hostEnvMu sync.Mutex
	hostEnvs  *hostEnvs
	hosts     []string // host index -> name
	conns     *connCache
	ships     *shipCache
	preps     *prepCache
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
	for _, st := range r.states {
		for _, n := range st.in.Needs {
			if err := r.addNeed(st, n); err != nil {
				return fmt.Errorf("plan %s: instance %s %w", r.plan.ID, st.in.ID, err)
			}
		}
		st.pending = len(st.needs) + len(st.groups)
	}
	return r.checkAcyclic()
}

// checkAcyclic runs Kahn's algorithm and names an instance on a cycle. A
// group needed whole is a node of its own, reached when its last member is.
func (r *run) checkAcyclic() error {
	indeg := make([]int, len(r.states))
	left := make(map[*needGroup]int, len(r.groups))
	for _, g := range r.groups {
		left[g] = len(g.members)
	}
	queue := make([]int, 0, len(r.states))
	for i, st := range r.states {
		indeg[i] = len(st.needs) + len(st.groups)
		if indeg[i] == 0 {
			queue = append(queue, i)
		}
	}
	release := func(ds []int) {
		for _, d := range ds {
			indeg[d]--
			if indeg[d] == 0 {
				queue = append(queue, d)
			}
		}
	}
	seen := 0
	for len(queue) > 0 {
		i := queue[0]
		queue = queue[1:]
		seen++
		st := r.states[i]
		release(st.dependents)
		if g := st.group; g != nil {
			left[g]--
			if left[g] == 0 {
				release(g.dependents)
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
