package planner

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// resolveAll derives contract edges for every instance, inserting the
// producers of missing inputs; inserted instances are resolved in turn.
func (b *builder) resolveAll() error {
	for i := 0; i < len(b.nodes); i++ {
		n := b.nodes[i]
		if n.u.job == nil {
			continue
		}
		for _, r := range n.u.job.Inputs.Requires.Capabilities {
			if err := b.needInput(n, 'c', r.Key, r.Scope.Normal(), r.Optional, true); err != nil {
				return err
			}
		}
		for _, a := range n.u.job.Inputs.Requires.Artifacts {
			if err := b.needInput(n, 'a', a.ID, a.Scope.Normal(), a.Optional, true); err != nil {
				return err
			}
		}
	}
	for pk, bn := range b.barriers {
		for _, p := range b.provides[pk] {
			bn.needs = append(bn.needs, p.idx)
		}
	}
	return nil
}

// barrier returns the virtual node standing for all providers of pk; its
// needs are filled once every provider is known.
func (b *builder) barrier(pk provKey) *node {
	if bn, ok := b.barriers[pk]; ok {
		return bn
	}
	u := &unit{key: "#" + kindName(pk.kind) + ":" + pk.key}
	bn := &node{idx: int32(len(b.nodes)), u: u, virtual: true, ji: &protocol.JobInstance{ID: u.key}}
	b.nodes = append(b.nodes, bn)
	b.barriers[pk] = bn
	return bn
}

// selfProvides reports whether unit u provides the input it requires.
func (b *builder) selfProvides(u *unit, kind byte, key string) bool {
	if kind == 'c' {
		_, ok := u.job.Provided(key)
		return ok
	}
	_, ok := u.job.ProducesArtifact(key)
	return ok
}

func kindName(kind byte) string {
	if kind == 'a' {
		return "artifact"
	}
	return "capability"
}

// needInput makes n depend on the providers of a capability ('c') or an
// artifact ('a'), or checks that a decision or the state satisfies it, or
// inserts a producer from the job library when insert is set.
func (b *builder) needInput(n *node, kind byte, key string, scope protocol.Scope, optional, insert bool) error {
	host := n.ji.Host
	perHost := scope == protocol.ScopeNode && host != ""
	pk := provKey{kind: kind, key: key}
	if perHost {
		pk.host = host
	}
	if provs := b.provides[pk]; len(provs) > 1 && !perHost && !b.selfProvides(n.u, kind, key) {
		// Many providers, many consumers: one barrier node keeps the edge
		// count linear; it is spliced out after transitive reduction.
		n.needs = append(n.needs, b.barrier(pk).idx)
		return nil
	}
	added := false
	for _, p := range b.provides[pk] {
		if p.u != n.u {
			n.needs = append(n.needs, p.idx)
			added = true
		}
	}
	if added {
		return nil
	}
	if !perHost {
		for _, u := range b.unitProvides[provKey{kind: kind, key: key}] {
			if u != n.u && len(u.insts) == 0 {
				return nil // provided by a job that has no host to run on here (e.g. other_masters of one master)
			}
		}
	}
	if kind == 'c' {
		if d := b.decisions[key]; d != nil {
			b.consumed[key] = true
			for _, p := range b.decisionNodes[key] {
				n.needs = append(n.needs, p.idx)
			}
			return nil
		}
	}
	absent := b.stateAbsence(kind, key, host, perHost)
	if absent == "" || optional {
		return nil
	}
	if !insert {
		return b.missing(n, kind, key, scope, absent, nil)
	}
	because := fmt.Sprintf("%s required by %s %s", key, n.ji.ID, absent)
	considered, err := b.insertProducer(n, kind, key, perHost, because)
	if err != nil {
		return err
	}
	if considered != nil {
		return b.missing(n, kind, key, scope, absent, considered)
	}
	return b.needInput(n, kind, key, scope, optional, false)
}

