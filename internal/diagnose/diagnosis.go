package diagnose

import (
	"fmt"
	"strings"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// Risk of the remedy a diagnosis proposes: the patch together with any
// manual step it depends on.
type Risk string

const (
	RiskLow    Risk = "low"
	RiskMedium Risk = "medium"
	RiskHigh   Risk = "high"
)

// Valid reports whether r is low, medium or high.
func (r Risk) Valid() bool { return r == RiskLow || r == RiskMedium || r == RiskHigh }

// Diagnosis says what went wrong and how sure the analyzer is.
type Diagnosis struct {
	// Source is who diagnosed: "diagnose:rule/<id>" for a built-in rule,
	// "analyzer:<name>" for an external analyzer.
	Source string `json:"source"`
	// Rule is the built-in rule's id; empty for external analyzers.
	Rule        string `json:"rule,omitempty"`
	Summary     string `json:"summary"`
	Explanation string `json:"explanation"`
	// Evidence quotes the exact log lines and observations that matched,
	// in the order they appear in the failure.
	Evidence   []string `json:"evidence"`
	Risk       Risk     `json:"risk"`
	Confidence float64  `json:"confidence"`
	// ManualSteps are what a person must do on the hosts before the patch
	// can help (when no job of the pack does it).
	ManualSteps []string `json:"manual_steps,omitempty"`
	// Notes are remarks on the proposed patch, e.g. a placeholder
	// parameter value the user must replace.
	Notes []string `json:"notes,omitempty"`
	// Related lists other built-in rules whose signature also matched.
	Related []string `json:"related,omitempty"`
}

// Validate checks a diagnosis received from an analyzer.
func (d Diagnosis) Validate() error {
	switch {
	case strings.TrimSpace(d.Summary) == "":
		return fmt.Errorf("diagnosis: summary is empty")
	case !d.Risk.Valid():
		return fmt.Errorf("diagnosis: risk %q is not one of low, medium, high", d.Risk)
	case d.Confidence < 0 || d.Confidence > 1:
		return fmt.Errorf("diagnosis: confidence %v is not between 0 and 1", d.Confidence)
	}
	return nil
}

// Answer is what an analyzer returns: a diagnosis and, when it also plays
// the planner, a proposed patch (not yet reviewed).
type Answer struct {
	Diagnosis Diagnosis           `json:"diagnosis"`
	Patch     *protocol.PlanPatch `json:"plan_patch,omitempty"`
}

// Rejection records a proposed patch the reviewer refused, or an analyzer
// whose answer could not be used.
type Rejection struct {
	// Source is the analyzer or rule that proposed it.
	Source string `json:"source"`
	// Patch is the proposed patch; nil when the analyzer's answer itself
	// was unusable.
	Patch  *protocol.PlanPatch `json:"plan_patch,omitempty"`
	Reason string              `json:"reason"`
}

// Result of Diagnose.
type Result struct {
	Diagnosis Diagnosis `json:"diagnosis"`
	// Patch is the reviewed patch to propose to the user; nil when there
	// is nothing to propose (an unrecognised failure).
	Patch *protocol.PlanPatch `json:"plan_patch,omitempty"`
	// Warnings say which analyzers failed and why the result fell back.
	Warnings []string `json:"warnings,omitempty"`
	// Rejected lists proposals that were refused, in the order tried.
	Rejected []Rejection `json:"rejected,omitempty"`
}
