package planner

import (
	"fmt"
	"slices"
	"strings"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// AdvancedOptions tune the advanced view.
type AdvancedOptions struct {
	// GroupAbove groups the per-host instances of one job into one entry
	// when there are more than this many and they differ only by host.
	// Zero means 10.
	GroupAbove int
}

// RenderAdvanced is the advanced-mode view: title, changes, bindings,
// sub-operations, then per stage the instances with host, needs,
// requires/provides, origin and why, and gates with reason, options, roles.
func RenderAdvanced(p *protocol.Plan, opts AdvancedOptions) string {
	if opts.GroupAbove <= 0 {
		opts.GroupAbove = 10
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "Plan: %s\n", p.Display())
	if p.Title != "" {
		fmt.Fprintf(&sb, "Title: %s\n", p.Title)
	}
	if len(p.Changes) > 0 {
		sb.WriteString("Changes:\n")
		for _, c := range p.Changes {
			fmt.Fprintf(&sb, "  - %s\n", c)
		}
	}
	if len(p.Bindings) > 0 {
		sb.WriteString("Bindings:\n")
		bs := slices.Clone(p.Bindings)
		slices.SortFunc(bs, func(a, b protocol.Binding) int { return strings.Compare(a.Requirement.Key, b.Requirement.Key) })
		for _, b := range bs {
			prov := ""
			if b.Provider != "" {
				prov = " " + b.Provider
			}
			fmt.Fprintf(&sb, "  - %s: %s%s: %s\n", b.Requirement.Key, b.Decision, prov, b.Reason)
		}
	}
	if len(p.SubOps) > 0 {
		sb.WriteString("Sub-operations:\n")
		for _, s := range p.SubOps {
			fmt.Fprintf(&sb, "  - %s: %s (%s) provides %s: %s\n", s.ID, s.Pack, s.Template, s.Capability, s.Reason)
		}
	}
	for _, st := range p.Stages {
		fmt.Fprintf(&sb, "Stage %s: %s\n", st.ID, st.Title)
		insts := make([]*protocol.JobInstance, 0, len(st.Instances))
		for _, id := range st.Instances {
			in, _ := p.Instance(id)
			insts = append(insts, in)
		}
		for i := 0; i < len(insts); {
			j := i + 1
			for j < len(insts) && sameJob(insts[i], insts[j]) {
				j++
			}
			writeGroup(&sb, insts[i:j], opts.GroupAbove)
			i = j
		}
	}
	return sb.String()
}

func sameJob(a, b *protocol.JobInstance) bool {
	return a.JobID == b.JobID && a.SubOperation == b.SubOperation && !a.IsGate() && !b.IsGate()
}

// writeGroup writes the instances of one job, grouped when they are many
// and alike.
func writeGroup(sb *strings.Builder, insts []*protocol.JobInstance, groupAbove int) {
	if len(insts) > groupAbove && alike(insts) {
		first := insts[0]
		hosts := make([]string, len(insts))
		for i, in := range insts {
			hosts[i] = in.Host
		}
		shown := hosts
		if len(hosts) > 4 {
			shown = []string{hosts[0], hosts[1], "…", hosts[len(hosts)-1]}
		}
		key := strings.TrimSuffix(first.ID, "["+first.Host+"]")
		fmt.Fprintf(sb, "  - %s[host] on %d hosts: %s\n", key, len(insts), strings.Join(shown, ", "))
		writeDetails(sb, first, true)
		return
	}
	for _, in := range insts {
		if in.IsGate() {
			writeGate(sb, in)
			continue
		}
		if in.Host != "" {
			fmt.Fprintf(sb, "  - %s (host %s)\n", in.ID, in.Host)
		} else {
			fmt.Fprintf(sb, "  - %s\n", in.ID)
		}
		writeDetails(sb, in, false)
	}
}

// alike reports whether per-host instances differ only by their host.
func alike(insts []*protocol.JobInstance) bool {
	first := insts[0]
	want := needsPattern(first)
	for _, in := range insts[1:] {
		if in.Host == "" || in.Origin != first.Origin || in.Retry != first.Retry || in.Because != first.Because || in.RunOn != first.RunOn ||
			!slices.Equal(needsPattern(in), want) {
			return false
		}
	}
	return first.Host != ""
}

func needsPattern(in *protocol.JobInstance) []string {
	out := make([]string, len(in.Needs))
	for i, n := range in.Needs {
		out[i] = hostPattern(n, in.Host)
	}
	slices.Sort(out)
	return out
}

func writeDetails(sb *strings.Builder, in *protocol.JobInstance, grouped bool) {
	needs := in.Needs
	if grouped {
		needs = needsPattern(in)
	}
	if in.RunOn != "" {
		fmt.Fprintf(sb, "      runs on: %s\n", in.RunOn)
	}
	if len(needs) > 0 {
		fmt.Fprintf(sb, "      needs: %s\n", strings.Join(needs, ", "))
	}
	if in.Job != nil {
		if r := requiresText(in.Job); r != "" {
			fmt.Fprintf(sb, "      requires: %s\n", r)
		}
		if p := providesText(in.Job); p != "" {
			fmt.Fprintf(sb, "      provides: %s\n", p)
		}
	}
	if in.IdempotencyKey != "" && !grouped {
		fmt.Fprintf(sb, "      key: %s\n", in.IdempotencyKey)
	}
	if in.Origin != protocol.OriginTemplate {
		if in.Because != "" {
			fmt.Fprintf(sb, "      origin: %s, because: %s\n", in.Origin, in.Because)
		} else {
			fmt.Fprintf(sb, "      origin: %s\n", in.Origin)
		}
	}
	if in.Retry {
		sb.WriteString("      retry: yes\n")
	}
}

func writeGate(sb *strings.Builder, in *protocol.JobInstance) {
	g := in.Gate
	fmt.Fprintf(sb, "  - gate %s (%s)\n", in.ID, g.Type)
	if len(in.Needs) > 0 {
		fmt.Fprintf(sb, "      needs: %s\n", strings.Join(in.Needs, ", "))
	}
	fmt.Fprintf(sb, "      reason: %s\n", g.Reason)
	fmt.Fprintf(sb, "      options: %s\n", strings.Join(g.OptionIDs(), " | "))
	if len(g.RequiredRoles) > 0 {
		fmt.Fprintf(sb, "      roles: %s\n", strings.Join(g.RequiredRoles, ", "))
	}
}