// stateAbsence returns "" when the resource state satisfies the input, or
// says why it does not ("is absent from the cluster state", "expired at ...").
func (b *builder) stateAbsence(kind byte, key, host string, perHost bool) string {
	if kind == 'c' {
		if perHost {
			if slices.Contains(b.in.State.NodeCapabilities[host], key) {
				return ""
			}
			return "is absent from the state of host " + host
		}
		if b.stateHasCapability(key) {
			return ""
		}
		return "is not provided by the plan, a capability decision or the cluster state"
	}
	var expired time.Time
	for _, a := range b.in.State.Artifacts {
		if a.ID != key || perHost && a.Host != host {
			continue
		}
		if !a.Expired(b.in.Now) {
			return ""
		}
		if a.ExpiresAt.After(expired) {
			expired = a.ExpiresAt
		}
	}
	if !expired.IsZero() {
		return fmt.Sprintf("expired at %s (now %s)", expired.UTC().Format(time.RFC3339), b.in.Now.UTC().Format(time.RFC3339))
	}
	if perHost {
		return "is absent from the state of host " + host
	}
	return "is absent from the cluster state"
}

func (b *builder) stateHasCapability(key string) bool {
	for _, c := range b.in.State.Capabilities {
		if c.Key == key {
			return true
		}
	}
	return false
}

func (b *builder) stateHasArtifact(id string) bool {
	for _, a := range b.in.State.Artifacts {
		if a.ID == id && !a.Expired(b.in.Now) {
			return true
		}
	}
	return false
}

// insertProducer inserts the first library job (by id) of n's pack that
// produces the input and has an instance where n needs it. It returns the
// candidates it considered when none fits.
func (b *builder) insertProducer(n *node, kind byte, key string, perHost bool, because string) ([]string, error) {
	p := n.u.pack
	var considered []string
	for _, id := range protocol.SortedKeys(p.Jobs) {
		j := p.Jobs[id]
		if kind == 'c' {
			if _, ok := j.Provided(key); !ok {
				continue
			}
		} else if _, ok := j.ProducesArtifact(key); !ok {
			continue
		}
		ukey := n.u.prefix + id
		if by, ok := b.removed[ukey]; ok {
			considered = append(considered, id+" (removed: "+by+")")
			continue
		}
		if _, ok := b.units[ukey]; ok {
			considered = append(considered, id+" (already in the plan, no instance on "+orCluster(n.ji.Host)+")")
			continue
		}
		hosts, err := hostsFor(&b.in.Intent, j.Scope.Expand)
		if err != nil {
			return nil, fmt.Errorf("job %s: %w", ukey, err)
		}
		if len(hosts) == 0 || perHost && !slices.Contains(hosts, n.ji.Host) {
			considered = append(considered, fmt.Sprintf("%s (scope %s has no instance on %s)", id, j.Scope.Expand, orCluster(n.ji.Host)))
			continue
		}
		u := &unit{key: ukey, prefix: n.u.prefix, job: j, pack: p, origin: protocol.OriginInserted,
			because: because, subOp: n.u.subOp, base: n.u.base}
		placeBefore(n.u.stage, u, n.u)
		b.units[ukey] = u
		if err := b.expand(u); err != nil {
			return nil, err
		}
		b.index(u)
		return nil, nil
	}
	if considered == nil {
		considered = []string{"no job of the library produces it"}
	}
	return considered, nil
}

func orCluster(h string) string {
	if h == "" {
		return "the cluster"
	}
	return h
}

// missing builds the error for an input nothing can satisfy.
func (b *builder) missing(n *node, kind byte, key string, scope protocol.Scope, absent string, considered []string) error {
	decided := protocol.SortedKeys(b.decisions)
	if len(decided) == 0 {
		decided = []string{"none"}
	}
	lib := "library of " + n.u.pack.Ref() + ": " + strings.Join(considered, ", ")
	if considered == nil {
		lib = "library of " + n.u.pack.Ref() + ": the inserted producer has no instance on " + orCluster(n.ji.Host)
	}
	return fmt.Errorf("%w: job %s requires %s %s (scope %s), which %s; considered: producers in the plan (none), capability decisions (%s), %s; add it to the resource state, bind a provider, or add a job that produces it",
		ErrMissingInput, n.ji.ID, kindName(kind), key, scope, absent, strings.Join(decided, ", "), lib)
}
