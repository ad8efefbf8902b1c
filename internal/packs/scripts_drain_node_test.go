package packs

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

const drainNodeScript = "kubernetes/scripts/drain-node.sh"

// pdbBlockedDrain is kubectl's output for a drain a PodDisruptionBudget
// holds until --timeout; the node stays cordoned, as with kubectl.
const pdbBlockedDrain = `*" drain "*) echo 'node/node-1 cordoned'; echo 'evicting pod shop/web-7d4b9c-abcde'
    echo 'error when evicting pods/"web-7d4b9c-abcde" -n "shop" (will retry after 5s): Cannot evict pod as it would violate the pod'"'"'s disruption budget.' >&2
    echo 'error: unable to drain node "node-1" due to error: [error when evicting pods/"web-7d4b9c-abcde" -n "shop": global timeout reached: 5m0s], continuing command...' >&2
    exit 1 ;;`

func drainNodeEnv(h *scriptHost) map[string]string {
	env := h.artifactEnv(packEnv(h.t, "kubernetes", nil), map[string]string{"kubeconfig.admin": "apiVersion: v1\n"})
	env["CP_FIRST_MASTER"] = "master-1"
	return env
}

// TestDrainNodeUncordonsOnFailure: remove_node's drain that a
// PodDisruptionBudget (or anything else) makes fail uncordons the node it
// cordoned, so a node that is not removed takes pods again, and fails the
// job naming the node; a node cordoned before the drain stays cordoned; an
// uncordon that fails too says how to do it by hand; a drain that
// succeeds uncordons nothing.
func TestDrainNodeUncordonsOnFailure(t *testing.T) {
	h := newScriptHost(t)
	env := drainNodeEnv(h)
	kc := "kubectl --kubeconfig " + env["CP_ARTIFACT_KUBECONFIG_ADMIN"]
	h.stub("kubectl", `case " $* " in
  `+pdbBlockedDrain+`
esac`)
	res := h.run(drainNodeScript, env)
	refused(t, h, res, "drain-node on node-1: a PodDisruptionBudget allows no eviction of shop/web-7d4b9c-abcde from node node-1 within drain_timeout 5m")
	if !strings.Contains(res.stderr, "Node node-1 was uncordoned again, takes pods and is not removed") {
		t.Errorf("the failure does not say node-1 was uncordoned:\n%s", res.stderr)
	}
	calls := h.log(h.calls)
	if i, j := callIndex(calls, " drain node-1 "), callIndex(calls, kc+" uncordon node-1"); i < 0 || j < i {
		t.Errorf("the failed drain was not followed by an uncordon of node-1:\n%s", calls)
	}

	// Any other failure (the API server gone mid-drain) uncordons too.
	h = newScriptHost(t)
	env = drainNodeEnv(h)
	h.stub("kubectl", `case " $* " in *" drain "*) echo 'error: the server has asked for the client to provide credentials' >&2; exit 1 ;; esac`)
	res = h.run(drainNodeScript, env)
	refused(t, h, res, "the drain of node node-1 failed (kubectl drain exit 1; drain_timeout 5m). Node node-1 was uncordoned again")
	if !strings.Contains(h.log(h.calls), " uncordon node-1\n") {
		t.Errorf("no uncordon after the failed drain:\n%s", h.log(h.calls))
	}

	// Cordoned before (the cordon action): left as found.
	h = newScriptHost(t)
	env = drainNodeEnv(h)
	h.stub("kubectl", `case " $* " in
  *"{.spec.unschedulable}"*) printf true ;;
  `+pdbBlockedDrain+`
esac`)
	res = h.run(drainNodeScript, env)
	refused(t, h, res, "Node node-1 was cordoned before this drain and stays cordoned")
	if strings.Contains(h.log(h.calls), " uncordon ") {
		t.Errorf("a node cordoned before the drain was uncordoned:\n%s", h.log(h.calls))
	}

	// The uncordon fails too: the node stays cordoned, and how to fix it.
	h = newScriptHost(t)
	env = drainNodeEnv(h)
	h.stub("kubectl", `case " $* " in
  *" uncordon "*) echo 'connection refused' >&2; exit 1 ;;
  `+pdbBlockedDrain+`
esac`)
	res = h.run(drainNodeScript, env)
	refused(t, h, res, "uncordoning it again failed too (connection refused), so it stays cordoned: on master-1 run kubectl --kubeconfig /etc/kubernetes/admin.conf uncordon node-1")

	// A drain that succeeds leaves the node cordoned for its removal.
	h = newScriptHost(t)
	env = drainNodeEnv(h)
	kc = "kubectl --kubeconfig " + env["CP_ARTIFACT_KUBECONFIG_ADMIN"]
	succeeded(t, h.run(drainNodeScript, env))
	want := kc + " get node node-1 -o jsonpath={.spec.unschedulable}\n" +
		kc + " drain node-1 --ignore-daemonsets --delete-emptydir-data --timeout=5m\n"
	if got := h.log(h.calls); got != want {
		t.Errorf("calls of a successful drain:\n%s\nwant:\n%s", got, want)
	}
}

