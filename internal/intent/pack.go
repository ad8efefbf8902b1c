package intent

import (
	"slices"

	"github.com/intentops/terraform-provider-cp/internal/paramtype"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// Catalog is what the checks need of a pack catalog (packs.Catalog).
type Catalog interface {
	Get(id, constraint string) (*protocol.ScenarioPack, error)
	List() []*protocol.ScenarioPack
}

// PackRef is a pack action as a resource names it, with the path of each
// attribute (a zero Path for one the resource fixes, e.g. cp_tempo's
// action).
type PackRef struct {
	ID, Version, Action, DestroyAction string
	IDPath, VersionPath                Path
	ActionPath, DestroyActionPath      Path
}

// CheckPackRef finds the pack and checks that the action (and the destroy
// action, when set) have a template in it. It returns the pack when it
// was found.
func CheckPackRef(cat Catalog, r PackRef) (*protocol.ScenarioPack, Problems) {
	var ps Problems
	if _, err := cat.Get(r.ID, ""); err != nil {
		ps.add(r.IDPath, "Unknown scenario pack", "%s is not in the catalog (packs: %s); name a built-in pack or add its directory to the provider's pack_dirs.",
			paramtype.Quote(r.ID), quoteList(packIDs(cat)))
		return nil, ps
	}
	pack, err := cat.Get(r.ID, r.Version)
	if err != nil {
		ps.add(r.VersionPath, "No matching pack version", "%s: no version of pack %s satisfies it (available: %s); loosen the constraint or add the pack version to pack_dirs.",
			paramtype.Quote(r.Version), r.ID, quoteList(packVersions(cat, r.ID)))
		return nil, ps
	}
	for _, a := range []struct {
		action, what string
		p            Path
	}{{r.Action, "action", r.ActionPath}, {r.DestroyAction, "destroy_action", r.DestroyActionPath}} {
		if a.action == "" || a.p == nil {
			continue
		}
		if _, ok := pack.Templates[a.action]; !ok {
			ps.add(a.p, "Unknown action", "pack %s has no plan template for %s, so %s could not run; use one of %s.",
				pack.Ref(), paramtype.Quote(a.action), a.what, quoteList(protocol.SortedKeys(pack.Templates)))
		}
	}
	return pack, ps
}

func packIDs(cat Catalog) []string {
	var out []string
	for _, p := range cat.List() {
		if !slices.Contains(out, p.ID) {
			out = append(out, p.ID)
		}
	}
	return out
}

func packVersions(cat Catalog, id string) []string {
	var out []string
	for _, p := range cat.List() {
		if p.ID == id {
			out = append(out, p.Version)
		}
	}
	return out
}

// RequiredCapabilities lists every capability key a pack of the catalog
// requires, in its contract or in a job's, sorted: the requirements a
// capability policy can apply to.
func RequiredCapabilities(cat Catalog) []string {
	set := map[string]bool{}
	for _, p := range cat.List() {
		for _, r := range p.Requires {
			set[r.Capability] = true
		}
		for _, j := range p.Jobs {
			for _, r := range j.Inputs.Requires.Capabilities {
				set[r.Key] = true
			}
		}
	}
	return protocol.SortedKeys(set)
}

// GateRoles lists every role a gate of a pack template requires, sorted.
func GateRoles(cat Catalog) []string {
	set := map[string]bool{}
	for _, p := range cat.List() {
		for _, t := range p.Templates {
			for _, g := range t.Gates {
				for _, r := range g.RequiredRoles {
					set[r] = true
				}
			}
		}
	}
	return protocol.SortedKeys(set)
}
