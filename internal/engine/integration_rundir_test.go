package engine

import (
	"bytes"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
	"github.com/intentops/terraform-provider-cp/internal/transport"
)

// After a run, whatever its jobs did (succeeded, failed, timed out), no
// input artifact, output or scratch file is left under the run
// directories of any host, a stale run directory an earlier (killed) run
// left is gone, and what stays (kept artifacts, markers) is root's alone:
// the login user can neither list nor read it. Both paths: the one-session
// command (job through sudo) and step by step (job as the login user).
func TestIntegrationRunDirectoriesLeaveNoSecrets(t *testing.T) {
	e := startIT(t, "rd-1", "rd-2")
	for _, stepByStep := range []bool{false, true} {
		name := "one-session"
		if stepByStep {
			name = "step-by-step"
		}
		t.Run(name, func(t *testing.T) { testRunDirectories(t, e.sub("rundir-"+name), stepByStep) })
	}
}

func testRunDirectories(t *testing.T, e *itEnv, stepByStep bool) {
	e.t = t
	const stale = "stale-secret-5c0e1f0a9b8d7c6e"
	staleFile := path.Join(e.stateDir(), "run", "op-earlier", "consume@rd-2", "in", "join.token")
	e.writeHostFile("rd-2", staleFile, []byte(stale))

	b := e.plan("rundir")
	b.stepByStep = stepByStep
	issue := itJob("issue", "issue")
	issue.Outputs.Artifacts = []protocol.ArtifactSpec{{ID: "join.token", Type: "string", Sensitivity: protocol.SensitivitySecret, TTL: protocol.Duration(time.Hour)}}
	consume := itJob("consume", "consume",
		protocol.Evidence{ID: "token_matches_input", Command: `cmp -s "$CP_PARAM_STATE" "$CP_ARTIFACT_JOIN_TOKEN" && echo same`, Expected: "same"})
	consume.Inputs.Requires.Artifacts = []protocol.ArtifactRef{{ID: "join.token"}}
	fails := itJob("fails", "posix", protocol.Evidence{ID: "never", Command: "echo no", Expected: "yes"})
	fails.Inputs.Requires.Artifacts = []protocol.ArtifactRef{{ID: "join.token"}}
	hangs := itJob("hangs", "hang", protocol.Evidence{ID: "never", Command: "echo no", Expected: "yes"})
	hangs.Inputs.Requires.Artifacts = []protocol.ArtifactRef{{ID: "join.token"}}
	hangs.Controls.Timeout = protocol.Duration(time.Second)
	b.add(issue, "rd-1", nil)
	b.add(consume, "rd-2", []string{"issue[rd-1]"})
	b.add(fails, "rd-2", []string{"issue[rd-1]"}, "exit", "3")
	b.add(hangs, "rd-2", []string{"issue[rd-1]"})

	eng, _ := e.engine(nil)
	res := e.run(eng, t.Context(), b.p, RunInput{OperationID: "op-rundir"})
	wantStatus(t, res, "consume[rd-2]", StatusDone)
	if in := wantStatus(t, res, "fails[rd-2]", StatusFailed); in.Class != FailureExitCode {
		t.Errorf("fails[rd-2] class got: %s want: exit_code (%s)", in.Class, in.Reason)
	}
	if in := wantStatus(t, res, "hangs[rd-2]", StatusFailed); in.Class != FailureTimeout {
		t.Errorf("hangs[rd-2] class got: %s want: timeout (%s)", in.Class, in.Reason)
	}
	secret, ok := res.SecretValue("join.token", "issue[rd-1]")
	if !ok || len(secret) != 32 {
		t.Fatalf("SecretValue got: %q %v", secret, ok)
	}
	// The consumer had the token: its evidence compared it with the input.
	if kept, _ := e.hostFile("rd-2", e.statePath("consume[rd-2]")); string(kept) != secret {
		t.Fatalf("consume[rd-2] kept %q, want the token", kept)
	}
	// A killed script's child may still write for 3 s; wait it out.
	time.Sleep(3500 * time.Millisecond)
	for _, h := range e.names {
		files := e.filesUnder(h, path.Join(e.stateDir(), "run"))
		if len(files) != 0 {
			t.Errorf("host %s keeps under %s/run: %v", h, e.stateDir(), files)
		}
		for f, body := range e.contentsUnder(h, e.stateDir()) {
			if bytes.Contains(body, []byte(secret)) && !strings.HasPrefix(f, path.Join(e.stateDir(), "artifacts")+"/") {
				t.Errorf("host %s: %s holds the token outside the kept artifacts", h, f)
			}
			if bytes.Contains(body, []byte(stale)) {
				t.Errorf("host %s: %s still holds the stale run directory's secret", h, f)
			}
		}
	}
	// What stays is root's only: the login user gets nothing of it.
	var keep string
	for _, a := range res.Artifacts {
		if a.ID == "join.token" {
			_, keep, _ = protocol.SplitRef(a.Ref)
		}
	}
	if keep == "" {
		t.Fatal("no reference to the kept token")
	}
	e.assertRootOnly("rd-1", keep, 0o600)
	e.assertRootOnly("rd-1", path.Dir(keep), 0o700|fs.ModeDir)
	e.assertRootOnly("rd-1", path.Join(e.stateDir(), "markers"), 0o700|fs.ModeDir)
	login := e.loginRun("rd-1", `cat "$F"; ls "$D"; cat "$M"/*`, map[string]string{"F": keep, "D": path.Dir(keep), "M": path.Join(e.stateDir(), "markers")})
	if login.ExitCode == 0 || bytes.Contains(login.Stdout, []byte(secret)) || !bytes.Contains(login.Stderr, []byte("Permission denied")) {
		t.Errorf("the login user read the kept artifacts or markers: exit %d, stdout %q, stderr %q", login.ExitCode, login.Stdout, login.Stderr)
	}
	// A second run finds everything done or still failing, and again
	// leaves nothing behind, satisfied instances included.
	res = e.run(eng, t.Context(), b.p, RunInput{OperationID: "op-rundir-2"})
	wantStatus(t, res, "consume[rd-2]", StatusSatisfied)
	time.Sleep(3500 * time.Millisecond)
	for _, h := range e.names {
		if files := e.filesUnder(h, path.Join(e.stateDir(), "run")); len(files) != 0 {
			t.Errorf("second run: host %s keeps under %s/run: %v", h, e.stateDir(), files)
		}
	}
}

