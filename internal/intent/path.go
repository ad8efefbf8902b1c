package intent

import (
	"strconv"
	"strings"
)

// StepKind says what a Step of a Path selects.
type StepKind int

// The kinds of path steps.
const (
	StepAttr  StepKind = iota // an attribute by name: .name
	StepIndex                 // a list element: [1]
	StepKey                   // a map element: ["key"]
)

// Step is one step of a Path.
type Step struct {
	Kind  StepKind
	Name  string // attribute name (StepAttr) or map key (StepKey)
	Index int    // list index (StepIndex)
}

// Path is where a value was written in the configuration, e.g.
// masters[1].labels["x"]. The zero Path is the configuration's root.
type Path []Step

// Root starts a path at a top-level attribute.
func Root(name string) Path { return Path{{Kind: StepAttr, Name: name}} }

func (p Path) with(s Step) Path {
	out := make(Path, len(p), len(p)+1)
	copy(out, p)
	return append(out, s)
}

// Attr selects a nested attribute.
func (p Path) Attr(name string) Path { return p.with(Step{Kind: StepAttr, Name: name}) }

// Index selects a list element.
func (p Path) Index(i int) Path { return p.with(Step{Kind: StepIndex, Index: i}) }

// Key selects a map element.
func (p Path) Key(k string) Path { return p.with(Step{Kind: StepKey, Name: k}) }

// String writes the path as Terraform does: masters[1].labels["x"].
func (p Path) String() string {
	var b strings.Builder
	for i, s := range p {
		switch s.Kind {
		case StepAttr:
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s.Name)
		case StepIndex:
			b.WriteString("[" + strconv.Itoa(s.Index) + "]")
		case StepKey:
			b.WriteString("[" + strconv.Quote(s.Name) + "]")
		}
	}
	return b.String()
}
