package packs

import (
	"fmt"
	"sort"
	"strings"
)

// Problem is one mistake found in a pack: where it is and what to do.
type Problem struct {
	// File is the path of the file inside the pack, prefixed with the pack
	// source, e.g. builtin/kubernetes/jobs/init-control-plane.yaml.
	File string
	// Line is the 1-based line in File, or 0 when the problem concerns the
	// file as a whole.
	Line int
	// Field is the path of the field inside the document, e.g.
	// outputs.evidence[0].command, or "" for the whole document.
	Field string
	// Message says what is wrong and how to fix it.
	Message string
}

// String renders file:line: field: message.
func (p Problem) String() string {
	var b strings.Builder
	b.WriteString(p.File)
	if p.Line > 0 {
		fmt.Fprintf(&b, ":%d", p.Line)
	}
	b.WriteString(": ")
	if p.Field != "" {
		b.WriteString(p.Field)
		b.WriteString(": ")
	}
	b.WriteString(p.Message)
	return b.String()
}

// Problems is every problem of one load, as an error.
type Problems []Problem

// Sort orders problems by file, line, field and message.
func (ps Problems) Sort() {
	sort.SliceStable(ps, func(i, j int) bool {
		a, b := ps[i], ps[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Field != b.Field {
			return a.Field < b.Field
		}
		return a.Message < b.Message
	})
}

// Error lists the problems sorted by file and line, one per line.
func (ps Problems) Error() string {
	sorted := append(Problems(nil), ps...)
	sorted.Sort()
	var b strings.Builder
	if len(sorted) == 1 {
		b.WriteString("scenario pack has 1 problem:")
	} else {
		fmt.Fprintf(&b, "scenario pack has %d problems:", len(sorted))
	}
	for _, p := range sorted {
		b.WriteString("\n  ")
		b.WriteString(p.String())
	}
	return b.String()
}

// reporter collects problems for one pack.
type reporter struct {
	prefix   string // pack source, joined before every file
	problems Problems
}

// add records a problem in file (relative to the pack directory).
func (r *reporter) add(file string, line int, field, format string, args ...any) {
	r.problems = append(r.problems, Problem{
		File:    r.file(file),
		Line:    line,
		Field:   field,
		Message: fmt.Sprintf(format, args...),
	})
}

// file returns the displayed name of a pack file.
func (r *reporter) file(rel string) string {
	if r.prefix == "" {
		return rel
	}
	return strings.TrimSuffix(r.prefix, "/") + "/" + rel
}
