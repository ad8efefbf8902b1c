package intent

import (
	"maps"
	"regexp"
	"slices"

	"github.com/intentops/terraform-provider-cp/internal/capability"
	"github.com/intentops/terraform-provider-cp/internal/engine"
	"github.com/intentops/terraform-provider-cp/internal/paramtype"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// ownValueSpecs are the types the intent's own export values are checked
// against before they are substituted.
var ownValueSpecs = map[string]protocol.ParamSpec{
	"name": {Type: paramtype.String}, "environment": {Type: paramtype.String},
	"region": {Type: paramtype.String}, "api_endpoint": {Type: paramtype.URL},
}

// ExportValues are the values an export's {placeholders} are replaced
// with: for each parameter the pack declares, the intent's value or else
// the default; then the intent's own values (protocol.ExportValues: name,
// environment, region, api_endpoint) where set. Only type-checked values
// are substituted: a value that is not one of its declared type (a
// parameter's, a URL for api_endpoint, text without control characters
// for the others) is left out, and so is a parameter the pack does not
// declare, whose type nothing says. (Attributes a job reports are
// substituted by the engine from the instance's parameters, which the
// planner checked.)
func ExportValues(pack *protocol.ScenarioPack, params, own map[string]string) map[string]string {
	out := map[string]string{}
	if pack != nil {
		for k, spec := range pack.Parameters {
			v := params[k]
			if v == "" {
				v = spec.Default
			}
			if v != "" && paramtype.Check(spec, v) == nil {
				out[k] = v
			}
		}
	}
	for k, v := range own {
		if spec, ok := ownValueSpecs[k]; ok && protocol.ExportValues[k] && v != "" && paramtype.Check(spec, v) == nil {
			out[k] = v
		}
	}
	return out
}

// Substitute replaces each {name} in s with values[name], in one pass (a
// value holding braces is not substituted again); a name without a value
// becomes empty.
func Substitute(s string, values map[string]string) string {
	return placeholder.ReplaceAllStringFunc(s, func(m string) string { return values[m[1:len(m)-1]] })
}

// placeholder is a {name} of an attribute, as protocol.KeyParams reads it.
var placeholder = regexp.MustCompile(`\{[a-zA-Z0-9_.]+\}`)

// substituteAll substitutes every attribute value and drops those left
// empty (an unset region is no region).
func substituteAll(attrs, values map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range attrs {
		if s := Substitute(v, values); s != "" {
			out[k] = s
		}
	}
	return out
}

// Exports are the capabilities a resource offers others once its pack's
// create action completed: the pack's provides, each with its attributes
// substituted from values (ExportValues). Sorted by key.
func Exports(pack *protocol.ScenarioPack, values map[string]string) []protocol.Capability {
	return Provided(pack, nil, nil, values)
}

// Provided are the capabilities an operation leaves the resource with:
// the pack's provides (as Exports), with the attributes the jobs that
// provided them reported (their placeholders substituted too) over the
// pack's, and each public or internal artifact's value as
// artifact.<id>. Sorted by key.
func Provided(pack *protocol.ScenarioPack, reported []engine.ProvidedCapability, arts []protocol.Artifact, values map[string]string) []protocol.Capability {
	if pack == nil {
		return nil
	}
	byKey := map[string]map[string]string{}
	for _, rc := range reported {
		if byKey[rc.Key] == nil {
			byKey[rc.Key] = map[string]string{}
		}
		maps.Copy(byKey[rc.Key], substituteAll(rc.Attributes, values))
	}
	var out []protocol.Capability
	for _, p := range pack.Provides {
		attrs := substituteAll(p.Attributes, values)
		maps.Copy(attrs, byKey[p.Capability])
		for _, a := range arts {
			if a.Sensitivity != protocol.SensitivitySecret && a.Value != "" {
				attrs["artifact."+a.ID] = a.Value
			}
		}
		out = append(out, protocol.Capability{Key: p.Capability, Scope: p.Scope, Attributes: attrs})
	}
	sortCaps(out)
	return out
}

// ExportProvider is the provider kind a capability policy names for an
// export of the pack: the provision's provider, or def (the exporting
// resource's kind).
func ExportProvider(pack *protocol.ScenarioPack, key, def string) string {
	if pack != nil {
		for _, p := range pack.Provides {
			if p.Capability == key && p.Provider != "" {
				return p.Provider
			}
		}
	}
	return def
}

// Candidates turn a resource's exports into resolution candidates named
// after the resource, each of the provider kind ExportProvider gives.
func Candidates(pack *protocol.ScenarioPack, name, defProvider string, exports []protocol.Capability) []capability.Candidate {
	var out []capability.Candidate
	for _, c := range exports {
		out = append(out, capability.Candidate{Name: name, Provider: ExportProvider(pack, c.Key, defProvider),
			Source: capability.SourceResource, Capability: c})
	}
	return out
}

func sortCaps(caps []protocol.Capability) {
	for i := 1; i < len(caps); i++ {
		for j := i; j > 0 && caps[j].Key < caps[j-1].Key; j-- {
			caps[j], caps[j-1] = caps[j-1], caps[j]
		}
	}
}

// PackOfKind is the newest pack of the catalog that manages resources of
// kind (its resource_types), nil when none does.
func PackOfKind(cat Catalog, kind string) *protocol.ScenarioPack {
	var out *protocol.ScenarioPack
	for _, p := range cat.List() {
		if slices.Contains(p.ResourceTypes, kind) {
			if newest, err := cat.Get(p.ID, ""); err == nil {
				out = newest
			}
			break
		}
	}
	return out
}
