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
}

func (p Problem) String() string { return p.Path.String() + ": " + p.Summary + ": " + p.Detail }

// Problems collects problems in the order they are found.
type Problems []Problem

func (ps *Problems) add(p Path, summary, format string, a ...any) {
	*ps = append(*ps, Problem{Path: p, Summary: summary, Detail: fmt.Sprintf(format, a...)})
}

// Error joins the problems, for callers that want one error.
func (ps Problems) Error() string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = p.String()
	}
	return strings.Join(parts, "; ")
}
