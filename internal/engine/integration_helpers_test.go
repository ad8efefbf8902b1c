package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
	"github.com/intentops/terraform-provider-cp/internal/testhosts"
	"github.com/intentops/terraform-provider-cp/internal/transport"
	cpssh "github.com/intentops/terraform-provider-cp/internal/transport/ssh"
)

// The integration tests run small synthetic plans (protocol types built
// here, tiny bash scripts from itScripts) against real OpenSSH test hosts
// through the real ssh Pool, logging in as the harness user "cp" with
// StateBecome. Every script appends its instance id to a run log on its
// host, so the tests count executions on the hosts themselves.

// itLogDir is where scripts append their run log on a host.
const itLogDir = "/var/tmp/cp-it"

// itPreamble starts every test script: strict mode, then one line in the
// host's run log.
const itPreamble = `#!/bin/bash
set -euo pipefail
umask 000
mkdir -p "$(dirname "$CP_PARAM_LOG")"
echo "$CP_INSTANCE" >>"$CP_PARAM_LOG"
`

// itPreambleSh is itPreamble for POSIX sh scripts, which the engine
// sources in the subshell that runs them (see sourceable).
const itPreambleSh = `#!/bin/sh
set -eu
umask 000
mkdir -p "$(dirname "$CP_PARAM_LOG")"
echo "$CP_INSTANCE" >>"$CP_PARAM_LOG"
`

// itScripts are the scripts of the test pack, by path.
var itScripts = map[string]string{
	// posix records what it sees (directory, arguments, stdin, a
	// parameter, the command line of the shell that reads it), then
	// exits with CP_PARAM_EXIT.
	"scripts/posix.sh": itPreambleSh + `mkdir -p "$(dirname "$CP_PARAM_STATE")"
printf 'pwd=%s args=%s stdin=%s color=%s\n' "$(pwd)" "$#" "$(cat)" "$CP_PARAM_COLOR" >"$CP_PARAM_STATE"
printf 'shell=%s\n' "$(tr '\0' ' ' </proc/$$/cmdline)" >>"$CP_PARAM_STATE"
exit "${CP_PARAM_EXIT:-0}"
`,
	// self records the path it runs as: it names $0, so it is exec'd.
	"scripts/self.sh": itPreambleSh + `mkdir -p "$(dirname "$CP_PARAM_STATE")"
echo "$0" >"$CP_PARAM_STATE"
`,
	// hangsh is hang as a POSIX sh script.
	"scripts/hangsh.sh": itPreambleSh + `mkdir -p "$(dirname "$CP_PARAM_STATE")"
(sleep 3; echo survived >"$CP_PARAM_STATE.child") &
sleep 60
`,
	// step records that it ran; its evidence reads the file back.
	"scripts/step.sh": itPreamble + `
mkdir -p "$(dirname "$CP_PARAM_STATE")"
echo done >"$CP_PARAM_STATE"
sleep "${CP_PARAM_SLEEP:-0}"
`,
	// exit0 exits 0 without doing what its evidence checks.
	"scripts/exit0.sh": itPreamble + `echo "pretending to install"
`,
	// issue writes a fresh random secret as its artifact and, carelessly,
	// prints it.
	"scripts/issue.sh": itPreamble + `tok=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
echo "issued token $tok"
printf '%s' "$tok" >"$CP_OUTPUT_DIR/join.token"
`,
	// consume keeps the secret it was given, and prints it too.
	"scripts/consume.sh": itPreamble + `tok=$(cat "$CP_ARTIFACT_JOIN_TOKEN")
echo "joining with $tok"
mkdir -p "$(dirname "$CP_PARAM_STATE")"
install -m 600 "$CP_ARTIFACT_JOIN_TOKEN" "$CP_PARAM_STATE"
`,
	// join writes the node's kubelet.conf, except where BREAK=1 (the
	// seed's worker-3, whose file must be fixed by hand).
	"scripts/join.sh": itPreamble + `if [ "${CP_PARAM_BREAK:-}" != 1 ]; then
  mkdir -p "$(dirname "$CP_PARAM_CONF")"
  echo ok >"$CP_PARAM_CONF"
fi
`,
	// hang starts a child that writes a file after 3 s, then sleeps past
	// any test timeout.
	"scripts/hang.sh": itPreamble + `mkdir -p "$(dirname "$CP_PARAM_STATE")"
(sleep 3; echo survived >"$CP_PARAM_STATE.child") &
sleep 60
`,
	// long waits for a marker file the first time (so a fault can be
	// injected while it runs); later attempts finish at once.
	"scripts/long.sh": itPreamble + `mkdir -p "$(dirname "$CP_PARAM_STATE")"
n=$(grep -Fcx "$CP_INSTANCE" "$CP_PARAM_LOG" || true)
if [ "$n" -le 1 ]; then
  touch "$CP_PARAM_STATE.started"
  sleep 60
fi
echo done >"$CP_PARAM_STATE"
`,
}

