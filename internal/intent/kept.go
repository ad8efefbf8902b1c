package intent

import (
	"slices"
	"strings"

	"github.com/intentops/terraform-provider-cp/internal/engine"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// What the state of a resource keeps of the job instances its completed
// operations ran, so that a refresh checks all of it again, not only the
// last operation's:
//
//   - KeepEvidence: the evidence of every job instance (job id and host,
//     its instance id) an operation ran, the newest operation's for an
//     instance that several ran;
//   - DropStale: an earlier operation's checks of an instance whose
//     idempotency key in the resource's own plan changed go;
//   - DropLeft, DropLeftArtifacts: what belonged to a host that left (a
//     cluster's remove_node, a scenario's uninstall_node) leaves with it:
//     its evidence and its node-scoped artifacts; cluster-scoped
//     artifacts stay, whichever host produced them.

// KeepEvidence is prior with the evidence of each run after it, in
// order: the checks of an instance a run recorded replace every check
// prior held for that instance (newest wins, even when the job's checks
// changed), where the first of them was; an instance no earlier run
// recorded comes after. The checks of instances a run did not record are
// kept as they were.
func KeepEvidence(prior []engine.InstanceEvidence, runs ...[]engine.InstanceEvidence) []engine.InstanceEvidence {
	out := slices.Clone(prior)
	for _, run := range runs {
		if len(run) == 0 {
			continue
		}
		byInstance := map[string][]engine.InstanceEvidence{}
		var order []string
		for _, e := range run {
			if _, seen := byInstance[e.Instance]; !seen {
				order = append(order, e.Instance)
			}
			byInstance[e.Instance] = append(byInstance[e.Instance], e)
		}
		next := make([]engine.InstanceEvidence, 0, len(out)+len(run))
		placed := map[string]bool{}
		for _, e := range out {
			newer, replaced := byInstance[e.Instance]
			if !replaced {
				next = append(next, e)
				continue
			}
			if !placed[e.Instance] {
				next = append(next, newer...)
				placed[e.Instance] = true
			}
		}
		for _, id := range order {
			if !placed[id] {
				next = append(next, byInstance[id]...)
			}
		}
		out = next
	}
	return out
}

// DropStale is evs without the checks of the instances whose
// idempotency key in the resource's own plan changed from before to
// after an operation (before and after map instance ids to keys), or
// that after no longer holds: what such a check proved was for a plan
// that is no longer the resource's (an upgrade changed the version a
// create's job rendered; a host left), so a refresh must not check it
// again against the new one. Checks of instances before does not hold
// (a day-2 job's) stay.
func DropStale(evs []engine.InstanceEvidence, before, after map[string]string) []engine.InstanceEvidence {
	if before == nil || after == nil {
		return evs
	}
	return slices.DeleteFunc(slices.Clone(evs), func(e engine.InstanceEvidence) bool {
		k, was := before[e.Instance]
		if !was {
			return false
		}
		n, is := after[e.Instance]
		return !is || n != k
	})
}

// DropLeft is evs without the checks of the hosts that left: those run
// on one of them, and those of an instance for one of them (job[host])
// wherever it ran (a job another host runs for it, such as delete-node).
func DropLeft(evs []engine.InstanceEvidence, left []string) []engine.InstanceEvidence {
	if len(left) == 0 {
		return evs
	}
	return slices.DeleteFunc(slices.Clone(evs), func(e engine.InstanceEvidence) bool {
		return slices.Contains(left, e.Host) || slices.ContainsFunc(left, func(h string) bool { return strings.HasSuffix(e.Instance, "["+h+"]") })
	})
}

// DropLeftArtifacts is arts without the node-scoped artifacts of the
// hosts that left; cluster-scoped ones stay. An artifact is node-scoped
// when the job that produced it (its producer's job, from the packs of
// ops, or the job of a planned instance of ops) declares it with scope
// node; an artifact whose declaration is not found stays.
func DropLeftArtifacts(arts []protocol.Artifact, ops []Op, left []string) []protocol.Artifact {
	if len(left) == 0 {
		return arts
	}
	scoped := nodeScoped(ops)
	return slices.DeleteFunc(slices.Clone(arts), func(a protocol.Artifact) bool {
		return slices.Contains(left, a.Host) && scoped(a)
	})
}

// nodeScoped says whether an artifact is declared with scope node by the
// job that produced it.
func nodeScoped(ops []Op) func(protocol.Artifact) bool {
	type decl struct{ job, artifact string }
	scope := map[decl]protocol.Scope{}
	byInstance := map[string]string{} // planned instance id -> its job id
	add := func(j *protocol.Job) {
		if j == nil {
			return
		}
		for _, a := range j.Outputs.Artifacts {
			scope[decl{j.ID, a.ID}] = a.Scope.Normal()
		}
	}
	for _, op := range ops {
		if op.Composed == nil {
			continue
		}
		if p := op.Composed.Pack; p != nil {
			for _, id := range protocol.SortedKeys(p.Jobs) {
				add(p.Jobs[id])
			}
		}
		if op.Composed.Plan == nil {
			continue
		}
		for _, in := range op.Composed.Plan.Instances {
			if in.Job != nil {
				add(in.Job)
				byInstance[in.ID] = in.Job.ID
			}
		}
	}
	return func(a protocol.Artifact) bool {
		job, ok := byInstance[a.Producer]
		if !ok {
			job = producerJob(a)
		}
		return scope[decl{job, a.ID}] == protocol.ScopeNode
	}
}

// producerJob is the job id of an artifact's producer: its instance id
// without the "[host]" of a per-host instance.
func producerJob(a protocol.Artifact) string {
	if i := strings.LastIndexByte(a.Producer, '['); i > 0 && strings.HasSuffix(a.Producer, "]") {
		return a.Producer[:i]
	}
	return a.Producer
}
