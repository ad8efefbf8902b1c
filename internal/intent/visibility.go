package intent

import (
	"fmt"
	"slices"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// ArtifactRoles returns the roles a pack's jobs declare in
// visible_to_roles for an artifact, sorted and without repeats; empty
// means visible to every actor. found is false when no job of the pack
// produces it.
func ArtifactRoles(p *protocol.ScenarioPack, artifactID string) (roles []string, found bool) {
	for _, id := range protocol.SortedKeys(p.Jobs) {
		for _, a := range p.Jobs[id].Outputs.Artifacts {
			if a.ID != artifactID {
				continue
			}
			found = true
			for _, r := range a.VisibleToRoles {
				if !slices.Contains(roles, r) {
					roles = append(roles, r)
				}
			}
		}
	}
	slices.Sort(roles)
	return roles, found
}

// CheckArtifactVisible says whether actor may read an artifact whose
// visible_to_roles are roles: yes when the list is empty or the actor
// holds one of them. what names the read for the message (cp_artifact,
// expose_kubeconfig).
func CheckArtifactVisible(what, artifactID string, roles []string, actor Actor) error {
	if len(roles) == 0 {
		return nil
	}
	for _, r := range actor.Roles {
		if slices.Contains(roles, r) {
			return nil
		}
	}
	return fmt.Errorf("%s: artifact %s is visible to the roles %s only, and actor %s holds %s; give the provider's actor_roles one of them",
		what, artifactID, quoteList(roles), quoteOr(actor.Name), orNone(actor.Roles))
}

// PackArtifactVisible is CheckArtifactVisible with the roles the pack
// declares for the artifact.
func PackArtifactVisible(what string, p *protocol.ScenarioPack, artifactID string, actor Actor) error {
	roles, found := ArtifactRoles(p, artifactID)
	if !found {
		return fmt.Errorf("%s: no job of %s produces artifact %s", what, p.Ref(), artifactID)
	}
	return CheckArtifactVisible(what, artifactID, roles, actor)
}

func quoteOr(s string) string {
	if s == "" {
		return "(no actor set)"
	}
	return quoteList([]string{s})
}
