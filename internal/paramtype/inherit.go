package paramtype

import "github.com/intentops/terraform-provider-cp/internal/protocol"

// Inherit returns the spec a job's declaration of a parameter stands for.
// A declaration without a type ({} or {required: true}) takes the pack's
// spec, keeping its own required, default and description where it sets
// them; one with a type is its own spec (values must then pass the pack's
// spec as well). pack is nil when the pack does not declare the parameter;
// an untyped declaration is then a string.
func Inherit(job protocol.ParamSpec, pack *protocol.ParamSpec) protocol.ParamSpec {
	if job.Type != "" {
		return job
	}
	if pack == nil {
		job.Type = String
		return job
	}
	out := *pack
	out.Required = job.Required
	if job.Default != "" {
		out.Default = job.Default
	}
	if job.Description != "" {
		out.Description = job.Description
	}
	return out
}

// Narrows reports whether a spec sets a field that narrows its type, which
// an untyped job declaration may not do (it takes the pack's type whole).
func Narrows(s protocol.ParamSpec) bool {
	return len(s.Enum) > 0 || s.Min != nil || s.Max != nil || s.Pattern != "" || s.MaxLength != 0 || s.Versions != "" || s.Items != nil
}