func itScriptSource(pack, p string) ([]byte, error) {
	s, ok := itScripts[p]
	if !ok {
		return nil, fmt.Errorf("script %s is not in pack %s", p, pack)
	}
	return []byte(s), nil
}

// itEnv is one test's hosts, its own directories on them and its events.
type itEnv struct {
	t       *testing.T
	c       *testhosts.Cluster
	name    string // test-unique suffix of the host directories
	names   []string
	redact  *transport.Redactor
	journal string // journal file on this machine
}

// startIT starts test hosts for t. It fails, not skips, under CI=true
// when the hosts cannot start.
func startIT(t *testing.T, names ...string) *itEnv {
	t.Helper()
	if testing.Short() && os.Getenv("CI") != "true" {
		t.Skip("integration test against real sshd hosts; skipped with -short")
	}
	c := testhosts.Require(t, testhosts.Options{Names: names})
	return &itEnv{t: t, c: c, name: "t", names: names}
}

// sub returns an env for a part of a test, with its own state and log
// directories on the same hosts.
func (e *itEnv) sub(name string) *itEnv {
	s := *e
	s.name = name
	s.redact = nil
	s.journal = ""
	return &s
}

func (e *itEnv) stateDir() string { return "/var/lib/cp-it-" + e.name }
func (e *itEnv) logPath() string  { return path.Join(itLogDir, e.name, "runs.log") }
func (e *itEnv) statePath(what string) string {
	return path.Join(itLogDir, e.name, "state", what)
}

// pool opens a fresh ssh pool to the hosts with short timeouts.
func (e *itEnv) pool(red *transport.Redactor) *cpssh.Pool {
	e.t.Helper()
	var hosts []cpssh.Host
	for _, h := range e.c.Hosts() {
		hosts = append(hosts, cpssh.Host{
			Name: h.Name, Address: h.Addr, Port: h.Port, User: h.User,
			Auth:    cpssh.Auth{PrivateKeyPath: h.KeyPath},
			HostKey: cpssh.HostKeyCheck{KnownHostsFile: h.KnownHostsPath},
		})
	}
	p, err := cpssh.NewPool(cpssh.Options{DialTimeout: 3 * time.Second, KeepaliveInterval: time.Second, KeepaliveMaxMissed: 2, Redactor: red}, hosts...)
	if err != nil {
		e.t.Fatalf("ssh pool: %v", err)
	}
	e.t.Cleanup(func() { _ = p.Close() })
	return p
}

// engine returns a fresh engine over a fresh pool, with a recorder and a
// journal file; mod adjusts the config.
func (e *itEnv) engine(mod func(*Config)) (*Engine, *recorder) {
	e.t.Helper()
	if e.redact == nil {
		e.redact = &transport.Redactor{}
	}
	rec := &recorder{}
	if e.journal == "" {
		e.journal = filepath.Join(e.t.TempDir(), "journal.jsonl")
	}
	j, err := OpenJournal(e.journal)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() {
		if err := j.Close(); err != nil {
			e.t.Errorf("journal: %v", err)
		}
	})
	cfg := Config{
		Dialer: e.pool(e.redact), Scripts: itScriptSource, Parallelism: 8, PerHost: 4,
		Sinks: []Sink{rec, j}, Redactor: e.redact, Actor: "it-tester",
		StateDir: e.stateDir(), StateBecome: true,
		DefaultTimeout: time.Minute, StepTimeout: 20 * time.Second, GracePeriod: 20 * time.Second,
	}
	if mod != nil {
		mod(&cfg)
	}
	return New(cfg), rec
}

// run runs a plan with a 2-minute bound.
func (e *itEnv) run(eng *Engine, ctx context.Context, p *protocol.Plan, in RunInput) *Result {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	res, err := eng.Run(ctx, p, in)
	if err != nil {
		e.t.Fatalf("Run: %v", err)
	}
	return res
}

// hostFile reads a file on a running host (through its root view).
func (e *itEnv) hostFile(host, p string) ([]byte, error) {
	root, err := e.c.RootPath(host)
	if err != nil {
		return nil, err
	}
	return os.ReadFile(filepath.Join(root, p))
}

