package diagnose

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// Signature says when a rule applies.
type Signature struct {
	// Jobs limits the rule to failures of these jobs; empty means any job.
	Jobs []string
	// Lines are matched against every line of Failure.Lines (reason, log
	// tail, failed evidence, expired artifacts, observed notes); the rule
	// applies when one matches. Named groups become facts for the rule's
	// texts, e.g. (?P<port>\d+) fills {port}.
	Lines []*regexp.Regexp
	// Support are quoted with the matching lines but do not make the rule
	// apply on their own (e.g. an expired token artifact, which the plan
	// may already have replaced).
	Support []*regexp.Regexp
}

// Match is what a signature found in a failure.
type Match struct {
	// Lines that matched, in failure order, each once.
	Lines []string
	// Facts are the named groups of the first match of each group name,
	// plus job, instance and host of the failure.
	Facts map[string]string
}

// Draft is a rule's proposed change list before it becomes a patch.
type Draft struct {
	Changes []protocol.PatchChange
	// Risk overrides the rule's risk; empty keeps it.
	Risk Risk
	// Notes explain the draft, e.g. a placeholder parameter or why the
	// rule fell back to a retry.
	Notes []string
	// Manual says the draft only helps after the rule's manual steps.
	Manual bool
}

// PatchBuilder is a rule's planner: it turns the failure the rule matched
// into changes.
type PatchBuilder func(f Failure, m Match) Draft

// Rule is one built-in diagnosis: a signature, an explanation and a patch
// builder.
type Rule struct {
	ID        string
	Signature Signature
	// Summary and Explanation may name facts in braces: {host}, {job},
	// {instance} and the signature's named groups.
	Summary     string
	Explanation string
	// ManualSteps are shown when the draft is manual; same placeholders.
	ManualSteps []string
	// Defaults fill facts that no matched line supplied.
	Defaults map[string]string
	// Risk of the patch; ManualRisk of the manual fix plus retry.
	Risk       Risk
	ManualRisk Risk
	Confidence float64
	Patch      PatchBuilder
}

// Author is the patch author of a rule.
func (r Rule) Author() string { return "diagnose:rule/" + r.ID }

// match applies the rule's signature to the failure.
func (r Rule) match(f Failure) (Match, bool) {
	if len(r.Signature.Jobs) > 0 && !slices.Contains(r.Signature.Jobs, f.Job) {
		return Match{}, false
	}
	m := Match{Facts: map[string]string{}}
	maps.Copy(m.Facts, r.Defaults)
	named := map[string]bool{}
	primary := false
	for _, line := range f.Lines() {
		hit := false
		for k, re := range slices.Concat(r.Signature.Lines, r.Signature.Support) {
			sub := re.FindStringSubmatch(line)
			if sub == nil {
				continue
			}
			hit, primary = true, primary || k < len(r.Signature.Lines)
			for i, name := range re.SubexpNames() {
				if name != "" && sub[i] != "" && !named[name] {
					m.Facts[name], named[name] = sub[i], true
				}
			}
		}
		if hit && !slices.Contains(m.Lines, line) {
			m.Lines = append(m.Lines, line)
		}
	}
	if !primary {
		return Match{}, false
	}
	m.Facts["job"], m.Facts["instance"] = f.Job, f.Instance
	m.Facts["host"] = f.Host
	if f.Host == "" {
		m.Facts["host"] = "the host"
	}
	return m, true
}

// expand fills {name} placeholders with facts.
func expand(s string, facts map[string]string) string {
	pairs := make([]string, 0, 2*len(facts))
	for _, k := range slices.Sorted(maps.Keys(facts)) {
		pairs = append(pairs, "{"+k+"}", facts[k])
	}
	return strings.NewReplacer(pairs...).Replace(s)
}

// maxQuoted bounds the evidence lines a diagnosis quotes.
const maxQuoted = 8

// Rules is an ordered rule table: the first rule whose signature matches
// diagnoses the failure, so more specific rules come first.
type Rules []Rule

// Find returns the first rule whose signature matches, its match, and the
// ids of the other rules that match too.
func (rs Rules) Find(f Failure) (Rule, Match, []string, bool) {
	var (
		first   = -1
		m       Match
		related []string
	)
	for i := range rs {
		mm, ok := rs[i].match(f)
		switch {
		case !ok:
		case first < 0:
			first, m = i, mm
		default:
			related = append(related, rs[i].ID)
		}
	}
	if first < 0 {
		return Rule{}, Match{}, nil, false
	}
	return rs[first], m, related, true
}

// Diagnose returns the first matching rule's diagnosis and draft.
func (rs Rules) Diagnose(f Failure) (Rule, Diagnosis, Draft, bool) {
	r, m, related, ok := rs.Find(f)
	if !ok {
		return Rule{}, Diagnosis{}, Draft{}, false
	}
	var draft Draft
	if r.Patch != nil {
		draft = r.Patch(f, m)
	}
	return r, r.Diagnosis(m, draft, related), draft, true
}

// Diagnosis is the rule's diagnosis of a match, for the given draft: a
// manual draft brings the rule's manual steps and manual risk.
func (r Rule) Diagnosis(m Match, draft Draft, related []string) Diagnosis {
	d := Diagnosis{
		Source: r.Author(), Rule: r.ID, Summary: expand(r.Summary, m.Facts), Explanation: expand(r.Explanation, m.Facts),
		Evidence: m.Lines[:min(len(m.Lines), maxQuoted)], Risk: r.Risk, Confidence: r.Confidence,
		Notes: draft.Notes, Related: related,
	}
	if draft.Manual {
		for _, s := range r.ManualSteps {
			d.ManualSteps = append(d.ManualSteps, expand(s, m.Facts))
		}
		d.Risk = r.ManualRisk
	}
	if draft.Risk != "" {
		d.Risk = draft.Risk
	}
	if !d.Risk.Valid() {
		d.Risk = RiskLow
	}
	return d
}

// patchFor turns a rule's draft into the patch proposed to the user:
// approval required by sre, never approved.
func patchFor(r Rule, f Failure, d Diagnosis, draft Draft) *protocol.PlanPatch {
	if len(draft.Changes) == 0 {
		return nil
	}
	return &protocol.PlanPatch{
		ID: patchID(r.ID, f.Job), Author: r.Author(), Reason: d.Summary, Risk: string(d.Risk),
		Changes:  draft.Changes,
		Approval: protocol.PatchApproval{Required: true, Roles: []string{"sre"}},
	}
}

// patchID is a stable id for a proposed patch: the same failure proposes
// the same id, so pasting it twice is visible.
func patchID(source, job string) string {
	id := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-':
			return r
		case r >= 'A' && r <= 'Z':
			return r + ('a' - 'A')
		}
		return '-'
	}, fmt.Sprintf("diagnose-%s-%s", source, job))
	return strings.Trim(id, "-")
}
