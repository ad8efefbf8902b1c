package provider

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/intentops/terraform-provider-cp/internal/paramtype"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// checkDecisions verifies, at plan time, that approvals name gates of the
// planned operations (with one of their options) and interventions name
// their jobs and hosts. Nothing to run means nothing to check: decisions
// for past operations may stay in the configuration.
func checkDecisions(ops []intentOp, approvals []approvalModel, interventions []interventionModel, diags *diag.Diagnostics) {
	if len(ops) == 0 {
		return
	}
	gates := map[string][]string{}
	jobs := map[string]bool{}
	hosts := map[string]bool{}
	// Gates of the pack's other actions may be approved ahead (e.g. the
	// removal gate of a node, approved when it is added).
	later := map[string][]string{}
	for _, op := range ops {
		for _, t := range op.Composed.Pack.Templates {
			for _, g := range t.Gates {
				later[g.ID] = g.OptionIDs()
			}
		}
		for _, in := range op.Composed.Plan.Instances {
			if in.Gate != nil {
				gates[in.Gate.ID] = in.Gate.OptionIDs()
			}
			jobs[in.JobID] = true
			if in.Host != "" {
				hosts[in.Host] = true
			}
		}
	}
	for i, a := range approvals {
		p := path.Root("approvals").AtListIndex(i)
		opts, ok := gates[strOr(a.Gate, "")]
		if !ok {
			opts, ok = later[strOr(a.Gate, "")]
		}
		if !ok {
			addAttrError(diags, p.AtName("gate"), "Unknown gate",
				fmt.Sprintf("neither the plan nor the pack has a gate %s; gates in this plan: %s. Remove the approval or name one of them.", paramtype.Quote(strOr(a.Gate, "")), listOrNone(protocol.SortedKeys(gates))))
			continue
		}
		if !slices.Contains(opts, strOr(a.Option, "")) {
			addAttrError(diags, p.AtName("option"), "Unknown option",
				fmt.Sprintf("gate %s has no option %s; its options: %s.", strOr(a.Gate, ""), paramtype.Quote(strOr(a.Option, "")), strings.Join(quoteAll(opts), ", ")))
		}
	}
	for i, iv := range interventions {
		p := path.Root("interventions").AtListIndex(i)
		if j := strOr(iv.Job, ""); j != "" && !jobs[j] {
			addAttrError(diags, p.AtName("job"), "Unknown job",
				fmt.Sprintf("the plan has no job %s; an intervention names the job that failed, e.g. one of: %s.", paramtype.Quote(j), listOrNone(firstN(protocol.SortedKeys(jobs), 8))))
		}
		if n := strOr(iv.Node, ""); n != "" && !hosts[n] {
			addAttrError(diags, p.AtName("node"), "Unknown node", fmt.Sprintf("no job of the plan runs on %s.", paramtype.Quote(n)))
		}
	}
}

func listOrNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(quoteAll(s), ", ")
}

func quoteAll(s []string) []string {
	out := make([]string, len(s))
	for i, v := range s {
		out[i] = fmt.Sprintf("%q", v)
	}
	return out
}

func firstN(s []string, n int) []string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
