package protocol

import (
	"fmt"
	"regexp"
	"strings"
)

// ConstraintShape says how a requirement's constraint shapes the creation
// of a provider: when a consumer's constraint is set (and, with When, has
// that value), the creating pack's Parameter takes Value, in which
// {value} is the constraint's value (same-as-workload resolved) and
// {consumer} the consuming intent's name. pack.yaml provides[i].shaped_by.
type ConstraintShape struct {
	Constraint string `yaml:"constraint" json:"constraint"`
	When       string `yaml:"when,omitempty" json:"when,omitempty"`
	Parameter  string `yaml:"parameter" json:"parameter"`
	// Value defaults to "{value}".
	Value string `yaml:"value,omitempty" json:"value,omitempty"`
}

// ShapePlaceholders are the placeholders a shape's value may name.
var ShapePlaceholders = map[string]bool{"value": true, "consumer": true}

var shapePlaceholder = regexp.MustCompile(`\{([^{}]*)\}`)

// Validate checks the shape against the pack's parameters.
func (s ConstraintShape) Validate(params map[string]ParamSpec) error {
	if s.Constraint == "" {
		return fmt.Errorf("constraint is empty; name the requirement constraint it reads, e.g. min_capacity_gb")
	}
	if _, ok := params[s.Parameter]; !ok {
		return fmt.Errorf("parameter %q is not a parameter of the pack; name one of %s", s.Parameter, strings.Join(SortedKeys(params), ", "))
	}
	for _, m := range shapePlaceholder.FindAllStringSubmatch(s.Value, -1) {
		if !ShapePlaceholders[m[1]] {
			return fmt.Errorf("value %q names {%s}; a shape's value may name only {value} and {consumer}", s.Value, m[1])
		}
	}
	return nil
}

// Render is the parameter value for constraint value v and consumer c.
func (s ConstraintShape) Render(v, consumer string) string {
	tmpl := s.Value
	if tmpl == "" {
		tmpl = "{value}"
	}
	return strings.NewReplacer("{value}", v, "{consumer}", consumer).Replace(tmpl)
}
