package packs

import (
	"strings"
	"testing"
)

// TestArtifactTypeRefusedAtLoad: an artifact of a type that is not one
// of protocol.ArtifactTypes refuses the pack at load; a known one loads.
func TestArtifactTypeRefusedAtLoad(t *testing.T) {
	if _, err := Load(gateDemoWith(t, "jobs/prepare.yaml", "        sensitivity: secret\n", "        type: kubeadm.token\n        sensitivity: secret\n"), "demo"); err != nil {
		t.Fatalf("got: %v want: a known type loads", err)
	}
	_, err := Load(gateDemoWith(t, "jobs/prepare.yaml", "        sensitivity: secret\n", "        type: token\n        sensitivity: secret\n"), "demo")
	want := `demo/jobs/prepare.yaml:15: outputs.artifacts[0].type: unknown artifact type "token"; use one of env_file, `
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("got:\n%v\nwant: %s", err, want)
	}
}
