package protocol

import (
	"fmt"
	"slices"
)

// GateType is the kind of decision a gate waits for.
type GateType string

const (
	GateApproval          GateType = "approval"
	GateProviderSelection GateType = "provider_selection"
	GateDestructive       GateType = "destructive"
	GatePolicyException   GateType = "policy_exception"
	GateMissingInput      GateType = "missing_input"
	GateCostConfirmation  GateType = "cost_confirmation"
)

// GateTypes lists every gate type, sorted.
var GateTypes = []GateType{GateApproval, GateCostConfirmation, GateDestructive, GateMissingInput, GatePolicyException, GateProviderSelection}

// Valid reports whether t is a known gate type.
func (t GateType) Valid() bool { return slices.Contains(GateTypes, t) }

// WaitStatus is the operation status while a gate of this type waits.
func (t GateType) WaitStatus() OperationStatus {
	if t == GateMissingInput || t == GateProviderSelection {
		return StatusWaitingForInput
	}
	return StatusWaitingForApproval
}

// Gate is a DAG node that waits for a decision.
type Gate struct {
	ID            string   `yaml:"id" json:"id"`
	Type          GateType `yaml:"type" json:"type"`
	Reason        string   `yaml:"reason" json:"reason"`
	Options       []string `yaml:"options" json:"options"`
	RequiredRoles []string `yaml:"required_roles,omitempty" json:"required_roles,omitempty"`
	// Before names the jobs the gate holds back (template gates).
	Before []string `yaml:"before,omitempty" json:"before,omitempty"`
}

// Validate checks the gate's own shape.
func (g Gate) Validate() error {
	if g.ID == "" {
		return fmt.Errorf("gate: id is empty")
	}
	if !g.Type.Valid() {
		return fmt.Errorf("gate %q: type %q is not one of %v", g.ID, g.Type, GateTypes)
	}
	if len(g.Options) == 0 {
		return fmt.Errorf("gate %q: needs at least one option", g.ID)
	}
	return nil
}

// Decision answers a gate: the option chosen and who chose it.
type Decision struct {
	Gate   string   `json:"gate"`
	Option string   `json:"option"`
	Actor  string   `json:"actor"`
	Roles  []string `json:"roles"`
}

// Check verifies the decision against the gate: the option must be one of
// the gate's and the actor must hold one of the required roles.
func (d Decision) Check(g Gate) error {
	if !slices.Contains(g.Options, d.Option) {
		return fmt.Errorf("gate %q: option %q is not one of %q", g.ID, d.Option, g.Options)
	}
	if len(g.RequiredRoles) == 0 {
		return nil
	}
	for _, r := range d.Roles {
		if slices.Contains(g.RequiredRoles, r) {
			return nil
		}
	}
	return fmt.Errorf("gate %q: actor %q has roles %q but the gate requires one of %q", g.ID, d.Actor, d.Roles, g.RequiredRoles)
}
