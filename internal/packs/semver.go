package packs

import (
	"fmt"
	"strconv"
	"strings"
)

// Version is a semantic version MAJOR.MINOR.PATCH with an optional
// pre-release; build metadata is accepted and ignored.
type Version struct {
	Major, Minor, Patch int
	Pre                 string
}

// String renders the version.
func (v Version) String() string {
	s := fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch)
	if v.Pre != "" {
		s += "-" + v.Pre
	}
	return s
}

// Compare returns -1, 0 or 1. A pre-release sorts before its release;
// pre-releases compare dot-separated identifiers, numeric ones as numbers.
func (v Version) Compare(o Version) int {
	for _, d := range [][2]int{{v.Major, o.Major}, {v.Minor, o.Minor}, {v.Patch, o.Patch}} {
		if d[0] != d[1] {
			return cmpInt(d[0], d[1])
		}
	}
	switch {
	case v.Pre == o.Pre:
		return 0
	case v.Pre == "":
		return 1
	case o.Pre == "":
		return -1
	}
	a, b := strings.Split(v.Pre, "."), strings.Split(o.Pre, ".")
	for i := 0; i < len(a) && i < len(b); i++ {
		if c := comparePreIdent(a[i], b[i]); c != 0 {
			return c
		}
	}
	return cmpInt(len(a), len(b))
}

func comparePreIdent(a, b string) int {
	na, ea := strconv.Atoi(a)
	nb, eb := strconv.Atoi(b)
	switch {
	case ea == nil && eb == nil:
		return cmpInt(na, nb)
	case ea == nil:
		return -1
	case eb == nil:
		return 1
	}
	return strings.Compare(a, b)
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// ParseVersion parses a full semantic version such as 1.0.0 or 2.1.0-rc.1.
func ParseVersion(s string) (Version, error) {
	v, parts, err := parsePartial(s)
	if err != nil {
		return Version{}, err
	}
	if parts != 3 {
		return Version{}, fmt.Errorf("version %q: want MAJOR.MINOR.PATCH, e.g. 1.0.0", s)
	}
	return v, nil
}

// parsePartial parses 1, 1.2 or 1.2.3[-pre][+build] and says how many
// numeric parts were given.
func parsePartial(s string) (Version, int, error) {
	orig := s
	s = strings.TrimPrefix(strings.TrimSpace(s), "v")
	s, _, _ = strings.Cut(s, "+")
	var v Version
	if core, pre, ok := strings.Cut(s, "-"); ok {
		if pre == "" || strings.Contains(pre, "..") || strings.HasPrefix(pre, ".") || strings.HasSuffix(pre, ".") {
			return Version{}, 0, fmt.Errorf("version %q: empty pre-release identifier", orig)
		}
		v.Pre, s = pre, core
	}
	nums := strings.Split(s, ".")
	if len(nums) > 3 || s == "" {
		return Version{}, 0, fmt.Errorf("version %q: want MAJOR.MINOR.PATCH, e.g. 1.0.0", orig)
	}
	dst := []*int{&v.Major, &v.Minor, &v.Patch}
	for i, n := range nums {
		x, err := strconv.Atoi(n)
		if err != nil || x < 0 || (len(n) > 1 && n[0] == '0') {
			return Version{}, 0, fmt.Errorf("version %q: %q is not a non-negative number without leading zeros", orig, n)
		}
		*dst[i] = x
	}
	if v.Pre != "" && len(nums) != 3 {
		return Version{}, 0, fmt.Errorf("version %q: a pre-release needs MAJOR.MINOR.PATCH", orig)
	}
	return v, len(nums), nil
}

// Constraint is a conjunction of version comparisons, e.g. ">=1.0.0, <2.0.0".
type Constraint struct {
	text  string
	terms []term
}

type term struct {
	op string // =, !=, >, >=, <, <=
	v  Version
}

// String returns the constraint as written.
func (c Constraint) String() string { return c.text }

// ParseConstraint parses a comma-separated list of comparisons, all of which
// must hold. Forms: "" or "*" (any), "1.0.0" or "=1.0.0", "!=1.0.0",
// ">1.0.0", ">=1.0", "<2", "<=1.2.3", "~>1.0" (>=1.0.0, <2.0.0),
// "~>1.2.3" (>=1.2.3, <1.3.0), "^1.2.3" (>=1.2.3, <2.0.0; ^0.2.3 is
// <0.3.0), "~1.2.3" (>=1.2.3, <1.3.0).
func ParseConstraint(s string) (Constraint, error) {
	c := Constraint{text: s}
	if strings.TrimSpace(s) == "" || strings.TrimSpace(s) == "*" {
		return c, nil
	}
	for _, part := range strings.Split(s, ",") {
		terms, err := parseTerm(strings.TrimSpace(part))
		if err != nil {
			return Constraint{}, fmt.Errorf("version constraint %q: %w", s, err)
		}
		c.terms = append(c.terms, terms...)
	}
	return c, nil
}

func parseTerm(s string) ([]term, error) {
	if s == "" {
		return nil, fmt.Errorf("empty comparison between commas")
	}
	op := ""
	for _, o := range []string{"~>", ">=", "<=", "!=", ">", "<", "=", "^", "~"} {
		if strings.HasPrefix(s, o) {
			op, s = o, strings.TrimSpace(s[len(o):])
			break
		}
	}
	v, parts, err := parsePartial(s)
	if err != nil {
		return nil, err
	}
	switch op {
	case "", "=", "!=", ">", ">=", "<", "<=":
		if op == "" {
			op = "="
		}
		if parts != 3 && (op == "=" || op == "!=") {
			return nil, fmt.Errorf("%q: %s needs a full version MAJOR.MINOR.PATCH", s, op)
		}
		return []term{{op, v}}, nil
	case "~>":
		upper := Version{Major: v.Major + 1}
		if parts == 3 {
			upper = Version{Major: v.Major, Minor: v.Minor + 1}
		}
		return []term{{">=", v}, {"<", upper}}, nil
	case "~":
		upper := Version{Major: v.Major, Minor: v.Minor + 1}
		if parts == 1 {
			upper = Version{Major: v.Major + 1}
		}
		return []term{{">=", v}, {"<", upper}}, nil
	default: // ^
		upper := Version{Major: v.Major + 1}
		if v.Major == 0 && (parts > 1) {
			upper = Version{Minor: v.Minor + 1}
			if v.Minor == 0 && parts == 3 {
				upper = Version{Patch: v.Patch + 1}
			}
		}
		return []term{{">=", v}, {"<", upper}}, nil
	}
}

// Check reports whether v satisfies every comparison.
func (c Constraint) Check(v Version) bool {
	for _, t := range c.terms {
		r := v.Compare(t.v)
		ok := false
		switch t.op {
		case "=":
			ok = r == 0
		case "!=":
			ok = r != 0
		case ">":
			ok = r > 0
		case ">=":
			ok = r >= 0
		case "<":
			ok = r < 0
		case "<=":
			ok = r <= 0
		}
		if !ok {
			return false
		}
	}
	return true
}
