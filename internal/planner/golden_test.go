package planner

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/capability"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// renderAll joins the four renderings of a plan for a golden file.
func renderAll(t *testing.T, p *protocol.Plan) []byte {
	t.Helper()
	js, err := RenderJSON(p)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	b.WriteString("== simple ==\n" + RenderSimple(p))
	b.WriteString("\n== advanced ==\n" + RenderAdvanced(p, AdvancedOptions{}))
	b.WriteString("\n== mermaid ==\n" + RenderMermaid(p))
	b.WriteString("\n== json ==\n")
	b.Write(js)
	return b.Bytes()
}

func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read %s: %v (run go test ./internal/planner -update)", path, err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s differs from the golden file; got:\n%s\nrun go test ./internal/planner -update to accept", path, got)
	}
}

func TestGoldenScenarios(t *testing.T) {
	cases := []struct {
		name  string
		input func() (Input, error)
	}{
		{"cluster_create", func() (Input, error) { return createInput(fixtureKubernetes()), nil }},
		{"add_node_valid_token", func() (Input, error) {
			return addNodeInput(fixtureKubernetes(), testNow.Add(6*time.Hour)), nil
		}},
		{"add_node_expired_token", func() (Input, error) {
			return addNodeInput(fixtureKubernetes(), testNow.Add(-2*time.Hour)), nil
		}},
		{"tempo_bind_existing_s3", func() (Input, error) { return tempoInput("prod", []capability.Candidate{awsCandidate()}) }},
		{"tempo_stage_minio_suboperation", func() (Input, error) { return tempoInput("stage", nil) }},
		{"tempo_prod_approval_gate", func() (Input, error) { return tempoInput("prod", nil) }},
		{"cluster_create_forked", func() (Input, error) {
			in := createInput(fixtureKubernetes())
			in.Customization = forkedCustomization()
			return in, nil
		}},
		{"cluster_create_patched", func() (Input, error) {
			in := createInput(fixtureKubernetes())
			in.Patches = []protocol.PlanPatch{registryPatch("ana (sre)")}
			return in, nil
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in, err := tc.input()
			if err != nil {
				t.Fatal(err)
			}
			p, err := Build(in)
			if err != nil {
				t.Fatalf("got: %v want: a plan", err)
			}
			got := renderAll(t, p)
			for i := 0; i < 3; i++ { // rendering is deterministic across builds
				p2, err := Build(in)
				if err != nil {
					t.Fatal(err)
				}
				if again := renderAll(t, p2); !bytes.Equal(again, got) {
					t.Fatalf("build %d renders differently", i+2)
				}
			}
			checkGolden(t, tc.name, got)
		})
	}
}
