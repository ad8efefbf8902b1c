package intent

import (
	"slices"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// What a template's kind (protocol.TemplateRef.LifecycleKind) decides
// when an action is planned: customizations apply to the create template
// only; a day-2 or destroy action acts on what create made and bound, so
// the pack's requirements and provisions are already in the state and
// only the plan patches naming its jobs apply.

// IsCreate reports whether action is the pack's create action. A pack
// without the action (reported by the planner) counts as create, so
// nothing the user wrote is dropped before the planner sees it.
func IsCreate(pack *protocol.ScenarioPack, action string) bool {
	if pack == nil {
		return true
	}
	k := pack.KindOf(action)
	return k == "" || k == protocol.KindCreate
}

// DestroyAction is the action a resource's delete runs: the pack's
// destroy template's, "" when it has none.
func DestroyAction(pack *protocol.ScenarioPack) string {
	if pack == nil {
		return ""
	}
	return pack.ActionOfKind(protocol.KindDestroy)
}

// Bound lists the capabilities a day-2 or destroy action finds in place:
// the pack's requirements (bound by create) and what it provides, after
// those given, without duplicates.
func Bound(pack *protocol.ScenarioPack, given []protocol.Capability) []protocol.Capability {
	out := slices.Clone(given)
	add := func(key string) {
		if !slices.ContainsFunc(out, func(c protocol.Capability) bool { return c.Key == key }) {
			out = append(out, protocol.Capability{Key: key})
		}
	}
	for _, r := range pack.Requires {
		add(r.Capability)
	}
	for _, p := range pack.Provides {
		add(p.Capability)
	}
	return out
}
