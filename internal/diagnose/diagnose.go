package diagnose

import (
	"context"
	"errors"
	"fmt"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
	"github.com/intentops/terraform-provider-cp/internal/transport"
)

// Options of Diagnose.
type Options struct {
	// Analyzers are asked in order before the built-in rules; the first
	// usable answer wins.
	Analyzers []Analyzer
	// Review is the planner callback of the reviewer (see ReviewFunc).
	// Nil checks patches against the job library and plan jobs only, with
	// a warning.
	Review ReviewFunc
	// Redactor masks registered secrets in everything analyzers receive
	// and in warnings.
	Redactor *transport.Redactor
	// Warn, when set, receives each warning as it happens (they are also
	// in Result.Warnings).
	Warn func(string)
	// Rules replaces the built-in rule table when set.
	Rules Rules
}

// Diagnose explains a failure and proposes a reviewed patch. External
// analyzers are tried first; the built-in rules are the fallback. It never
// fails: problems become warnings and rejections in the result.
func Diagnose(ctx context.Context, f Failure, opts Options) Result {
	f = f.Redacted(opts.Redactor)
	f.normalize()
	s := &session{opts: opts, f: f,
		reviewer: Reviewer{Library: f.JobLibrary, PlanJobs: f.PlanJobs, Rebuild: opts.Review}}
	if opts.Review == nil {
		s.warn("no planner review is configured: proposed patches were checked against the job library and the plan's jobs only")
	}
	if res, ok := s.external(ctx); ok {
		return res
	}
	return s.rules()
}

// session carries one Diagnose call.
type session struct {
	opts     Options
	f        Failure
	reviewer Reviewer
	res      Result
}

func (s *session) warn(msg string) {
	msg = s.opts.Redactor.String(msg)
	s.res.Warnings = append(s.res.Warnings, msg)
	if s.opts.Warn != nil {
		s.opts.Warn(msg)
	}
}

func (s *session) reject(source string, p *protocol.PlanPatch, err error) {
	s.res.Rejected = append(s.res.Rejected, Rejection{Source: source, Patch: p, Reason: s.opts.Redactor.String(err.Error())})
}

// external asks the analyzers in order.
func (s *session) external(ctx context.Context) (Result, bool) {
	if len(s.opts.Analyzers) == 0 {
		return Result{}, false
	}
	req, err := NewRequest(s.f, s.opts.Redactor)
	if err != nil {
		s.warn(fmt.Sprintf("external analyzers skipped: %v; falling back to the built-in rules", err))
		return Result{}, false
	}
	for i, a := range s.opts.Analyzers {
		name := analyzerName(a, i)
		ans, err := callAnalyzer(ctx, a, req)
		if err == nil {
			var notes []string
			ans, notes, err = settle(name, s.f, ans)
			for _, n := range notes {
				s.warn(n)
			}
		}
		if err != nil {
			s.reject("analyzer:"+name, nil, err)
			s.warn(fmt.Sprintf("analyzer %s: %v; falling back", name, err))
			continue
		}
		if ans.Patch != nil {
			if err := s.review(*ans.Patch); err != nil {
				s.reject("analyzer:"+name, ans.Patch, err)
				s.warn(fmt.Sprintf("analyzer %s proposed a patch the reviewer rejected: %v; falling back", name, err))
				continue
			}
		}
		s.res.Diagnosis, s.res.Patch = ans.Diagnosis, ans.Patch
		return s.res, true
	}
	return Result{}, false
}

// rules diagnoses with the rule table.
func (s *session) rules() Result {
	rs := s.opts.Rules
	if rs == nil {
		rs = BuiltinRules()
	}
	rule, m, related, draft, err := safeRules(rs, s.f)
	if err != nil {
		s.warn(err.Error())
	}
	if rule.ID == "" {
		s.res.Diagnosis = unrecognised(s.f)
		return s.res
	}
	d := rule.Diagnosis(m, draft, related)
	p, err := s.rulePatch(rule, d, draft)
	if err != nil && !draft.Manual {
		// Degrade to a manual fix and a retry of the failed job.
		draft = manualRetry(s.f, fmt.Sprintf("The rule's patch was rejected by the planner (%v); the host needs a manual fix before a retry.", err))
		d = rule.Diagnosis(m, draft, related)
		p, err = s.rulePatch(rule, d, draft)
	}
	if err != nil {
		s.warn(fmt.Sprintf("rule %s: no patch is proposed", rule.ID))
	}
	s.res.Diagnosis, s.res.Patch = d, p
	return s.res
}

// rulePatch builds a rule's patch for a draft and reviews it, recording a
// rejection; nil without error when the draft has no changes.
func (s *session) rulePatch(rule Rule, d Diagnosis, draft Draft) (*protocol.PlanPatch, error) {
	p := patchFor(rule, s.f, d, draft)
	if p == nil {
		return nil, nil
	}
	if err := s.review(*p); err != nil {
		s.reject(rule.Author(), p, err)
		s.warn(fmt.Sprintf("rule %s proposed a patch the reviewer rejected: %v", rule.ID, err))
		return nil, err
	}
	return p, nil
}

// review calls the reviewer, turning a panic of the planner callback into
// an error.
func (s *session) review(p protocol.PlanPatch) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("%w: the planner callback panicked: %v", ErrRejected, v)
		}
	}()
	return s.reviewer.Review(p)
}

// callAnalyzer runs one analyzer, turning a panic into an error.
func callAnalyzer(ctx context.Context, a Analyzer, req Request) (ans Answer, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("%w: panicked: %v", ErrAnalyzer, v)
		}
	}()
	if a == nil {
		return Answer{}, fmt.Errorf("%w: analyzer is nil", ErrAnalyzer)
	}
	ans, err = a.Analyze(ctx, req)
	if err != nil && !errors.Is(err, ErrAnalyzer) && !errors.Is(err, ErrAnswer) {
		err = fmt.Errorf("%w: %w", ErrAnalyzer, err)
	}
	return ans, err
}

// analyzerName returns a's name, or its position when it has none.
func analyzerName(a Analyzer, i int) (name string) {
	defer func() {
		if recover() != nil || name == "" {
			name = fmt.Sprintf("#%d", i+1)
		}
	}()
	if a == nil {
		return ""
	}
	return a.Name()
}

// safeRules finds the matching rule and its draft, turning a panic of a
// rule into an error. A zero rule means none matched.
func safeRules(rs Rules, f Failure) (r Rule, m Match, related []string, draft Draft, err error) {
	defer func() {
		if v := recover(); v != nil {
			r, err = Rule{}, fmt.Errorf("built-in rules failed: %v", v)
		}
	}()
	r, m, related, ok := rs.Find(f)
	if !ok {
		return Rule{}, Match{}, nil, Draft{}, nil
	}
	if r.Patch != nil {
		draft = r.Patch(f, m)
	}
	return r, m, related, draft, nil
}

// unrecognised is the diagnosis when no analyzer answered and no rule
// matched: the failure as it is, with its last lines quoted.
func unrecognised(f Failure) Diagnosis {
	lines := f.Lines()
	quoted := lines[max(0, len(lines)-5):]
	return Diagnosis{
		Source:  "diagnose",
		Summary: fmt.Sprintf("No rule recognises the failure of %s.", f.Instance),
		Explanation: "None of the built-in rules matches the log tail and evidence, so no plan patch is proposed. " +
			"Read the quoted lines and the full log on the host; once fixed by hand, record an intervention or re-apply.",
		Evidence: quoted, Risk: RiskLow, Confidence: 0,
	}
}
