package provider

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/intentops/terraform-provider-cp/internal/engine"
	"github.com/intentops/terraform-provider-cp/internal/planner"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// Conversions between engine results / plans and the computed list
// attributes the intent resources share.

func strList(v []string) types.List {
	elems := make([]attr.Value, 0, len(v))
	for _, s := range v {
		elems = append(elems, types.StringValue(s))
	}
	return types.ListValueMust(types.StringType, elems)
}

func strMap(m map[string]string) types.Map {
	elems := map[string]attr.Value{}
	for k, v := range m {
		elems[k] = types.StringValue(v)
	}
	return types.MapValueMust(types.StringType, elems)
}

func ts(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// planSummary is the simple views of the operations' plans, one after
// another.
func planSummary(ops []intentOp) string {
	var sb strings.Builder
	for i, op := range ops {
		if i > 0 {
			sb.WriteString("\n")
		}
		sb.WriteString(planner.RenderSimple(op.Composed.Plan))
	}
	return sb.String()
}

func operationObject(action string, op *protocol.Operation, plan *protocol.Plan, res *engine.Result) types.Object {
	phasesTotal := len(plan.Stages)
	done, run, satisfied := map[string]bool{}, 0, 0
	stageLeft := map[string]int{}
	for _, in := range res.Instances {
		switch in.Status {
		case engine.StatusDone, engine.StatusFixed:
			run++
		case engine.StatusSatisfied:
			satisfied++
		}
		if !(in.Status == engine.StatusDone || in.Status == engine.StatusSatisfied || in.Status == engine.StatusFixed) {
			stageLeft[in.Stage]++
		}
	}
	for _, s := range plan.Stages {
		if stageLeft[s.ID] == 0 {
			done[s.ID] = true
		}
	}
	var timeline []string
	// The plan patches applied, with author, reason and approver.
	for _, pp := range plan.Patches {
		approver := pp.Approval.ApprovedBy
		if approver == "" {
			approver = "(no approval required)"
		}
		timeline = append(timeline, fmt.Sprintf("plan patch %s by %s, approved by %s: %s", orDash(pp.ID), pp.Author, approver, pp.Reason))
	}
	var started, finished time.Time
	for _, e := range op.Timeline {
		if started.IsZero() {
			started = e.At
		}
		finished = e.At
		line := ts(e.At) + " " + e.Event
		if e.Status != "" {
			line += " " + string(e.Status)
		}
		if e.Subject != "" {
			line += " " + e.Subject
		}
		if e.Detail != "" {
			line += ": " + e.Detail
		}
		timeline = append(timeline, line)
	}
	return types.ObjectValueMust(operationType.AttrTypes, map[string]attr.Value{
		"id": types.StringValue(op.ID), "action": types.StringValue(action), "template": types.StringValue(plan.Display()),
		"status": types.StringValue(string(op.Status)), "phases_done": types.Int64Value(int64(len(done))),
		"phases_total": types.Int64Value(int64(phasesTotal)), "jobs_run": types.Int64Value(int64(run)),
		"jobs_satisfied": types.Int64Value(int64(satisfied)), "started_at": types.StringValue(ts(started)),
		"finished_at": types.StringValue(ts(finished)), "timeline": strList(timeline),
	})
}

func artifactObject(a protocol.Artifact) attr.Value {
	value := a.Value
	if a.Sensitivity == protocol.SensitivitySecret {
		value = ""
	}
	return types.ObjectValueMust(artifactType.AttrTypes, map[string]attr.Value{
		"id": types.StringValue(a.ID), "host": types.StringValue(a.Host), "sensitivity": types.StringValue(string(a.Sensitivity)), "value": types.StringValue(value),
		"ref": types.StringValue(a.Ref), "fingerprint": types.StringValue(a.Fingerprint), "expires_at": types.StringValue(ts(a.ExpiresAt)),
		"producer": types.StringValue(a.Producer),
	})
}

func artifactsList(arts []protocol.Artifact) types.List {
	elems := make([]attr.Value, 0, len(arts))
	for _, a := range arts {
		elems = append(elems, artifactObject(a))
	}
	return types.ListValueMust(artifactType, elems)
}

// artifactsFromList reads artifacts back from state.
func artifactsFromList(l types.List) []protocol.Artifact {
	if l.IsNull() || l.IsUnknown() {
		return nil
	}
	var out []protocol.Artifact
	for _, v := range l.Elements() {
		o, ok := v.(types.Object)
		if !ok {
			continue
		}
		at := o.Attributes()
		get := func(k string) string {
			if s, ok := at[k].(types.String); ok {
				return s.ValueString()
			}
			return ""
		}
		a := protocol.Artifact{ID: get("id"), Sensitivity: protocol.Sensitivity(get("sensitivity")), Value: get("value"),
			Ref: get("ref"), Fingerprint: get("fingerprint"), Producer: get("producer")}
		if e := get("expires_at"); e != "" {
			a.ExpiresAt, _ = time.Parse(time.RFC3339, e)
		}
		a.Host = get("host")
		if host, _, ok := protocol.SplitRef(a.Ref); ok && a.Host == "" {
			// Written before artifacts kept their host.
			a.Host = host
		}
		out = append(out, a)
	}
	return out
}

// evidenceValue is the evidence attribute holding evs, folded by job
// group: the checks of one id on a job's instances that agree (passed
// and observed the same) are one entry whose instance is "JOB[*]" and
// whose host lists the hosts as ranges (planner.HostRanges), with the
// latest time any of them was checked. Every other check is an entry of
// its own. Entries keep the order in which their first check comes in
// evs. Evidence then grows with the jobs, not the hosts; evidenceRecords
// reads it back.
func evidenceValue(evs []engine.InstanceEvidence) types.List {
	type fold struct {
		group, id, observed string
		passed              bool
	}
	var order []fold
	members := map[fold][]engine.InstanceEvidence{}
	for _, e := range evs {
		f := fold{group: "\x00" + e.Instance, id: e.ID, observed: e.Observed, passed: e.Passed}
		if g, ok := strings.CutSuffix(e.Instance, "["+e.Host+"]"); ok && e.Host != "" {
			f.group = g
		}
		if _, seen := members[f]; !seen {
			order = append(order, f)
		}
		members[f] = append(members[f], e)
	}
	elems := make([]attr.Value, 0, len(order))
	add := func(instance, host string, e engine.InstanceEvidence, at time.Time) {
		elems = append(elems, types.ObjectValueMust(evidenceType.AttrTypes, map[string]attr.Value{
			"instance": types.StringValue(instance), "host": types.StringValue(host), "id": types.StringValue(e.ID),
			"passed": types.BoolValue(e.Passed), "observed": types.StringValue(e.Observed), "checked_at": types.StringValue(ts(at)),
		}))
	}
	for _, f := range order {
		ms := members[f]
		hosts := make([]string, len(ms))
		latest := ms[0].CheckedAt
		for i, e := range ms {
			hosts[i] = e.Host
			if e.CheckedAt.After(latest) {
				latest = e.CheckedAt
			}
		}
		ranges := planner.HostRanges(hosts)
		if back, ok := planner.ParseHostRanges(ranges); len(ms) < 2 || strings.HasPrefix(f.group, "\x00") || !ok || len(back) != len(ms) {
			for _, e := range ms { // one check, no job group, or hosts the ranges cannot carry
				add(e.Instance, e.Host, e, e.CheckedAt)
			}
			continue
		}
		add(protocol.GroupNeed(f.group), ranges, ms[0], latest)
	}
	return types.ListValueMust(evidenceType, elems)
}

// evidenceRecords reads the evidence attribute back into one record per
// check: an entry "JOB[*]" is a record for JOB[host] on each of its
// hosts, at the entry's time. It is how the recorded evidence is read
// (recordedEvidence).
func evidenceRecords(l types.List) []engine.InstanceEvidence {
	if l.IsNull() || l.IsUnknown() {
		return nil
	}
	var out []engine.InstanceEvidence
	for _, v := range l.Elements() {
		o, ok := v.(types.Object)
		if !ok {
			continue
		}
		at := o.Attributes()
		str := func(k string) string {
			if s, ok := at[k].(types.String); ok {
				return s.ValueString()
			}
			return ""
		}
		e := engine.InstanceEvidence{Instance: str("instance")}
		e.ID, e.Host, e.Observed = str("id"), str("host"), str("observed")
		if b, ok := at["passed"].(types.Bool); ok {
			e.Passed = b.ValueBool()
		}
		e.CheckedAt, _ = time.Parse(time.RFC3339, str("checked_at"))
		group, isGroup := protocol.NeedGroup(e.Instance)
		hosts, ok := planner.ParseHostRanges(e.Host)
		if !isGroup || !ok {
			out = append(out, e)
			continue
		}
		for _, h := range hosts {
			m := e
			m.Instance, m.Host = group+"["+h+"]", h
			out = append(out, m)
		}
	}
	return out
}

func capabilitiesList(caps []protocol.Capability) types.List {
	sort.Slice(caps, func(i, j int) bool { return caps[i].Key < caps[j].Key })
	elems := make([]attr.Value, 0, len(caps))
	for _, c := range caps {
		elems = append(elems, types.ObjectValueMust(capabilityType.AttrTypes, map[string]attr.Value{
			"key": types.StringValue(c.Key), "attributes": strMap(c.Attributes),
		}))
	}
	return types.ListValueMust(capabilityType, elems)
}
