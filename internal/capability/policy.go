package capability

import "slices"

// EnvPolicy is the provider policy of one capability in one environment
// (seed 001 §6 capability_policy).
type EnvPolicy struct {
	// AllowedProviders lists the provider kinds allowed; empty allows any.
	AllowedProviders []string `json:"allowed_providers,omitempty"`
	// DefaultProvider breaks a tie between several acceptable providers.
	DefaultProvider string `json:"default_provider,omitempty"`
	// RequireEncryption adds the constraint encryption: required.
	RequireEncryption bool `json:"require_encryption,omitempty"`
	// RequireApproval stops creation of a new provider at an approval gate.
	RequireApproval bool `json:"require_approval,omitempty"`
	// ApprovalRoles are the roles that may approve; empty means any role.
	ApprovalRoles []string `json:"approval_roles,omitempty"`
	// ExceptionRoles are the roles that may grant an exception to
	// AllowedProviders: when nothing allowed satisfies a requirement but a
	// provider the policy forbids would, a policy_exception gate offers
	// it, and only a decision by an actor holding one of these roles
	// grants it. Empty means no exception is possible.
	ExceptionRoles []string `json:"exception_roles,omitempty"`
	// MaxMonthlyCostWithoutConfirmation is the monthly cost in USD up to
	// which a provider is created without asking; creating one whose pack
	// declares a higher cost stops at a cost_confirmation gate. Nil means
	// no threshold.
	MaxMonthlyCostWithoutConfirmation *float64 `json:"max_monthly_cost_without_confirmation,omitempty"`
}

// Allows reports whether provider kind p is allowed.
func (e EnvPolicy) Allows(p string) bool {
	return len(e.AllowedProviders) == 0 || slices.Contains(e.AllowedProviders, p)
}

// Policy maps capability key -> environment -> policy.
type Policy map[string]map[string]EnvPolicy

// Lookup returns the policy of a capability key in an environment and
// whether one is declared.
func (p Policy) Lookup(key, environment string) (EnvPolicy, bool) {
	envs, ok := p[key]
	if !ok {
		return EnvPolicy{}, false
	}
	e, ok := envs[environment]
	return e, ok
}