// TestDrainNodeUncordonsWhenStopped: a drain stopped by TERM (the engine's
// timeout or a cancel signals the job's process group) uncordons the node
// at once, without waiting for kubectl, and fails naming the node.
func TestDrainNodeUncordonsWhenStopped(t *testing.T) {
	for _, c := range []struct {
		name, before string
		uncordon     bool
	}{{"schedulable before", "", true}, {"cordoned before", "true", false}} {
		t.Run(c.name, func(t *testing.T) {
			h := newScriptHost(t)
			env := drainNodeEnv(h)
			started := filepath.Join(h.root, ".drain-started")
			h.stub("kubectl", `case " $* " in
  *"{.spec.unschedulable}"*) printf '`+c.before+`' ;;
  *" drain "*) : >"`+started+`"; exec sleep 60 ;;
esac`)
			cmd, stderr := startScript(t, h, drainNodeScript, env)
			deadline := time.Now().Add(20 * time.Second)
			for {
				if _, err := os.Stat(started); err == nil {
					break
				}
				if time.Now().After(deadline) {
					_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
					t.Fatalf("kubectl drain did not start:\n%s", stderr)
				}
				time.Sleep(10 * time.Millisecond)
			}
			if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			var err error
			select {
			case err = <-done:
			case <-time.After(20 * time.Second):
				_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
				t.Fatalf("the script did not end after TERM")
			}
			if err == nil {
				t.Fatalf("exit 0 after TERM, want a failure")
			}
			if !strings.Contains(stderr.String(), "the drain of node node-1 was stopped by SIGTERM before it finished") {
				t.Errorf("stderr does not say the drain of node-1 was stopped:\n%s", stderr)
			}
			if got := strings.Contains(h.log(h.calls), " uncordon node-1\n"); got != c.uncordon {
				t.Errorf("uncordon of node-1 after TERM: %v, want %v\n%s", got, c.uncordon, h.log(h.calls))
			}
		})
	}
}

// startScript starts builtin/<script> under bash in its own process group,
// with the environment scriptHost.run gives it, and returns it running.
func startScript(t *testing.T, h *scriptHost, script string, env map[string]string) (*exec.Cmd, *strings.Builder) {
	t.Helper()
	file := filepath.Join(h.root, ".script.sh")
	if err := os.WriteFile(file, []byte(readScript(t, script)), 0o755); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{
		"PATH": h.bin + ":/usr/local/bin:/usr/bin:/bin", "HOME": h.root, "LC_ALL": "C",
		"TMPDIR": filepath.Join(h.root, ".tmp"), "CP_OUTPUT_DIR": filepath.Join(h.root, ".out"),
		"CP_TEST_CALLS": h.calls, "CP_TEST_STDIN": h.stdin, "CP_TEST_VALUES": h.values,
		protocol.EnvHost: "node-1", protocol.EnvHostAddress: "10.0.0.11", protocol.EnvHostRole: "worker",
	}
	for k, v := range env {
		vars[k] = v
	}
	cmd := exec.Command("bash", file)
	cmd.Dir = h.root
	for _, k := range protocol.SortedKeys(vars) {
		cmd.Env = append(cmd.Env, k+"="+vars[k])
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	return cmd, &stderr
}
