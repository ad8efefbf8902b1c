package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// shellScripts are clusterPlan's jobs as real shell scripts. Each appends
// its instance to $HOST_ROOT/executions, so runs are counted on the host.
var shellScripts = map[string]string{
	"validate": `echo yes >"$HOST_ROOT/validated"`,
	"runtime":  `echo active >"$HOST_ROOT/runtime"`,
	"init": `echo ok >"$HOST_ROOT/apiserver"
printf '%s' "` + testToken + `" >"$CP_OUTPUT_DIR/kubeadm.join_token"
printf '%s' "$CP_PARAM_KUBECONFIG" >"$CP_OUTPUT_DIR/kubeconfig.admin"
echo "https://$CP_HOST_ADDRESS:6443" >"$CP_OUTPUT_DIR/cluster.endpoint"`,
	"join": `test "$(cat "$CP_ARTIFACT_KUBEADM_JOIN_TOKEN")" = "` + testToken + `" || { echo "bad token"; exit 3; }
echo yes >"$HOST_ROOT/joined"`,
	"verify": `echo yes >"$HOST_ROOT/verified"`,
}

func TestShellRunResumeAndSecrets(t *testing.T) {
	root := t.TempDir()
	n := &shellNet{root: root, state: filepath.Join(root, "state")}
	plan := clusterPlan("w1", "w2")
	for _, h := range plan.Intent.Hosts {
		if err := os.MkdirAll(n.hostRoot(h.Name), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, in := range plan.Instances {
		for i, ev := range in.Job.Outputs.Evidence {
			key, ok := strings.CutPrefix(ev.Command, "state ")
			if !ok {
				continue // a job shared by several instances is rewritten once
			}
			in.Job.Outputs.Evidence[i].Command = `cat "$HOST_ROOT/` + key + `" 2>/dev/null`
		}
		if in.JobID == "init" {
			in.Params = map[string]string{"kubeconfig": testKubeconfig}
		}
	}
	scripts := func(pack, path string) ([]byte, error) {
		job := strings.TrimSuffix(strings.TrimPrefix(path, "scripts/"), ".sh")
		return []byte("#!/bin/sh\nset -e\necho \"$CP_INSTANCE\" >>\"$HOST_ROOT/executions\"\n" + shellScripts[job] + "\n"), nil
	}
	var journal strings.Builder
	rec := &recorder{}
	newEngine := func() *Engine {
		return New(Config{Dialer: n, Scripts: scripts, Parallelism: 3, PerHost: 2, Clock: fixedClock(),
			Sinks: []Sink{rec, NewJournal(&journal)}, StateDir: filepath.Join(root, "state")})
	}
	res := mustRun(t, newEngine(), plan, RunInput{OperationID: "op-sh"})
	if res.Operation.Status != protocol.StatusCompleted {
		t.Fatalf("got: %s want: Completed\n%s%v", res.Operation.Status, statuses(res), res.Err())
	}
	if v, _ := res.SecretValue("kubeconfig.admin", ""); v != testKubeconfig {
		t.Errorf("kubeconfig got: %q", v)
	}
	for _, a := range res.Artifacts {
		if a.ID == "cluster.endpoint" && a.Value != "https://10.0.0.1:6443" {
			t.Errorf("endpoint got: %q", a.Value)
		}
	}
	// A second run by a fresh engine: everything satisfied, nothing re-run.
	res = mustRun(t, newEngine(), plan, RunInput{OperationID: "op-sh2"})
	for _, in := range res.Instances {
		if in.Status != StatusSatisfied {
			t.Errorf("%s: got: %s (%s) want: satisfied", in.ID, in.Status, in.Reason)
		}
	}
	if v, _ := res.SecretValue("kubeadm.join_token", ""); v != testToken {
		t.Errorf("recovered token got: %q", v)
	}
	for _, h := range plan.Intent.Hosts {
		b, _ := os.ReadFile(filepath.Join(n.hostRoot(h.Name), "executions"))
		lines := strings.Fields(string(b))
		seen := map[string]bool{}
		for _, l := range lines {
			if seen[l] {
				t.Errorf("host %s: %s executed twice: %v", h.Name, l, lines)
			}
			seen[l] = true
		}
	}
	// Evidence failing with exit 0 on a real shell.
	if err := os.WriteFile(filepath.Join(n.hostRoot("w2"), "runtime"), []byte("inactive\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	plan.Instances[3].Job.Script = "scripts/noop.sh"
	res = mustRun(t, newEngine(), plan, RunInput{OperationID: "op-sh3"})
	in := wantStatus(t, res, "runtime[w2]", StatusFailed)
	if !strings.Contains(in.Reason, "exited 0 but evidence containerd_service_active failed: observed inactive, expected active") {
		t.Errorf("reason got: %q", in.Reason)
	}
	assertNoSecrets(t, rec, journal.String(), testToken, testKubeconfig)
}
