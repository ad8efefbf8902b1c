package intent

import (
	"regexp"
	"slices"
	"strconv"

	"github.com/intentops/terraform-provider-cp/internal/capability"
	"github.com/intentops/terraform-provider-cp/internal/paramtype"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// Access modes of a requirement.
const (
	AccessShared    = "shared"
	AccessDedicated = "dedicated"
)

// RequirementConstraints are the typed constraints a consumer sets on one
// of its pack's requirements (requirements["object_storage.s3"]). Nil
// and empty fields set nothing.
type RequirementConstraints struct {
	MinCapacityGB *int64
	Encryption    *bool
	AccessMode    string
	Region        string
}

var regionRe = regexp.MustCompile(`^[a-z0-9-]{1,32}$`)

// Map renders the constraints as capability constraints: min_capacity_gb,
// encryption required or not-required, access_mode, region.
func (c RequirementConstraints) Map() map[string]string {
	out := map[string]string{}
	if c.MinCapacityGB != nil {
		out["min_capacity_gb"] = strconv.FormatInt(*c.MinCapacityGB, 10)
	}
	if c.Encryption != nil {
		out["encryption"] = capability.ValueNotRequired
		if *c.Encryption {
			out["encryption"] = capability.ValueRequired
		}
	}
	if c.AccessMode != "" {
		out["access_mode"] = c.AccessMode
	}
	if c.Region != "" {
		out["region"] = c.Region
	}
	return out
}

// CheckRequirements refuses, at plan, constraints on a capability the
// pack does not require and values out of range, each on its attribute
// (base is the requirements attribute), and returns the valid ones as
// capability constraints by key.
func CheckRequirements(base Path, pack *protocol.ScenarioPack, reqs map[string]RequirementConstraints) (map[string]map[string]string, Problems) {
	var ps Problems
	if len(reqs) == 0 {
		return nil, nil
	}
	var known []string
	if pack != nil {
		for _, r := range pack.Requires {
			known = append(known, r.Capability)
		}
	}
	slices.Sort(known)
	out := map[string]map[string]string{}
	for _, key := range protocol.SortedKeys(reqs) {
		p, c := base.Key(key), reqs[key]
		if pack != nil && !slices.Contains(known, key) {
			ps.add(p, "Unknown requirement", "pack %s does not require %s, so these constraints would never apply; constrain one of its requirements: %s.",
				pack.Ref(), paramtype.Quote(key), orNone(known))
			continue
		}
		bad := false
		if c.MinCapacityGB != nil && (*c.MinCapacityGB < 1 || *c.MinCapacityGB > 1<<20) {
			ps.add(p.Attr("min_capacity_gb"), "Invalid capacity", "%d is not between 1 and %d (GB); give the least capacity the provider must have, e.g. 200.", *c.MinCapacityGB, 1<<20)
			bad = true
		}
		if c.AccessMode != "" && c.AccessMode != AccessShared && c.AccessMode != AccessDedicated {
			ps.add(p.Attr("access_mode"), "Invalid access mode", "%s is not an access mode; use %q (an instance of its own for this consumer) or %q.",
				paramtype.Quote(c.AccessMode), AccessDedicated, AccessShared)
			bad = true
		}
		if c.Region != "" && c.Region != capability.ValueSameAsWorkload && !regionRe.MatchString(c.Region) {
			ps.add(p.Attr("region"), "Invalid region", "%s is not a region: lower-case letters, digits and '-', at most 32, e.g. \"eu-central\", or %q.",
				paramtype.Quote(c.Region), capability.ValueSameAsWorkload)
			bad = true
		}
		if !bad {
			if m := c.Map(); len(m) > 0 {
				out[key] = m
			}
		}
	}
	return out, ps
}

// Criticality levels an intent may declare.
var Criticalities = []string{"low", "medium", "high", "critical"}

// CheckPolicyContext refuses a criticality not among Criticalities and a
// compliance regime that is not a lower-case name.
func CheckPolicyContext(crit Path, criticality string, comp Path, compliance []string) Problems {
	var ps Problems
	if criticality != "" && !slices.Contains(Criticalities, criticality) {
		ps.add(crit, "Invalid criticality", "%s is not a criticality; use one of %s.", paramtype.Quote(criticality), quoteList(Criticalities))
	}
	for i, c := range compliance {
		if !envLike.MatchString(c) {
			ps.add(comp.Index(i), "Invalid compliance regime", "%s is not a regime name: lower-case letters, digits and '-', e.g. \"pci\".", paramtype.Quote(c))
		}
	}
	return ps
}

var envLike = regexp.MustCompile(`^[a-z][a-z0-9-]{0,62}$`)

// CheckRules refuses rules that could not take effect: a bad effect, roles
// missing or misplaced, a duplicate name, a capability no pack requires.
func CheckRules(base Path, rules []capability.Rule, cat Catalog) Problems {
	var ps Problems
	known := RequiredCapabilities(cat)
	seen := map[string]int{}
	for i, ru := range rules {
		p := base.Index(i)
		if ru.Name == "" {
			ps.add(p.Attr("name"), "Missing rule name", "name the rule, e.g. \"pci-dedicated\"; the plan says which rule decided by its name.")
		} else if j, dup := seen[ru.Name]; dup {
			ps.add(p.Attr("name"), "Duplicate rule name", "%s is also the name of %s; give each rule its own name.", paramtype.Quote(ru.Name), base.Index(j))
		} else {
			seen[ru.Name] = i
		}
		if err := capability.CheckRule(ru); err != nil {
			ps.add(p.Attr("effect"), "Invalid rule", "%v.", err)
		}
		if ru.Capability != "" && !slices.Contains(known, ru.Capability) {
			ps.add(p.Attr("capability"), "Unknown capability", "%s is not a capability any scenario pack requires, so this rule would never apply; use one of %s.",
				paramtype.Quote(ru.Capability), quoteList(known))
		}
	}
	return ps
}

// RuleRoles are the roles rules let decide, for CheckActorRoles.
func RuleRoles(rules []capability.Rule) []string {
	var out []string
	for _, ru := range rules {
		out = append(out, ru.Roles...)
	}
	return out
}

// RequirementKeys are the constraints a consumer may set on a
// requirement.
var RequirementKeys = []string{"access_mode", "encryption", "min_capacity_gb", "region"}

// ParseRequirements reads requirements as HCL gives them (capability ->
// constraint -> value): a key that is not a constraint, a capacity that is
// not a whole number and an encryption that is not true or false are
// refused on their path; the rest is checked by CheckRequirements.
func ParseRequirements(base Path, pack *protocol.ScenarioPack, raw map[string]map[string]string) (map[string]map[string]string, Problems) {
	var ps Problems
	typed := map[string]RequirementConstraints{}
	for _, key := range protocol.SortedKeys(raw) {
		var c RequirementConstraints
		for _, k := range protocol.SortedKeys(raw[key]) {
			v, p := raw[key][k], base.Key(key).Key(k)
			switch k {
			case "min_capacity_gb":
				n, err := strconv.ParseInt(v, 10, 64)
				if err != nil {
					ps.add(p, "Invalid capacity", "%s is not a whole number of GB; give the least capacity, e.g. 200.", paramtype.Quote(v))
					continue
				}
				c.MinCapacityGB = &n
			case "encryption":
				if v != "true" && v != "false" {
					ps.add(p, "Invalid encryption", "%s is not true or false.", paramtype.Quote(v))
					continue
				}
				b := v == "true"
				c.Encryption = &b
			case "access_mode":
				c.AccessMode = v
			case "region":
				c.Region = v
			default:
				ps.add(p, "Unknown constraint", "%s is not a constraint a requirement takes; use %s.", paramtype.Quote(k), quoteList(RequirementKeys))
			}
		}
		typed[key] = c
	}
	out, more := CheckRequirements(base, pack, typed)
	// CheckRequirements names fields as attributes; as map keys here.
	for i := range more {
		more[i].Path = attrsAsKeys(more[i].Path)
	}
	return out, append(ps, more...)
}

// attrsAsKeys turns the attribute steps after the first two (the
// requirements attribute and its capability key) into map keys.
func attrsAsKeys(p Path) Path {
	out := make(Path, len(p))
	copy(out, p)
	for i := 2; i < len(out); i++ {
		if out[i].Kind == StepAttr {
			out[i].Kind = StepKey
		}
	}
	return out
}
