package packs

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestDrainNodeForUpgradeUncordonsWhenStopped: a drain before an upgrade
// stopped by TERM, INT or HUP (the engine's timeout or a cancel signals the
// job's process group) uncordons the node at once, without waiting for
// kubectl, unless it was cordoned before; the job fails naming the node.
// A failed drain of a node cordoned before leaves it cordoned too.
func TestDrainNodeForUpgradeUncordonsWhenStopped(t *testing.T) {
	const script = "kubernetes/scripts/drain-node-for-upgrade.sh"
	env := map[string]string{"CP_ARTIFACT_KUBECONFIG_ADMIN": "/kc", "CP_FIRST_MASTER": "master-1", "CP_PARAM_DRAIN_TIMEOUT": "2m",
		"CP_PARAM_KUBERNETES_VERSION": "1.34.2"}
	for _, c := range []struct {
		name, before string
		sig          syscall.Signal
		sigName      string
		uncordon     bool
	}{
		{"TERM schedulable before", "", syscall.SIGTERM, "SIGTERM", true},
		{"INT schedulable before", "false", syscall.SIGINT, "SIGINT", true},
		{"HUP schedulable before", "", syscall.SIGHUP, "SIGHUP", true},
		{"TERM cordoned before", "true", syscall.SIGTERM, "SIGTERM", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newScriptHost(t)
			started := filepath.Join(h.root, ".drain-started")
			h.stub("kubectl", `case " $* " in
  *"kubeletVersion"*) printf v1.33.6 ;;
  *"{.spec.unschedulable}"*) printf '`+c.before+`' ;;
  *" drain "*) : >"`+started+`"; exec sleep 60 ;;
esac`)
			cmd, stderr := startScript(t, h, script, env)
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
			// The signal goes to the script alone, as a controlling
			// terminal's HUP or an INT would; TERM as the engine sends it,
			// to the whole group.
			target := cmd.Process.Pid
			if c.sig == syscall.SIGTERM {
				target = -target
			}
			if err := syscall.Kill(target, c.sig); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			var err error
			select {
			case err = <-done:
			case <-time.After(20 * time.Second):
				_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
				t.Fatalf("the script did not end after %s", c.sigName)
			}
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			if err == nil {
				t.Fatalf("exit 0 after %s, want a failure", c.sigName)
			}
			if !strings.Contains(stderr.String(), "the drain of node node-1 was stopped by "+c.sigName+" before it finished") {
				t.Errorf("stderr does not say the drain of node-1 was stopped:\n%s", stderr)
			}
			if got := strings.Contains(h.log(h.calls), "kubectl --kubeconfig /kc uncordon node-1\n"); got != c.uncordon {
				t.Errorf("uncordon of node-1 after %s: %v, want %v\n%s", c.sigName, got, c.uncordon, h.log(h.calls))
			}
		})
	}

	// A drain a PodDisruptionBudget blocks, on a node cordoned before:
	// it stays cordoned.
	h := newScriptHost(t)
	h.stub("kubectl", `case " $* " in
  *"kubeletVersion"*) printf v1.33.6 ;;
  *"{.spec.unschedulable}"*) printf true ;;
  *" drain "*) echo 'error when evicting pods/"instance-manager-abc" -n "longhorn-system" (will retry after 5s): Cannot evict pod' >&2; exit 1 ;;
esac`)
	refused(t, h, h.run(script, env), "Node node-1 was cordoned before this drain, stays cordoned and is not upgraded")
	if strings.Contains(h.log(h.calls), " uncordon ") {
		t.Errorf("a node cordoned before the drain was uncordoned:\n%s", h.log(h.calls))
	}
}
