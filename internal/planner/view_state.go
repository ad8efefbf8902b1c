package planner

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// ViewState is what the plan views show that is decided outside the
// planner: the state of each gate (approvals are evaluated against the
// actor and its roles by the caller), the instances that apply will skip
// because their evidence still holds, and those it runs again as a
// repair. Every other job instance will run.
type ViewState struct {
	// Gates holds the state of gates by gate instance id; a gate not
	// listed is waiting, with no decision given.
	Gates map[string]GateState
	// Satisfied lists instance ids whose idempotency key completed on
	// their host and whose evidence still holds: apply skips them.
	Satisfied map[string]bool
	// Repair holds, by instance id, why apply runs a completed instance
	// again: the evidence check that failed when it was checked again,
	// with what it observed, or the repaired instance it must follow.
	// The caller redacts it; the compact view truncates it, and
	// planned_instances shows the instance's status as repair.
	Repair map[string]string
	// Completed says the plan's operation completed: every job ran or
	// was satisfied (the simple view reads "done").
	Completed bool
}

// GateState is the evaluated decision for one gate.
type GateState struct {
	// Approved is set when a decision passes the gate: its option is one
	// of the gate's and the actor holds a required role.
	Approved bool
	// Actor who decided, and the Option chosen. For a gate that is not
	// approved, a non-empty Option is the decision given and refused.
	Actor  string
	Option string
	// Refused says why a given decision does not pass (e.g. "actor bob
	// holds none of the roles platform_admin"); empty when none was given.
	Refused string
}

// Gate status words of the views.
const (
	StatusApproved  = "approved"
	StatusWaiting   = "waiting"
	StatusSatisfied = "satisfied"
	StatusWillRun   = "will run"
	StatusRepair    = "repair"
)

// repairShown is how much of a repair's reason the compact view prints.
const repairShown = 160

// JobStatus is the status of a job instance in the views: repair,
// satisfied or will run.
func (s ViewState) JobStatus(id string) string {
	if _, ok := s.Repair[id]; ok {
		return StatusRepair
	}
	if s.Satisfied[id] {
		return StatusSatisfied
	}
	return StatusWillRun
}

// jobStatusCounts is "N will run, M satisfied", with ", R repair" when
// there are repairs.
func jobStatusCounts(jobs []*protocol.JobInstance, st ViewState) string {
	counts := map[string]int{}
	for _, in := range jobs {
		counts[st.JobStatus(in.ID)]++
	}
	s := fmt.Sprintf("%d will run, %d satisfied", counts[StatusWillRun], counts[StatusSatisfied])
	if n := counts[StatusRepair]; n > 0 {
		s += fmt.Sprintf(", %d repair", n)
	}
	return s
}

// writeRepairs lists, in a job group whose instances do not all share
// one status, those that will run, then those apply repairs: one line
// per distinct reason, sorted, with the hosts as ranges; at most three
// reasons, the rest counted.
func writeRepairs(sb *strings.Builder, insts []*protocol.JobInstance, st ViewState) {
	hosts := map[string][]string{}
	var willRun []string
	for _, in := range insts {
		if why, ok := st.Repair[in.ID]; ok {
			hosts[why] = append(hosts[why], hostOrID(in))
		} else if !st.Satisfied[in.ID] {
			willRun = append(willRun, hostOrID(in))
		}
	}
	if len(willRun) > 0 && len(willRun) < len(insts) {
		fmt.Fprintf(sb, "      will run (%d): %s\n", len(willRun), HostRanges(willRun))
	}
	const shown = 3
	for i, why := range slices.Sorted(maps.Keys(hosts)) {
		if i == shown {
			fmt.Fprintf(sb, "      and %d more repairs (per instance in planned_instances)\n", len(hosts)-shown)
			break
		}
		fmt.Fprintf(sb, "      repair (%d): %s: %s\n", len(hosts[why]), HostRanges(hosts[why]), truncateText(why, repairShown))
	}
}

// truncateText cuts s to n bytes at a rune boundary, marking the cut.
func truncateText(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}

func (s ViewState) gate(id string) GateState {
	return s.Gates[id]
}
