package packs

import (
	"reflect"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// removedFields are keys the pack format once accepted and no longer
// does, with why, per Go type of the mapping that held them. A pack that
// still carries one is refused with that reason rather than as an unknown
// key, so its author knows the key is gone on purpose.
var removedFields = map[reflect.Type]map[string]string{
	reflect.TypeOf(protocol.Controls{}): {
		"rollback": "nothing read it; a job is undone by a plan template of its own (e.g. the uninstall or remove_node action)",
	},
	reflect.TypeOf(protocol.JobScope{}): {
		"resources": "nothing read it; scope.expand alone says which hosts a job acts on",
	},
	reflect.TypeOf(protocol.ArtifactSpec{}): {
		"storage": "a secret artifact is identified by sensitivity: secret alone",
	},
	reflect.TypeOf(protocol.Capability{}): {
		"provider": "the provider kind of what a pack creates comes from pack.yaml's provides",
	},
}

// removedField reports why key is no longer a key of t, if it was one.
func removedField(t reflect.Type, key string) (string, bool) {
	why, ok := removedFields[t][key]
	return why, ok
}
