package protocol

// PackCost is what one instance created by a pack costs (pack.yaml cost).
// Capability resolution weighs it against the policy's
// max_monthly_cost_without_confirmation: a higher cost stops the creation
// at a cost_confirmation gate.
type PackCost struct {
	MonthlyUSD float64 `yaml:"monthly_usd" json:"monthly_usd"`
}
