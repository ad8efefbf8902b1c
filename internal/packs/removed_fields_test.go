package packs

import (
	"strings"
	"testing"
)

// TestRemovedFieldsAreRefused: a job that still carries a key removed
// from the pack format is refused at load with the file, the field and
// why the key is gone, for each removed key.
func TestRemovedFieldsAreRefused(t *testing.T) {
	cases := map[string]struct{ old, new, want string }{
		"controls.rollback": {"  controls:\n", "  controls:\n    rollback: {supported: none}\n",
			`jobs/prepare.yaml:26: controls.rollback: key "rollback" was removed from the pack format: nothing read it`},
		"scope.resources": {"    expand: each_node\n", "    resources: [compute_node]\n    expand: each_node\n",
			`jobs/prepare.yaml:5: scope.resources: key "resources" was removed from the pack format: nothing read it; scope.expand alone`},
		"artifacts.storage": {"        sensitivity: secret\n", "        sensitivity: secret\n        storage: secret_ref\n",
			`jobs/prepare.yaml:16: outputs.artifacts[0].storage: key "storage" was removed from the pack format: a secret artifact is identified by sensitivity: secret alone; delete it`},
		"capabilities.provider": {"{key: demo.prepared, scope: node}", "{key: demo.prepared, scope: node, provider: demo}",
			`jobs/prepare.yaml:12: outputs.provides.capabilities[0].provider: key "provider" was removed from the pack format: the provider kind of what a pack creates comes from pack.yaml's provides`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Load(gateDemoWith(t, "jobs/prepare.yaml", tc.old, tc.new), "demo")
			if err == nil {
				t.Fatal("got: pack loaded want: the removed key refused")
			}
			if !strings.Contains(err.Error(), "\n  demo/"+tc.want) {
				t.Fatalf("got:\n%v\nwant a line starting: demo/%s", err, tc.want)
			}
		})
	}
}