// filesUnder lists the regular files under dir on a host.
func (e *itEnv) filesUnder(host, dir string) []string {
	e.t.Helper()
	var out []string
	for f := range e.contentsUnder(host, dir) {
		out = append(out, f)
	}
	return out
}

// contentsUnder reads every regular file under dir on a host, by its path
// on the host.
func (e *itEnv) contentsUnder(host, dir string) map[string][]byte {
	e.t.Helper()
	root, err := e.c.RootPath(host)
	if err != nil {
		e.t.Fatal(err)
	}
	out := map[string][]byte{}
	base := filepath.Join(root, dir)
	err = filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) {
				return nil
			}
			return err
		}
		if d.Type().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			out["/"+filepath.ToSlash(rel)] = b
		}
		return nil
	})
	if err != nil {
		e.t.Fatalf("walk %s on %s: %v", dir, host, err)
	}
	return out
}

// assertRootOnly checks that p on host is owned by root with exactly mode.
func (e *itEnv) assertRootOnly(host, p string, mode fs.FileMode) {
	e.t.Helper()
	root, err := e.c.RootPath(host)
	if err != nil {
		e.t.Fatal(err)
	}
	st, err := os.Stat(filepath.Join(root, p))
	if err != nil {
		e.t.Fatalf("stat %s on %s: %v", p, host, err)
	}
	if st.Mode() != mode || fileUID(st) != 0 {
		e.t.Errorf("%s on %s: got: mode %s uid %d want: mode %s, root's", p, host, st.Mode(), fileUID(st), mode)
	}
}

// loginRun runs a command on host as the login user, without sudo.
func (e *itEnv) loginRun(host, cmd string, env map[string]string) transport.Result {
	e.t.Helper()
	conn, err := e.pool(nil).Dial(e.t.Context(), host)
	if err != nil {
		e.t.Fatal(err)
	}
	res, err := conn.Run(e.t.Context(), transport.Command{Cmd: cmd, Env: env})
	if err != nil {
		e.t.Fatalf("run as the login user on %s: %v", host, err)
	}
	return res
}

func fileUID(st fs.FileInfo) int {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return int(s.Uid)
	}
	return -1
}
