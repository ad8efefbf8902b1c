package paramtype

import (
	"fmt"
	"math"
	"regexp"
	"strings"

	version "github.com/hashicorp/go-version"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// SpecProblem is one mistake in a parameter spec: the field of the spec
// at fault ("type", "items.pattern", "default") and what to do.
type SpecProblem struct {
	Field string
	Msg   string
}

func (p SpecProblem) String() string { return p.Field + ": " + p.Msg }

// ranged are the types min and max apply to.
var ranged = map[string]bool{Number: true, Integer: true, CIDR: true, IPv4CIDR: true}

// ValidateSpec reports what is wrong with a parameter spec itself: an
// unknown or missing type, a field that narrows nothing on its type (so it
// would have no effect), a pattern or version range that does not parse,
// and a default or an enum value that is not of the type.
func ValidateSpec(spec protocol.ParamSpec) []SpecProblem {
	var out []SpecProblem
	add := func(field, format string, a ...any) {
		out = append(out, SpecProblem{Field: field, Msg: fmt.Sprintf(format, a...)})
	}
	t := spec.Type
	switch {
	case t == "":
		add("type", "missing; declare one of %s", strings.Join(Types, ", "))
		return out
	case !Known(t):
		add("type", "unknown type %q; declare one of %s", t, strings.Join(Types, ", "))
		return out
	}
	collection := t == List || t == Map
	if t == Enum && len(spec.Enum) == 0 {
		add("enum", "type enum needs the list of allowed values")
	}
	if t == Map && len(spec.Enum) > 0 {
		add("enum", "a map's values are narrowed in items (items: {type: enum, enum: [...]})")
	}
	if spec.Min != nil || spec.Max != nil {
		validateRange(spec, add)
	}
	if spec.Pattern != "" {
		switch {
		case collection:
			add("pattern", "a %s's items are narrowed in items (items: {type: string, pattern: ...})", t)
		case t == Bool || t == Enum:
			add("pattern", "type %s has a fixed set of values; a pattern would narrow nothing", t)
		default:
			if _, err := regexp.Compile(spec.Pattern); err != nil {
				add("pattern", "%v; write an RE2 regular expression (it must match the whole value)", err)
			} else if _, err := compilePattern(spec.Pattern); err != nil {
				add("pattern", "%v; write an RE2 regular expression (it must match the whole value)", err)
			}
		}
	}
	if spec.MaxLength != 0 && (t != String || spec.MaxLength < 0) {
		add("max_length", "only a string has a length bound, and it must be positive (other types bound their own length)")
	}
	if spec.Versions != "" {
		if t != Semver {
			add("versions", "only a semver has a version range")
		} else if _, err := version.NewConstraint(spec.Versions); err != nil {
			add("versions", "%v; write a range such as \">= 1.30.0, < 1.36.0\"", err)
		}
	}
	if spec.Items != nil {
		validateItems(spec, add)
	}
	if spec.Required && spec.Default != "" {
		add("required", "a parameter with a default is never missing; drop required or the default")
	}
	if len(out) > 0 {
		return out
	}
	item := spec
	item.Enum = nil
	if collection {
		item = itemSpec(spec)
	}
	for i, e := range spec.Enum {
		if item.Type == Enum {
			break
		}
		if err := Check(item, e); err != nil {
			add(fmt.Sprintf("enum[%d]", i), "%v", err)
		}
	}
	if spec.Default != "" {
		if err := Check(spec, spec.Default); err != nil {
			add("default", "%v", err)
		}
	}
	return out
}

func validateRange(spec protocol.ParamSpec, add func(field, format string, a ...any)) {
	t := spec.Type
	if !ranged[t] {
		add("min", "type %s has no range; min and max bound a number, an integer or a CIDR's prefix length", t)
		return
	}
	if spec.Min != nil && spec.Max != nil && *spec.Min > *spec.Max {
		add("min", "min %s is above max %s", fmtNum(*spec.Min), fmtNum(*spec.Max))
	}
	if t == Number {
		return
	}
	hi := math.Inf(1)
	switch t {
	case CIDR:
		hi = 128
	case IPv4CIDR:
		hi = 32
	}
	for _, b := range []struct {
		field string
		v     *float64
	}{{"min", spec.Min}, {"max", spec.Max}} {
		if b.v == nil {
			continue
		}
		if *b.v != math.Trunc(*b.v) || (hi != math.Inf(1) && (*b.v < 0 || *b.v > hi)) {
			if hi == math.Inf(1) {
				add(b.field, "%s is not a whole number; an integer's bounds are whole numbers", fmtNum(*b.v))
			} else {
				add(b.field, "%s is not a prefix length; write a whole number between 0 and %s", fmtNum(*b.v), fmtNum(hi))
			}
		}
	}
}

func validateItems(spec protocol.ParamSpec, add func(field, format string, a ...any)) {
	it := spec.Items
	switch {
	case spec.Type != List && spec.Type != Map:
		add("items", "only a list or a map has items")
		return
	case it.Type == List || it.Type == Map:
		add("items.type", "a %s of %ss cannot be written as one parameter value; use a scalar type", spec.Type, it.Type)
		return
	case it.Default != "" || it.Required:
		add("items", "an item has no default or required of its own; set them on the %s", spec.Type)
	}
	for _, p := range ValidateSpec(*it) {
		add("items."+p.Field, "%s", p.Msg)
	}
}
