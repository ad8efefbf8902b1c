package protocol

import (
	"fmt"
	"sort"
)

// Scope says where a capability or artifact lives and how requirements are
// matched against providers.
type Scope string

const (
	// ScopeCluster is one value for the whole operation target.
	ScopeCluster Scope = "cluster"
	// ScopeNode is one value per host; a node-scoped requirement of an
	// instance on host H is satisfied by the provider instance on host H.
	ScopeNode Scope = "node"
)

// Valid reports whether s is a known scope. The empty scope means cluster.
func (s Scope) Valid() bool {
	return s == "" || s == ScopeCluster || s == ScopeNode
}

// Normal returns the scope with the empty value resolved to cluster.
func (s Scope) Normal() Scope {
	if s == "" {
		return ScopeCluster
	}
	return s
}

// Capability is something a resource provides, e.g. kubernetes.cluster,
// with a scope and attributes (endpoint, region, encryption...).
type Capability struct {
	Key        string            `yaml:"key" json:"key"`
	Scope      Scope             `yaml:"scope,omitempty" json:"scope,omitempty"`
	Attributes map[string]string `yaml:"attributes,omitempty" json:"attributes,omitempty"`
}

// CapabilityRequirement is a capability a job or pack needs, with the
// constraints a provider must meet.
//
// Constraint values are matched by the capability package: a plain value is
// equality; "required" means the attribute must be present and truthy;
// "same-as-workload" refers to the requesting intent's attribute of the same
// name; keys prefixed "min_" are numeric minimums of the attribute without
// the prefix.
type CapabilityRequirement struct {
	Key         string            `yaml:"key" json:"key"`
	Scope       Scope             `yaml:"scope,omitempty" json:"scope,omitempty"`
	Constraints map[string]string `yaml:"constraints,omitempty" json:"constraints,omitempty"`
	// Optional requirements do not fail planning when nothing provides them.
	Optional bool `yaml:"optional,omitempty" json:"optional,omitempty"`
}

// Validate checks the requirement's own shape.
func (r CapabilityRequirement) Validate() error {
	if r.Key == "" {
		return fmt.Errorf("capability requirement: key is empty")
	}
	if !r.Scope.Valid() {
		return fmt.Errorf("capability requirement %q: unknown scope %q (use cluster or node)", r.Key, r.Scope)
	}
	return nil
}

// SortedKeys returns the keys of m in order; used wherever a map is rendered.
func SortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
