package intent

import (
	"fmt"
	"strings"
)

// Problem is one refused input: the attribute path of the value at fault,
// a one-line summary, and a detail that says the allowed form and what to
// do. Details quote values with paramtype.Quote.
type Problem struct {
	Path    Path
	Summary string
	Detail  string
	// Warning marks a problem that does not refuse the plan: it is shown
	// to the reviewer, and apply stops where it matters (a gate waits).
	Warning bool
}

func (p Problem) String() string { return p.Path.String() + ": " + p.Summary + ": " + p.Detail }

// Problems collects problems in the order they are found.
type Problems []Problem

func (ps *Problems) add(p Path, summary, format string, a ...any) {
	*ps = append(*ps, Problem{Path: p, Summary: summary, Detail: fmt.Sprintf(format, a...)})
}

func (ps *Problems) warn(p Path, summary, format string, a ...any) {
	*ps = append(*ps, Problem{Path: p, Summary: summary, Detail: fmt.Sprintf(format, a...), Warning: true})
}

// Errors is the problems that refuse the plan (not the warnings).
func (ps Problems) Errors() Problems {
	var out Problems
	for _, p := range ps {
		if !p.Warning {
			out = append(out, p)
		}
	}
	return out
}

// Error joins the problems, for callers that want one error.
func (ps Problems) Error() string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = p.String()
	}
	return strings.Join(parts, "; ")
}
