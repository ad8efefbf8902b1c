package capability

import (
	"fmt"
	"slices"
	"strings"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// exceptionPossible reports whether a policy exception can satisfy the
// requirement: the policy names roles that may grant one, and a candidate
// or creator fails only because the policy does not allow its provider.
func (r *resolution) exceptionPossible() bool {
	return len(r.exceptionRoles) > 0 && (len(r.forbidden) > 0 || len(r.forbiddenCreators) > 0)
}

// exception stops at a policy_exception gate that only the policy's
// exception roles may pass: one option per forbidden candidate (bind it)
// and per forbidden creator (create it), and cancel.
func (r *resolution) exception(d Decision) Decision {
	var opts []protocol.GateOption
	var names []string
	for _, c := range r.forbidden {
		opts = append(opts, r.bindOption("grant exception: bind "+c.Name, c))
		names = append(names, c.Name+" ("+c.Provider+")")
	}
	for _, c := range r.forbiddenCreators {
		opts = append(opts, r.createOption("grant exception: create "+c.Provider, c))
		names = append(names, "new "+c.Provider+costNote(c))
	}
	allowed := "none"
	if len(r.policy.AllowedProviders) > 0 {
		allowed = strings.Join(sortedCopy(r.policy.AllowedProviders), ", ")
	}
	reason := fmt.Sprintf("%s in %s: no allowed provider (%s) satisfies it; the policy forbids %s, which would, unless one of the roles %s grants an exception",
		r.key, r.envName(), allowed, strings.Join(names, ", "), strings.Join(r.exceptionRoles, ", "))
	return r.gate(d, protocol.GatePolicyException, "exception-"+slug(r.key), reason, opts, r.exceptionRoles)
}

// addExceptionRoles adds roles that may grant an exception, keeping the
// first order of each.
func (r *resolution) addExceptionRoles(roles []string) {
	for _, ro := range roles {
		if !slices.Contains(r.exceptionRoles, ro) {
			r.exceptionRoles = append(r.exceptionRoles, ro)
		}
	}
}
