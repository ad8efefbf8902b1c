package packs

import (
	"github.com/intentops/terraform-provider-cp/internal/paramtype"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// validateParam checks a parameter spec of pack.yaml (field is
// parameters.<name>) with paramtype.ValidateSpec: a declared type, fields
// that narrow it, a default of that type.
func (l *loaded) validateParam(d *doc, field string, s protocol.ParamSpec) {
	for _, p := range paramtype.ValidateSpec(s) {
		f := field + "." + p.Field
		l.rep.add(d.path, d.line(f), f, "%s", p.Msg)
	}
}

// validateJobParam checks a job's declaration of a parameter (field is
// inputs.parameters.<name>). Without a type it takes the pack's spec and
// may set only required, default and description; with a type it is a
// spec of its own, of the pack's type when the pack declares one, and a
// value must pass both.
func (l *loaded) validateJobParam(d *doc, field, name string, s protocol.ParamSpec) {
	add := func(sub, format string, args ...any) {
		l.rep.add(d.path, d.line(field+sub), field+sub, format, args...)
	}
	pack, inPack := l.pack.Parameters[name]
	if s.Type != "" || !inPack {
		l.validateParam(d, field, s)
		if inPack && s.Type != "" && pack.Type != "" && s.Type != pack.Type {
			add(".type", "type %s differs from %s of pack.yaml parameters.%s; use the same type, or drop type to take the pack's spec", s.Type, pack.Type, name)
		}
		if inPack && s.Default != "" && pack.Type != "" {
			if err := paramtype.Check(pack, s.Default); err != nil {
				add(".default", "%v (the pack's spec of %s)", err, name)
			}
		}
		return
	}
	if paramtype.Narrows(s) {
		add("", "narrows the pack's spec without a type of its own; declare type: %s to narrow it, or keep only required, default and description", orDefault(pack.Type, "<type>"))
		return
	}
	if pack.Type == "" {
		return // reported at pack.yaml
	}
	eff := paramtype.Inherit(s, &pack)
	if s.Default != "" {
		if err := paramtype.Check(eff, s.Default); err != nil {
			add(".default", "%v (the pack's spec of %s)", err, name)
		}
	}
}
