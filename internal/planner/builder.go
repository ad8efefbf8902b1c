package planner

import (
	"github.com/intentops/terraform-provider-cp/internal/capability"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// stage is a plan stage under construction, with its units in order.
type stage struct {
	id, title string
	units     []*unit
}

// unit is one job (or gate) of the plan before and after expansion: all
// instances of a job share it.
type unit struct {
	key    string // prefix + job id, unique in the plan
	prefix string // sub-operation prefix, "" for the main operation
	job    *protocol.Job
	gate   *protocol.Gate
	pack   *protocol.ScenarioPack
	stage  *stage
	origin protocol.Origin
	// because says why a non-template unit is here.
	because string
	subOp   string
	// base holds the pack-level parameter values the unit starts from.
	base map[string]string
	// params are shared by all instances of the unit (read-only).
	params map[string]string
	// override holds parameters a patch sets for this job.
	override map[string]string
	insts    []*node
	retry    bool
}

// node is one job instance (or gate node) in the graph.
type node struct {
	idx   int32
	ji    *protocol.JobInstance
	u     *unit
	needs []int32
	// virtual marks a barrier: one node standing for all providers of a
	// cluster-scoped input, spliced out after transitive reduction unless
	// it is kept as group needs.
	virtual bool
	// group, on a kept barrier, is what its dependents write for it:
	// group needs and instance ids, sorted.
	group []string
}

// spliced reports whether n is a barrier that splice replaces with its
// needs.
func (n *node) spliced() bool { return n.virtual && n.group == nil }

// provKey indexes providers of a capability or artifact, per host or ""
// for all hosts.
type provKey struct {
	kind byte // 'c' capability, 'a' artifact
	key  string
	host string
}

// builder holds the state of one Build call.
type builder struct {
	in      Input
	cluster string
	stages  []*stage
	units   map[string]*unit
	nodes   []*node
	// provides maps (kind, key, host) to provider nodes; host "" holds all.
	provides map[provKey][]*node
	// unitProvides maps (kind, key, prefix) to units that provide it even
	// when they expanded to no instance.
	unitProvides map[provKey][]*unit
	decisions    map[string]*capability.Decision
	// decisionNodes are the nodes a consumer of a created or gated
	// capability depends on.
	decisionNodes map[string][]*node
	// removed job keys with the change that removed them.
	removed     map[string]string
	removedJobs []*unit
	// orders are ordering edits applied after contract edges, in order.
	orders  []order
	retries []retry
	changes []string
	subOps  []protocol.SubOperation
	// barriers are the virtual nodes of cluster-scoped inputs, by key.
	barriers map[provKey]*node
	// consumed records decisions some job requirement used.
	consumed map[string]bool
	// missingParams are missing_input parameters without a value.
	missingParams []missingParam
	plan          *protocol.Plan
}

// order says that unit x runs after unit y, and y's dependents wait for x.
type order struct {
	x, y   string
	rewire bool
	source string
}

type retry struct{ job, source string }

func (b *builder) addNode(u *unit, ji *protocol.JobInstance) *node {
	n := &node{idx: int32(len(b.nodes)), ji: ji, u: u}
	b.nodes = append(b.nodes, n)
	u.insts = append(u.insts, n)
	return n
}

// index records what a unit's instances provide.
func (b *builder) index(u *unit) {
	if u.job == nil {
		return
	}
	for _, c := range u.job.Outputs.Provides.Capabilities {
		b.indexOne('c', c.Key, u)
	}
	for _, a := range u.job.Outputs.Artifacts {
		b.indexOne('a', a.ID, u)
	}
}

func (b *builder) indexOne(kind byte, key string, u *unit) {
	pk := provKey{kind: kind, key: key}
	b.unitProvides[pk] = append(b.unitProvides[pk], u)
	for _, n := range u.insts {
		b.provides[pk] = append(b.provides[pk], n)
		if n.ji.Host != "" {
			hk := provKey{kind: kind, key: key, host: n.ji.Host}
			b.provides[hk] = append(b.provides[hk], n)
		}
	}
}

func (b *builder) stageByID(id string) *stage {
	for _, s := range b.stages {
		if s.id == id {
			return s
		}
	}
	return nil
}

// placeBefore inserts unit u into stage s before unit before (or at the end).
func placeBefore(s *stage, u *unit, before *unit) {
	u.stage = s
	for i, x := range s.units {
		if x == before {
			s.units = append(s.units[:i], append([]*unit{u}, s.units[i:]...)...)
			return
		}
	}
	s.units = append(s.units, u)
}

// placeAfter inserts unit u into the stage of after, right behind it.
func placeAfter(u *unit, after *unit) {
	s := after.stage
	u.stage = s
	for i, x := range s.units {
		if x == after {
			s.units = append(s.units[:i+1], append([]*unit{u}, s.units[i+1:]...)...)
			return
		}
	}
	s.units = append(s.units, u)
}

func (b *builder) removeUnit(u *unit) {
	s := u.stage
	for i, x := range s.units {
		if x == u {
			s.units = append(s.units[:i], s.units[i+1:]...)
			break
		}
	}
	delete(b.units, u.key)
}
