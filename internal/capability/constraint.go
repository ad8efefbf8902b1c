package capability

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// Constraint values with a special meaning.
const (
	ValueRequired       = "required"
	ValueSameAsWorkload = "same-as-workload"
	// ValueNotRequired accepts any value of the attribute; a provider
	// created for the requirement may go without it (encryption off).
	ValueNotRequired = "not-required"
	minPrefix        = "min_"
)

// Check is the result of one constraint against one set of attributes.
type Check struct {
	Constraint string
	OK         bool
	Detail     string // e.g. "region eu-west != workload region eu-central"
}

// MatchConstraints checks every constraint (in key order) against the
// attributes of a capability. workload holds the requesting intent's
// attributes for same-as-workload constraints.
func MatchConstraints(constraints, attrs, workload map[string]string) []Check {
	out := make([]Check, 0, len(constraints))
	for _, key := range protocol.SortedKeys(constraints) {
		out = append(out, matchOne(key, constraints[key], attrs, workload))
	}
	return out
}

func matchOne(key, want string, attrs, workload map[string]string) Check {
	c := Check{Constraint: key + ": " + want}
	switch {
	case want == ValueSameAsWorkload:
		w, ok := workload[key]
		if !ok {
			c.Detail = fmt.Sprintf("%s must equal the workload's, but the workload has no %s", key, key)
			return c
		}
		got, ok := attrs[key]
		if !ok {
			c.Detail = fmt.Sprintf("%s missing, workload %s %s", key, key, w)
			return c
		}
		c.OK = got == w
		if c.OK {
			c.Detail = fmt.Sprintf("%s %s = workload %s", key, got, key)
		} else {
			c.Detail = fmt.Sprintf("%s %s != workload %s %s", key, got, key, w)
		}
	case want == ValueNotRequired:
		c.OK = true
		c.Detail = fmt.Sprintf("%s not required", key)
	case want == ValueRequired:
		got, ok := attrs[key]
		c.OK = ok && truthy(got)
		switch {
		case !ok:
			c.Detail = fmt.Sprintf("%s required but missing", key)
		case c.OK:
			c.Detail = fmt.Sprintf("%s %s", key, got)
		default:
			c.Detail = fmt.Sprintf("%s required but is %s", key, got)
		}
	case strings.HasPrefix(key, minPrefix):
		attr := strings.TrimPrefix(key, minPrefix)
		min, err := strconv.ParseFloat(want, 64)
		if err != nil {
			c.Detail = fmt.Sprintf("constraint %s: %q is not a number", key, want)
			return c
		}
		got, ok := attrs[attr]
		if !ok {
			c.Detail = fmt.Sprintf("%s missing, need >= %s", attr, want)
			return c
		}
		v, shown, ok := attrNumber(attr, got)
		if !ok {
			c.Detail = fmt.Sprintf("%s %q is not a number, need >= %s", attr, got, want)
			return c
		}
		c.OK = v >= min
		if c.OK {
			c.Detail = fmt.Sprintf("%s %s >= %s %s", attr, shown, key, want)
		} else {
			c.Detail = fmt.Sprintf("%s %s < %s %s", attr, shown, key, want)
		}
	default:
		got, ok := attrs[key]
		c.OK = ok && got == want
		switch {
		case !ok:
			c.Detail = fmt.Sprintf("%s missing, need %s", key, want)
		case c.OK:
			c.Detail = fmt.Sprintf("%s %s", key, got)
		default:
			c.Detail = fmt.Sprintf("%s %s != %s", key, got, want)
		}
	}
	return c
}

// truthy reports whether an attribute value means "on".
func truthy(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "", "false", "no", "0", "off", "none", "disabled":
		return false
	}
	return true
}

// Describe renders constraints as a sentence part, resolving
// same-as-workload: "encryption required, min_capacity_gb 500, region eu-central".
func Describe(constraints, workload map[string]string) string {
	var parts []string
	for _, k := range protocol.SortedKeys(constraints) {
		v := constraints[k]
		switch {
		case v == ValueSameAsWorkload && workload[k] != "":
			parts = append(parts, fmt.Sprintf("%s %s (same as workload)", k, workload[k]))
		case v == ValueRequired:
			parts = append(parts, k+" required")
		case v == ValueNotRequired:
			continue
		case strings.HasPrefix(k, minPrefix):
			parts = append(parts, fmt.Sprintf("%s >= %s", strings.TrimPrefix(k, minPrefix), v))
		default:
			parts = append(parts, k+" "+v)
		}
	}
	return strings.Join(parts, ", ")
}
