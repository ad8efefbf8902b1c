package planner

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// packParams merges a pack's parameter defaults with the intent's values
// and validates them: unknown names, missing required values, enums.
// Intent parameters named "<pack>.<name>" belong to the sub-operation of
// that pack and are skipped here when skip reports true for the pack.
func packParams(p *protocol.ScenarioPack, values map[string]string, skip func(pack string) bool) (map[string]string, error) {
	known := map[string]protocol.ParamSpec{}
	for _, j := range p.Jobs {
		for k, s := range j.Inputs.Parameters {
			known[k] = s
		}
	}
	for k, s := range p.Parameters {
		known[k] = s
	}
	out := map[string]string{}
	for k, s := range p.Parameters {
		if s.Default != "" {
			out[k] = s.Default
		}
	}
	var errs []string
	for _, k := range protocol.SortedKeys(values) {
		if pre, _, ok := strings.Cut(k, "."); ok && skip != nil && skip(pre) {
			continue
		}
		s, ok := known[k]
		if !ok {
			errs = append(errs, fmt.Sprintf("unknown parameter %q (known: %s)", k, strings.Join(protocol.SortedKeys(known), ", ")))
			continue
		}
		if err := checkEnum(k, values[k], s); err != nil {
			errs = append(errs, err.Error())
			continue
		}
		out[k] = values[k]
	}
	for _, k := range protocol.SortedKeys(p.Parameters) {
		if p.Parameters[k].Required && out[k] == "" {
			errs = append(errs, fmt.Sprintf("parameter %q is required: set it in the intent", k))
		}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("%w: pack %s: %s", ErrParams, p.Ref(), strings.Join(errs, "; "))
	}
	return out, nil
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

func checkEnum(name, v string, s protocol.ParamSpec) error {
	if len(s.Enum) > 0 && !slices.Contains(s.Enum, v) {
		return fmt.Errorf("parameter %q: %q is not one of %s", name, v, strings.Join(s.Enum, ", "))
	}
	return nil
}

// jobParams returns the parameters of a job unit: the pack's merged values,
// the job's own defaults for what it declares, and patch overrides. The
// map is shared by the unit's instances.
func jobParams(u *unit) (map[string]string, error) {
	base := u.base
	out := make(map[string]string, len(base)+len(u.job.Inputs.Parameters))
	maps.Copy(out, base)
	var errs []string
	for _, k := range protocol.SortedKeys(u.job.Inputs.Parameters) {
		s := u.job.Inputs.Parameters[k]
		if v, ok := u.override[k]; ok {
			out[k] = v
		} else if out[k] == "" && s.Default != "" {
			out[k] = s.Default
		}
		if out[k] == "" {
			if s.Required {
				errs = append(errs, fmt.Sprintf("parameter %q is required and has no value: set it in the intent or the patch", k))
			}
			continue
		}
		if err := checkEnum(k, out[k], s); err != nil {
			errs = append(errs, err.Error())
		}
	}
	for _, k := range protocol.SortedKeys(u.override) {
		if _, ok := u.job.Inputs.Parameters[k]; !ok {
			errs = append(errs, fmt.Sprintf("patch sets parameter %q that the job does not read", k))
		}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("%w: job %s: %s", ErrParams, u.key, strings.Join(errs, "; "))
	}
	return out, nil
}
