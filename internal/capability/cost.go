package capability

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// usd renders an amount of dollars without trailing zeros: 40, 12.5.
func usd(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// costNote says what a creator costs, for reasons: " (40 USD a month)".
func costNote(c Creator) string {
	if c.MonthlyUSD <= 0 {
		return ""
	}
	return " (" + usd(c.MonthlyUSD) + " USD a month)"
}

// overCost reports whether creating with c needs a cost confirmation: the
// policy sets max_monthly_cost_without_confirmation and the pack declares
// a higher monthly cost. The reason says both amounts.
func (r *resolution) overCost(c Creator) (bool, string) {
	max := r.policy.MaxMonthlyCostWithoutConfirmation
	if max == nil || c.MonthlyUSD <= *max {
		return false, ""
	}
	return true, fmt.Sprintf("creating %s for %s (pack %s %s) costs %s USD a month, above the %s USD that the %s policy allows without confirmation (max_monthly_cost_without_confirmation)",
		c.Provider, r.key, c.Pack, c.Action, usd(c.MonthlyUSD), usd(*max), r.envName())
}

// costWithin says, for a creation below the threshold, that the cost was
// weighed: "; it costs 10 USD a month, within the 25 USD threshold of dev".
func (r *resolution) costWithin(c Creator) string {
	max := r.policy.MaxMonthlyCostWithoutConfirmation
	if max == nil {
		return ""
	}
	return fmt.Sprintf("; it costs %s USD a month, within the %s USD threshold of %s", usd(c.MonthlyUSD), usd(*max), r.envName())
}

// costGate holds the creation by c at a cost_confirmation gate, built for
// its create option; the policy's approval roles (if any) may confirm it.
func (r *resolution) costGate(d Decision, c Creator, why string) Decision {
	d.Create = r.newCreate(c)
	opts := []protocol.GateOption{r.createOption("create "+c.Provider, c)}
	d = r.gate(d, protocol.GateCostConfirmation, "confirm-cost-"+slug(c.Provider), why, opts, r.policy.ApprovalRoles)
	d.Gate.Chosen = opts[0].ID // the plan holds this creation behind the gate
	return d
}

func sortedCopy(s []string) []string { return slices.Sorted(slices.Values(s)) }
