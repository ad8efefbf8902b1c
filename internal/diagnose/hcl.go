package diagnose

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// PatchHCL renders a patch as the plan_patches argument of a cp resource,
// indented to paste inside the resource block. Parameters of a change's
// jobs are merged into the change's one parameters map, which the provider
// hands to each inserted job that reads them. Nothing in it is approved:
// the reviewer fills approved_by.
func PatchHCL(p protocol.PlanPatch) string {
	var b strings.Builder
	b.WriteString("  plan_patches = [{\n")
	var head [][2]string
	if p.ID != "" {
		head = append(head, [2]string{"id", hclString(p.ID)})
	}
	head = append(head, [2]string{"author", hclString(p.Author)}, [2]string{"reason", hclString(p.Reason)})
	if p.Risk != "" {
		head = append(head, [2]string{"risk", hclString(p.Risk)})
	}
	writeAligned(&b, "    ", head)
	b.WriteString("    changes = [\n")
	for _, c := range p.Changes {
		writeChange(&b, c)
	}
	b.WriteString("    ]\n")
	a := p.Approval
	fmt.Fprintf(&b, "    approval = { required = %t, roles = %s, approved_by = %s }", a.Required, hclList(a.Roles), hclString(a.ApprovedBy))
	if a.Required && a.ApprovedBy == "" {
		b.WriteString("   # fill approved_by to approve")
	}
	b.WriteString("\n  }]\n")
	return b.String()
}

// writeChange renders one change: a one-line object for a lone remove or
// retry, a block otherwise.
func writeChange(b *strings.Builder, c protocol.PatchChange) {
	var attrs [][2]string
	if c.InsertAfter != "" {
		attrs = append(attrs, [2]string{"insert_after", hclString(c.InsertAfter)})
	}
	var (
		ids      []string
		comments []string
	)
	params := map[string]string{}
	for _, j := range c.Jobs {
		ids = append(ids, j.ID)
		if j.Job != nil {
			comments = append(comments, fmt.Sprintf("job %s is defined inline, which plan_patches cannot express; it was left out", j.ID))
		}
		for _, k := range slices.Sorted(maps.Keys(j.Parameters)) {
			v := j.Parameters[k]
			if prev, ok := params[k]; ok && prev != v {
				comments = append(comments, fmt.Sprintf("jobs set different values for %s; the first one is kept", k))
				continue
			}
			params[k] = v
		}
	}
	if len(c.Jobs) > 0 {
		attrs = append(attrs, [2]string{"jobs", hclList(ids)})
	}
	if len(params) > 0 {
		attrs = append(attrs, [2]string{"parameters", hclMap(params)})
	}
	if c.Remove != "" {
		attrs = append(attrs, [2]string{"remove", hclString(c.Remove)})
	}
	if c.Retry != nil {
		attrs = append(attrs, [2]string{"retry", hclString(c.Retry.Job)})
	}
	if len(attrs) == 1 && c.InsertAfter == "" && len(comments) == 0 {
		fmt.Fprintf(b, "      { %s = %s },\n", attrs[0][0], attrs[0][1])
		return
	}
	b.WriteString("      {\n")
	for _, cm := range comments {
		b.WriteString("        # " + strings.ReplaceAll(cm, "\n", " ") + "\n")
	}
	writeAligned(b, "        ", attrs)
	b.WriteString("      },\n")
}

// writeAligned writes name = value lines with the = signs aligned, as
// terraform fmt does.
func writeAligned(b *strings.Builder, indent string, attrs [][2]string) {
	width := 0
	for _, a := range attrs {
		width = max(width, len(a[0]))
	}
	for _, a := range attrs {
		fmt.Fprintf(b, "%s%-*s = %s\n", indent, width, a[0], a[1])
	}
}

func hclList(items []string) string {
	quoted := make([]string, len(items))
	for i, s := range items {
		quoted[i] = hclString(s)
	}
	return "[" + strings.Join(quoted, ", ") + "]"
}

// hclMap renders a map on one line with sorted keys.
func hclMap(m map[string]string) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, hclKey(k)+" = "+hclString(m[k]))
	}
	return "{ " + strings.Join(parts, ", ") + " }"
}

// hclKey leaves identifiers ([A-Za-z_][A-Za-z0-9_-]*) bare and quotes
// anything else.
func hclKey(k string) string {
	for i, r := range k {
		letter := r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
		if !letter && (i == 0 || r != '-' && (r < '0' || r > '9')) {
			return hclString(k)
		}
	}
	if k == "" {
		return `""`
	}
	return k
}

// hclString quotes s as an HCL string literal: backslash escapes for
// quotes, backslashes and control characters, and the template sequences
// ${ and %{ doubled so they stay literal text.
func hclString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	rs := []rune(s)
	for i, r := range rs {
		next := rune(0)
		if i+1 < len(rs) {
			next = rs[i+1]
		}
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case (r == '$' || r == '%') && next == '{':
			b.WriteRune(r)
			b.WriteRune(r)
		case !unicode.IsPrint(r) && r != ' ':
			if r > 0xFFFF {
				fmt.Fprintf(&b, `\U%08X`, r)
			} else {
				fmt.Fprintf(&b, `\u%04X`, r)
			}
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
