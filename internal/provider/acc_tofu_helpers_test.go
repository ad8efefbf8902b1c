package provider

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/testhosts"
)

// tofuRunner runs OpenTofu subcommands in r's folder, each logging to its
// own file (log) in a temporary folder, all within 10 minutes of this
// call; it returns a command's combined output and error.
func tofuRunner(t *testing.T, r *tofuRun) func(log string, args ...string) (string, error) {
	t.Helper()
	logs := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	t.Cleanup(cancel)
	return func(log string, args ...string) (string, error) {
		out, err := r.cmd(ctx, filepath.Join(logs, log), args...).CombinedOutput()
		return string(out), err
	}
}

// timedOutRun runs a command (what: "apply", "update", "destroy") that
// the resource timeout limit (`timeouts.create = 5s`) must stop while a
// job of the probe pack sleeps 25 seconds: the command fails, returns
// well before the sleep could end, and its error holds each of wants. It
// returns the error output flattened.
func timedOutRun(t *testing.T, what, limit string, run func() (string, error), wants ...string) string {
	t.Helper()
	start := time.Now()
	out, err := run()
	elapsed := time.Since(start)
	if err == nil {
		t.Fatalf("%s under %s succeeded:\n%s", what, limit, out)
	}
	t.Logf("the %s under %s returned after %s (the job sleeps 25s)", what, limit, elapsed)
	if elapsed >= 18*time.Second {
		t.Errorf("the %s returned after %s; want it well below the 25s sleep: the timeout stops the job", what, elapsed)
	}
	text := flatten(out)
	for _, want := range wants {
		if !strings.Contains(text, want) {
			t.Errorf("the %s error lacks %q:\n%s", what, want, out)
		}
	}
	return text
}

// sleepAliveAt looks on the host, with pgrep, for the sleep whose pid is
// kept in pidFile: "gone", or the process as ps shows it. A zombie (a
// killed process its new parent has not reaped yet) is gone: pgrep
// matches only the live states.
func sleepAliveAt(t *testing.T, c *testhosts.Cluster, host, pidFile string) string {
	t.Helper()
	return strings.TrimSpace(onHost(t, c, host, "f="+shellWord(pidFile)+`
if pgrep -r R,S,D,T,t -F "$f" -x sleep >/dev/null; then ps -o pid=,stat=,pgid=,args= -p "$(cat "$f")"; else echo gone; fi`))
}