// writeHostFile writes a file on a running host by hand, as root, as a
// person fixing it would.
func (e *itEnv) writeHostFile(host, p string, content []byte) {
	e.t.Helper()
	root, err := e.c.RootPath(host)
	if err != nil {
		e.t.Fatal(err)
	}
	full := filepath.Join(root, p)
	if err := os.MkdirAll(filepath.Dir(full), 0o777); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(full, content, 0o644); err != nil {
		e.t.Fatal(err)
	}
}

// runs counts, per instance id, the lines of the run logs of all hosts.
func (e *itEnv) runs() map[string]int {
	e.t.Helper()
	counts := map[string]int{}
	for _, h := range e.names {
		b, err := e.hostFile(h, e.logPath())
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			e.t.Fatalf("read run log on %s: %v", h, err)
		}
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			if l != "" {
				counts[l]++
			}
		}
	}
	return counts
}

// waitHostFile waits (bounded) until a file exists on a host: a
// synchronisation point, not an assertion about speed.
func (e *itEnv) waitHostFile(host, p string, within time.Duration) {
	e.t.Helper()
	deadline := time.Now().Add(within)
	for {
		if _, err := e.hostFile(host, p); err == nil {
			return
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("file %s did not appear on host %s within %s", p, host, within)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// itPlan builds synthetic plans over the test's hosts.
type itPlan struct {
	e *itEnv
	p *protocol.Plan
	// stepByStep makes the instances take the step-by-step path.
	stepByStep bool
}

func (e *itEnv) plan(id string) *itPlan {
	p := &protocol.Plan{ID: id, Template: "it.run@1.0.0", Title: "Integration " + id}
	p.Intent = protocol.Intent{Action: "run", Pack: "it", TargetResource: "it-" + e.name}
	for i, h := range e.names {
		role := protocol.RoleWorker
		if i == 0 {
			role = protocol.RoleMaster
		}
		p.Intent.Hosts = append(p.Intent.Hosts, protocol.Host{Name: h, Address: "10.9.0." + fmt.Sprint(i+1), Role: role})
	}
	return &itPlan{e: e, p: p}
}

// itJob is a job with a script of itScripts.
func itJob(id, script string, evs ...protocol.Evidence) *protocol.Job {
	return &protocol.Job{ID: id, Title: id, Script: "scripts/" + script + ".sh", Outputs: protocol.Outputs{Evidence: evs},
		Controls: protocol.Controls{Idempotency: protocol.Idempotency{Key: id + ":{node_id}"}}}
}

// add adds an instance of job on host (empty: once) with the log and
// state parameters filled in and extra params. The job, its evidence and
// the engine's bookkeeping all run through sudo, so the instance takes the
// one-command path, unless the plan is stepByStep (job and evidence as the
// login user, bookkeeping through sudo).
func (b *itPlan) add(job *protocol.Job, host string, needs []string, params ...string) *protocol.JobInstance {
	job.Controls.Become = !b.stepByStep
	for i := range job.Outputs.Evidence {
		job.Outputs.Evidence[i].Become = !b.stepByStep
	}
	in := newInst(job, job.ID, host, needs...)
	in.Pack = "it@1.0.0"
	in.Params = map[string]string{"log": b.e.logPath(), "state": b.e.statePath(in.ID)}
	for i := 0; i+1 < len(params); i += 2 {
		in.Params[params[i]] = params[i+1]
	}
	b.p.Instances = append(b.p.Instances, in)
	return in
}

// gate adds a gate instance.
func (b *itPlan) gate(g protocol.Gate, needs ...string) *protocol.JobInstance {
	in := &protocol.JobInstance{ID: g.ID, JobID: g.ID, Stage: "gates", Needs: needs, Gate: &g, Origin: protocol.OriginTemplate}
	b.p.Instances = append(b.p.Instances, in)
	return in
}

// stateEvidence checks the file step.sh writes for the instance.
func stateEvidence(id string) protocol.Evidence {
	return protocol.Evidence{ID: id, Command: `cat "$CP_PARAM_STATE" 2>/dev/null`, Expected: "done"}
}

// dump renders a result for failure messages.
func dump(res *Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "operation %s\n", res.Operation.Status)
	for _, in := range res.Instances {
		fmt.Fprintf(&b, "  %s=%s class=%s attempts=%d reason=%s\n", in.ID, in.Status, in.Class, len(in.Attempts), in.Reason)
	}
	return b.String()
}

// eventsJSON renders every recorded event.
func (r *recorder) json(t *testing.T) string {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	b, err := json.Marshal(r.events)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// onEvent installs a callback safely.
func (r *recorder) onEvent(f func(Event)) {
	r.mu.Lock()
	r.on = f
	r.mu.Unlock()
}
