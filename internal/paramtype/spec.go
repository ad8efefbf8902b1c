package paramtype

import (
	"fmt"
	"strings"

	version "github.com/hashicorp/go-version"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// ValidateSpec reports what is wrong with a parameter spec itself: an
// unknown or missing type, a pattern that does not compile, bounds on a
// type that has none, a default or an enum value that is not of the type.
func ValidateSpec(spec protocol.ParamSpec) []string {
	var out []string
	t := spec.Type
	switch {
	case t == "":
		return []string{fmt.Sprintf("type: missing; declare one of %s", strings.Join(Types, ", "))}
	case !Known(t):
		return []string{fmt.Sprintf("type: unknown type %q (known: %s)", t, strings.Join(Types, ", "))}
	}
	if t == Enum && len(spec.Enum) == 0 {
		out = append(out, "enum: type enum needs the list of allowed values")
	}
	if (spec.Min != nil || spec.Max != nil) && t != Number && t != Integer && t != CIDR && t != IPv4CIDR {
		out = append(out, fmt.Sprintf("min/max: type %s has no range; use them on number, integer or a CIDR's prefix length", t))
	}
	if spec.Min != nil && spec.Max != nil && *spec.Min > *spec.Max {
		out = append(out, fmt.Sprintf("min/max: min %s is above max %s", fmtNum(*spec.Min), fmtNum(*spec.Max)))
	}
	if spec.Pattern != "" {
		if _, err := compilePattern(spec.Pattern); err != nil {
			out = append(out, fmt.Sprintf("pattern: %v", err))
		}
	}
	if spec.MaxLength != 0 && (t != String || spec.MaxLength < 0) {
		out = append(out, "max_length: only a string has a length bound, and it must be positive")
	}
	if spec.Versions != "" {
		if t != Semver {
			out = append(out, "versions: only a semver has a version range")
		} else if _, err := version.NewConstraint(spec.Versions); err != nil {
			out = append(out, fmt.Sprintf("versions: %v", err))
		}
	}
	if spec.Items != nil {
		if t != List && t != Map {
			out = append(out, "items: only a list or a map has items")
		} else if spec.Items.Type == List || spec.Items.Type == Map {
			out = append(out, "items: a list or map of lists or maps cannot be written as one parameter value")
		} else {
			for _, p := range ValidateSpec(*spec.Items) {
				out = append(out, "items."+p)
			}
		}
	}
	if len(out) > 0 {
		return out
	}
	for _, e := range spec.Enum {
		item := spec
		item.Enum = nil
		if t == List || t == Map {
			item = itemSpec(spec)
		}
		if item.Type == Enum {
			continue
		}
		if err := Check(item, e); err != nil {
			out = append(out, fmt.Sprintf("enum: %v", err))
		}
	}
	if spec.Default != "" {
		if err := Check(spec, spec.Default); err != nil {
			out = append(out, fmt.Sprintf("default: %v", err))
		}
	}
	return out
}
