package diagnose

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/packs"
	"github.com/intentops/terraform-provider-cp/internal/planner"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

var testNow = time.Date(2026, 4, 29, 12, 0, 0, 0, time.UTC)

// fixture is a plan of the builtin kubernetes pack, built by the real
// planner; its review method is the reviewer callback a provider passes.
type fixture struct {
	input planner.Input
	plan  *protocol.Plan
	pack  *protocol.ScenarioPack
}

func builtinKubernetes(t testing.TB) *protocol.ScenarioPack {
	t.Helper()
	cat, err := packs.LoadBuiltin()
	if err != nil {
		t.Fatalf("load builtin packs: %v", err)
	}
	p, err := cat.Get("kubernetes", "")
	if err != nil {
		t.Fatalf("builtin kubernetes pack: %v", err)
	}
	return p
}

func clusterIntent(masters, workers int) protocol.Intent {
	in := protocol.Intent{ID: "prod-k8s", Action: "create", Pack: "kubernetes", TargetResourceType: "kubernetes.cluster",
		Parameters: map[string]string{"cluster_name": "prod-k8s", "cni": "calico", "container_runtime": "containerd", "storage": "longhorn"}}
	for i := 1; i <= masters; i++ {
		in.Hosts = append(in.Hosts, protocol.Host{Name: fmt.Sprintf("master-%d", i), Address: fmt.Sprintf("10.0.0.%d", 10+i), Role: protocol.RoleMaster})
	}
	for i := 1; i <= workers; i++ {
		in.Hosts = append(in.Hosts, protocol.Host{Name: fmt.Sprintf("worker-%d", i), Address: fmt.Sprintf("10.0.1.%d", 10+i), Role: protocol.RoleWorker})
	}
	return in
}

// createFixture plans kubernetes.create for 3 masters and 2 workers;
// params are added to the intent's parameters.
func createFixture(t testing.TB, params map[string]string) fixture {
	t.Helper()
	k := builtinKubernetes(t)
	in := clusterIntent(3, 2)
	for key, v := range params {
		in.Parameters[key] = v
	}
	return buildFixture(t, planner.Input{PlanID: "op-482", Intent: in, Pack: k, Now: testNow})
}

// addNodeFixture plans kubernetes.add_node of worker-6 to a cluster of
// one master and two workers whose join token expires at tokenExpiry.
func addNodeFixture(t testing.TB, tokenExpiry time.Time) fixture {
	t.Helper()
	k := builtinKubernetes(t)
	in := clusterIntent(1, 2)
	in.Action = "add_node"
	in.TargetResource = "cluster/prod-k8s"
	in.Hosts = append(in.Hosts, protocol.Host{Name: "worker-6", Address: "10.0.1.16", Role: protocol.RoleWorker})
	in.Targets = []string{"worker-6"}
	sec := func(id string, exp time.Time) protocol.Artifact {
		return protocol.Artifact{ID: id, Sensitivity: protocol.SensitivitySecret, Producer: "init-control-plane[master-1]",
			Host: "master-1", Ref: "master-1:/var/lib/cp/" + id, ExpiresAt: exp}
	}
	state := planner.State{
		Capabilities: []protocol.Capability{{Key: "kubernetes.api"}, {Key: "kubernetes.network.ready"}, {Key: "wireguard.mesh"}},
		Artifacts: []protocol.Artifact{sec("kubeadm.join_token", tokenExpiry), sec("kubeconfig.admin", time.Time{}),
			sec("kubeadm.ca_cert_hash", time.Time{})},
	}
	return buildFixture(t, planner.Input{PlanID: "op-483", Intent: in, Pack: k, Now: testNow, State: state})
}

func buildFixture(t testing.TB, in planner.Input) fixture {
	t.Helper()
	p, err := planner.Build(in)
	if err != nil {
		t.Fatalf("build %s plan: %v", in.Intent.Action, err)
	}
	return fixture{input: in, plan: p, pack: in.Pack}
}

// review rebuilds the plan with the patch appended, as a provider does.
func (fx fixture) review(p protocol.PlanPatch) error {
	in := fx.input
	in.Patches = append(slices.Clone(in.Patches), p)
	_, err := planner.Build(in)
	return err
}

// failure builds the Failure of a failed instance of the plan with the
// given log (one line per line), evidence and observed notes.
func (fx fixture) failure(t testing.TB, instance, log string, ev []protocol.EvidenceResult, observed ...string) Failure {
	t.Helper()
	ji, ok := fx.plan.Instance(instance)
	if !ok {
		t.Fatalf("plan has no instance %s", instance)
	}
	f, err := NewFailure(Instance{
		ID: ji.ID, Job: ji.JobID, Stage: ji.Stage, Host: ji.Host, ExitCode: 1, Class: "exit_code",
		Reason:  fmt.Sprintf("job %s on %s: script exited with code 1", ji.JobID, ji.Host),
		LogTail: strings.Split(strings.TrimRight(log, "\n"), "\n"), Evidence: ev,
	}, Context{Plan: fx.plan, Pack: fx.pack, Artifacts: fx.input.State.Artifacts, Observed: observed, Now: testNow})
	if err != nil {
		t.Fatalf("new failure: %v", err)
	}
	return f
}

// changes renders a patch's changes one per line for comparisons.
func changes(p *protocol.PlanPatch) []string {
	if p == nil {
		return nil
	}
	var out []string
	for _, c := range p.Changes {
		switch {
		case c.InsertAfter != "":
			var jobs []string
			for _, j := range c.Jobs {
				s := j.ID
				if len(j.Parameters) > 0 {
					var kv []string
					for _, k := range sortedKeys(j.Parameters) {
						kv = append(kv, k+"="+j.Parameters[k])
					}
					s += "{" + strings.Join(kv, ",") + "}"
				}
				jobs = append(jobs, s)
			}
			out = append(out, "insert_after "+c.InsertAfter+": "+strings.Join(jobs, ", "))
		case c.Remove != "":
			out = append(out, "remove "+c.Remove)
		case c.Retry != nil:
			out = append(out, "retry "+c.Retry.Job)
		}
	}
	return out
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// checkGolden compares got with testdata/<name>, rewriting it with -update.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatalf("update golden %s: %v", path, err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden %s (run go test -update to create it): %v", path, err)
	}
	if got != string(want) {
		t.Errorf("%s differs (run go test -update to accept)\ngot:\n%s\nwant:\n%s", path, got, want)
	}
}
