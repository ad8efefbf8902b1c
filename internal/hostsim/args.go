package hostsim

import (
	"slices"
	"strings"
)

// flags is a parsed command line: positional arguments and flag values.
type flags struct {
	pos  []string
	vals map[string][]string
}

// parseFlags splits args into positional arguments and flags. Flags in
// valued take a value (--f v, --f=v, -f v); other flags are booleans
// unless written --f=v. "--" ends flags.
func parseFlags(args []string, valued ...string) flags {
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
		if !hasVal && slices.Contains(valued, name) && i+1 < len(args) {
			val, hasVal = args[i+1], true
			i++
		}
		if !hasVal {
			val = "true"
		}
		p.vals[name] = append(p.vals[name], val)
	}
	return p
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
