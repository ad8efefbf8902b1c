package planner

import (
	"fmt"
	"slices"
	"strings"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// writeBindingCandidates lists, under a binding, each candidate with its
// verdict and the rule or policy that decided, sorted by name: set when
// policy rules were weighed.
func writeBindingCandidates(sb *strings.Builder, b protocol.Binding) {
	cs := slices.Clone(b.Candidates)
	slices.SortFunc(cs, func(x, y protocol.BindingCandidate) int { return strings.Compare(x.Name, y.Name) })
	for _, c := range cs {
		verdict := "rejected"
		if c.Accepted {
			verdict = "accepted"
		}
		fmt.Fprintf(sb, "      %s (%s): %s, decided by %s: %s\n", c.Name, c.Provider, verdict, c.DecidedBy, c.Reason)
	}
}
