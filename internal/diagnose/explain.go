package diagnose

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Explain renders a result for the apply error: the diagnosis, the quoted
// evidence, the risk, manual steps and notes, who must approve, the patch
// as HCL to paste, and the warnings and rejected proposals.
func Explain(r Result) string {
	var b strings.Builder
	d := r.Diagnosis
	fmt.Fprintf(&b, "Diagnosis: %s\n", oneLine(d.Summary))
	fmt.Fprintf(&b, "  by %s, confidence %.2f, risk %s\n", d.Source, d.Confidence, d.Risk)
	if d.Explanation != "" {
		fmt.Fprintf(&b, "\n%s\n", d.Explanation)
	}
	if len(d.Evidence) > 0 {
		b.WriteString("\nEvidence:\n")
		for _, e := range d.Evidence {
			b.WriteString("  > " + clip(strings.TrimSpace(oneLine(e)), maxExplainLine) + "\n")
		}
	}
	if len(d.ManualSteps) > 0 {
		b.WriteString("\nManual fix first:\n")
		for i, s := range d.ManualSteps {
			fmt.Fprintf(&b, "  %d. %s\n", i+1, oneLine(s))
		}
	}
	if len(d.Notes) > 0 {
		b.WriteString("\nNotes:\n")
		for _, n := range d.Notes {
			b.WriteString("  - " + oneLine(n) + "\n")
		}
	}
	if len(d.Related) > 0 {
		fmt.Fprintf(&b, "\nAlso matched: %s\n", strings.Join(d.Related, ", "))
	}
	if p := r.Patch; p != nil {
		b.WriteString("\n")
		if p.Approval.Required {
			who := "anyone allowed to approve plan patches"
			if len(p.Approval.Roles) > 0 {
				who = "a person with role " + strings.Join(p.Approval.Roles, " or ")
			}
			fmt.Fprintf(&b, "Approval: required, by %s. Nothing runs until approved_by is filled in the resource's plan_patches and the change is applied.\n", who)
		} else {
			b.WriteString("Approval: not required; the patch applies once it is in the resource's plan_patches.\n")
		}
		fmt.Fprintf(&b, "Proposed plan patch (risk %s), to paste into the resource:\n\n", p.Risk)
		b.WriteString(PatchHCL(*p))
	} else {
		b.WriteString("\nNo plan patch is proposed.\n")
	}
	if len(r.Warnings) > 0 {
		b.WriteString("\nWarnings:\n")
		for _, w := range r.Warnings {
			b.WriteString("  - " + oneLine(w) + "\n")
		}
	}
	if len(r.Rejected) > 0 {
		b.WriteString("\nRejected proposals:\n")
		for _, x := range r.Rejected {
			fmt.Fprintf(&b, "  - %s: %s\n", x.Source, oneLine(x.Reason))
		}
	}
	return b.String()
}

// oneLine keeps multi-line text on its line of the report.
func oneLine(s string) string {
	return strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", " / ")
}

// maxExplainLine bounds a quoted line in the report; the diagnosis keeps
// the whole line.
const maxExplainLine = 400

// clip shortens s to at most n bytes, cutting at a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + " ..."
}
