package planner

import (
	"fmt"
	"slices"
	"strings"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// RenderMermaid renders the plan as a mermaid `flowchart TB`: one subgraph
// per stage, gates as hexagons, edges from each need to its dependent.
func RenderMermaid(p *protocol.Plan) string {
	ids := mermaidIDs(p)
	var sb strings.Builder
	sb.WriteString("flowchart TB\n")
	for _, st := range p.Stages {
		fmt.Fprintf(&sb, "  subgraph %s[\"%s\"]\n", mermaidSafe("stage_"+st.ID), mermaidLabel(st.Title))
		for _, id := range st.Instances {
			in, _ := p.Instance(id)
			if in.IsGate() {
				fmt.Fprintf(&sb, "    %s{{\"%s: %s\"}}\n", ids[id], in.Gate.Type, mermaidLabel(id))
			} else {
				fmt.Fprintf(&sb, "    %s[\"%s\"]\n", ids[id], mermaidLabel(id))
			}
		}
		sb.WriteString("  end\n")
	}
	joins := mermaidJoins(p, ids, &sb)
	for _, in := range p.Instances {
		for _, n := range in.Needs {
			from := ids[n]
			if j, ok := joins[n]; ok {
				from = j
			}
			fmt.Fprintf(&sb, "  %s --> %s\n", from, ids[in.ID])
		}
	}
	return sb.String()
}

// mermaidJoins draws each group need of p (protocol.GroupNeed) once, as a
// circle that every instance of the group points to, so that a full mesh
// is drawn with edges linear in its instances. It returns the circle's
// node id per group need.
func mermaidJoins(p *protocol.Plan, ids map[string]string, sb *strings.Builder) map[string]string {
	var needs []string
	seen := map[string]bool{}
	for _, in := range p.Instances {
		for _, n := range in.Needs {
			if _, ok := protocol.NeedGroup(n); ok && !seen[n] {
				seen[n] = true
				needs = append(needs, n)
			}
		}
	}
	if len(needs) == 0 {
		return nil
	}
	slices.Sort(needs)
	groups := p.Groups()
	used := make(map[string]bool, len(ids))
	for _, id := range ids {
		used[id] = true
	}
	out := make(map[string]string, len(needs))
	for _, n := range needs {
		k, _ := protocol.NeedGroup(n)
		base := mermaidSafe(k + "_all")
		id := base
		for i := 2; used[id]; i++ {
			id = fmt.Sprintf("%s_%d", base, i)
		}
		used[id] = true
		out[n] = id
		fmt.Fprintf(sb, "  %s((\"%s\"))\n", id, mermaidLabel(n))
		for _, m := range groups[k] {
			fmt.Fprintf(sb, "  %s --> %s\n", ids[m.ID], id)
		}
	}
	return out
}

// mermaidIDs maps instance ids to unique mermaid node ids.
func mermaidIDs(p *protocol.Plan) map[string]string {
	out := make(map[string]string, len(p.Instances))
	used := make(map[string]bool, len(p.Instances))
	for _, in := range p.Instances {
		base := mermaidSafe(in.ID)
		id := base
		for i := 2; used[id]; i++ {
			id = fmt.Sprintf("%s_%d", base, i)
		}
		used[id] = true
		out[in.ID] = id
	}
	return out
}

// mermaidSafe keeps letters, digits and underscores; anything else becomes
// an underscore, and a leading digit gets a prefix.
func mermaidSafe(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			b[i] = '_'
		}
	}
	if len(b) == 0 || b[0] >= '0' && b[0] <= '9' {
		return "n_" + string(b)
	}
	return string(b)
}

func mermaidLabel(s string) string {
	return strings.ReplaceAll(s, `"`, "#quot;")
}
