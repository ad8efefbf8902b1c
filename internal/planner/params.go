package planner

import (
	"maps"
	"sort"
	"strings"

	"github.com/intentops/terraform-provider-cp/internal/paramtype"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// packParams merges a pack's parameter defaults with the intent's values
// and checks every value against its typed spec (paramtype.Check): the
// intent's values, the pack's defaults, unknown names and missing required
// values each give a ParamError. An empty value is no value: the default
// applies. Intent parameters named "<pack>.<name>" belong to the
// sub-operation of that pack and are skipped here when skip reports true
// for the pack.
func packParams(p *protocol.ScenarioPack, values map[string]string, skip func(pack string) bool) (map[string]string, error) {
	return checkPackParams(p, values, "", skip)
}

// subPackParams is packParams for the pack of a sub-operation: it takes
// the intent parameters addressed to it ("minio.bucket" -> "bucket") and
// names them in errors as the intent wrote them.
func subPackParams(p *protocol.ScenarioPack, intent map[string]string) (map[string]string, error) {
	return checkPackParams(p, subParams(p.ID, intent), p.ID+".", nil)
}

func checkPackParams(p *protocol.ScenarioPack, values map[string]string, prefix string, skip func(pack string) bool) (map[string]string, error) {
	known := knownParams(p)
	out := map[string]string{}
	var errs ParamErrors
	refused := map[string]bool{}
	refuse := func(name, value, msg string) {
		refused[name] = true
		errs = append(errs, &ParamError{Pack: p.Ref(), Name: prefix + name, Msg: msg, Value: value})
	}
	for _, k := range protocol.SortedKeys(p.Parameters) {
		s := p.Parameters[k]
		if s.Default == "" {
			continue
		}
		if err := paramtype.Check(s, s.Default); err != nil {
			refuse(k, s.Default, "the pack's default "+err.Error()+"; fix parameters."+k+".default in the pack")
			continue
		}
		out[k] = s.Default
	}
	for _, k := range protocol.SortedKeys(values) {
		if pre, _, ok := strings.Cut(k, "."); ok && skip != nil && skip(pre) {
			continue
		}
		specs, ok := known[k]
		if !ok {
			refuse(k, values[k], "unknown: the pack has no such parameter; known: "+strings.Join(protocol.SortedKeys(known), ", "))
			continue
		}
		v := values[k]
		if v == "" {
			continue
		}
		if err := checkAll(specs, v); err != nil {
			refuse(k, v, err.Error())
			continue
		}
		out[k] = v
	}
	for _, k := range protocol.SortedKeys(p.Parameters) {
		if p.Parameters[k].Required && !p.Parameters[k].MissingInput && out[k] == "" && !refused[k] {
			refuse(k, "", "is required: set it in the intent")
		}
	}
	if len(errs) > 0 {
		sortErrors(errs)
		return nil, errs
	}
	return out, nil
}

// knownParams maps every parameter an intent may set for a pack to the
// specs its value must pass: the pack's own spec, or for a parameter only
// jobs declare, each job's declaration.
func knownParams(p *protocol.ScenarioPack) map[string][]protocol.ParamSpec {
	known := map[string][]protocol.ParamSpec{}
	for k, s := range p.Parameters {
		known[k] = []protocol.ParamSpec{s}
	}
	for _, id := range protocol.SortedKeys(p.Jobs) {
		for _, k := range protocol.SortedKeys(p.Jobs[id].Inputs.Parameters) {
			if _, inPack := p.Parameters[k]; !inPack {
				known[k] = append(known[k], paramtype.Inherit(p.Jobs[id].Inputs.Parameters[k], nil))
			}
		}
	}
	return known
}

// checkAll returns the first refusal of v by specs.
func checkAll(specs []protocol.ParamSpec, v string) error {
	for _, s := range specs {
		if err := paramtype.Check(s, v); err != nil {
			return err
		}
	}
	return nil
}

// subParams picks the intent parameters addressed to a sub-operation pack
// ("minio.bucket" -> "bucket").
func subParams(packID string, values map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range values {
		if rest, ok := strings.CutPrefix(k, packID+"."); ok {
			out[rest] = v
		}
	}
	return out
}

// jobParams returns the parameters of a job unit: the pack's merged values,
// the job's own defaults for what it declares, and patch overrides, each
// checked against the job's spec of the parameter (an untyped declaration
// takes the pack's spec; a typed one must pass the pack's spec too). The
// map is shared by the unit's instances.
func jobParams(u *unit) (map[string]string, error) {
	base := u.base
	out := make(map[string]string, len(base)+len(u.job.Inputs.Parameters))
	maps.Copy(out, base)
	var errs ParamErrors
	refuse := func(name, value, msg string) {
		if u.subOp != "" {
			name = u.subOp + "." + name
		}
		errs = append(errs, &ParamError{Pack: u.pack.Ref(), Job: u.key, Name: name, Msg: msg, Value: value})
	}
	for _, k := range protocol.SortedKeys(u.job.Inputs.Parameters) {
		decl := u.job.Inputs.Parameters[k]
		var pack *protocol.ParamSpec
		if s, ok := u.pack.Parameters[k]; ok {
			pack = &s
		}
		spec := paramtype.Inherit(decl, pack)
		if decl.Type != "" {
			if ps := paramtype.ValidateSpec(decl); len(ps) > 0 {
				refuse(k, "", "the job declares it with an invalid spec: "+ps[0].String())
				continue
			}
		}
		source := ""
		if v := u.override[k]; v != "" {
			out[k], source = v, "the patch's value "
		} else if out[k] == "" && spec.Default != "" {
			out[k], source = spec.Default, "the job's default "
		}
		v := out[k]
		if v == "" {
			if spec.Required && (pack == nil || !pack.MissingInput) {
				refuse(k, "", "is required and has no value: set it in the intent or the patch")
			}
			continue
		}
		specs := []protocol.ParamSpec{spec}
		if pack != nil && decl.Type != "" {
			specs = append(specs, *pack)
		}
		if err := checkAll(specs, v); err != nil {
			refuse(k, v, source+err.Error())
		}
	}
	for _, k := range protocol.SortedKeys(u.override) {
		if _, ok := u.job.Inputs.Parameters[k]; !ok {
			refuse(k, u.override[k], "is set by a patch, but job "+u.job.ID+" does not read it (it reads: "+
				strings.Join(protocol.SortedKeys(u.job.Inputs.Parameters), ", ")+")")
		}
	}
	if len(errs) > 0 {
		sortErrors(errs)
		return nil, errs
	}
	return out, nil
}

// sortErrors orders parameter errors by name, so a plan reports them the
// same way every time.
func sortErrors(errs ParamErrors) {
	sort.SliceStable(errs, func(i, j int) bool { return errs[i].Name < errs[j].Name })
}
