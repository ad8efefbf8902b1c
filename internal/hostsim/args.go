package hostsim

import (
	"slices"
	"strings"
)

// flags is a parsed command line: positional arguments and flag values.
type flags struct {
	pos   []string
	vals  map[string][]string
	order []string // flag names in the order first given
}

// parseFlags splits args into positional arguments and flags. Flags in
// valued take a value (--f v, --f=v, -f v); other flags are booleans
// unless written --f=v. "--" ends flags. A valued flag without its value
// is a usageError.
func parseFlags(args []string, valued ...string) (flags, error) {
	p := flags{vals: map[string][]string{}}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			p.pos = append(p.pos, args[i+1:]...)
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			p.pos = append(p.pos, a)
			continue
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !hasVal && slices.Contains(valued, name) {
			if i+1 >= len(args) {
				return p, usageError{name}
			}
			val, hasVal = args[i+1], true
			i++
		}
		if !hasVal {
			val = "true"
		}
		if _, seen := p.vals[name]; !seen {
			p.order = append(p.order, name)
		}
		p.vals[name] = append(p.vals[name], val)
	}
	return p, nil
}

// has reports whether any of the names was given.
func (p flags) has(names ...string) bool {
	for _, n := range names {
		if _, ok := p.vals[n]; ok {
			return true
		}
	}
	return false
}

// get returns the last value given for any of the names.
func (p flags) get(names ...string) string {
	v := ""
	for _, n := range names {
		if vs := p.vals[n]; len(vs) > 0 {
			v = vs[len(vs)-1]
		}
	}
	return v
}

// all returns every value given for the names.
func (p flags) all(names ...string) []string {
	var out []string
	for _, n := range names {
		out = append(out, p.vals[n]...)
	}
	return out
}

func (p flags) arg(i int) string {
	if i < len(p.pos) {
		return p.pos[i]
	}
	return ""
}
