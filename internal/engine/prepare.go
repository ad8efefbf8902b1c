package engine

import (
	"bytes"
	"context"
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
	"github.com/intentops/terraform-provider-cp/internal/transport"
)

// prepCache remembers which hosts were prepared in this run: their run
// directories made and their scripts shipped and checked, in one command
// per host (prepareCmd) before the first instance there runs.
type prepCache struct {
	mu    sync.Mutex
	slots map[string]*prepSlot
}

type prepSlot struct {
	mu   sync.Mutex
	done bool
}

func newPrepCache() *prepCache { return &prepCache{slots: map[string]*prepSlot{}} }

func (c *prepCache) slot(host string) *prepSlot {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.slots[host]
	if s == nil {
		s = &prepSlot{}
		c.slots[host] = s
	}
	return s
}

// ensurePrepared prepares the host once per run, before any instance's
// command there; again when force is set (a script went missing since).
// The first preparation also removes what earlier runs left under run/.
func (r *run) ensurePrepared(ctx context.Context, conn transport.Conn, host string, force bool) error {
	s := r.preps.slot(host)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done && !force {
		return nil
	}
	if err := r.prepareHost(ctx, conn, host, !s.done); err != nil {
		return err
	}
	s.done = true
	return nil
}

// prepareHost makes the directories of every instance of the run that
// takes the one-session path on the host and ships their scripts. With
// stale set it first removes the run directories earlier runs left there
// (nothing of this run has started on the host yet).
func (r *run) prepareHost(ctx context.Context, conn transport.Conn, host string, stale bool) error {
	pub := []string{r.lay.scriptsDir()}
	priv := []string{r.lay.markersDir()}
	// Private: the instance's run directory and its inputs, markers and
	// kept artifacts. Its output and work directories are as the probe of
	// the step-by-step path makes them.
	scripts := map[string]*jobScript{} // host path -> script
	for _, st := range r.states {
		if st.exec != host || st.in.Job == nil || !r.fastEligible(st) {
			continue
		}
		script, err := r.scriptFor(st)
		if err != nil {
			continue // the instance fails with this error when it runs
		}
		p := r.paths(st, script)
		pub = append(pub, p.out, p.work)
		priv = append(priv, p.run, p.in)
		if len(st.in.Job.Outputs.Artifacts) > 0 {
			priv = append(priv, p.keep)
		}
		if script != nil {
			scripts[p.script] = script
		}
	}
	for _, d := range append(pub, priv...) {
		if strings.ContainsAny(d, "\n\x00") {
			return failf(FailureTransport, false, "prepare host %s: path %q has a newline or NUL byte", host, d)
		}
	}
	env := map[string]string{"CP_DIRS_PUB": strings.Join(pub, "\n"), "CP_DIRS_PRIV": strings.Join(priv, "\n")}
	if stale {
		env["CP_STALE_RUNS"] = r.lay.runsDir()
	}
	paths := protocol.SortedKeys(scripts)
	var checks []string
	for i, p := range paths {
		n := strconv.Itoa(i)
		env["CP_SP"+n] = p
		env["CP_SB"+n] = string(scripts[p].body)
		checks = append(checks, scripts[p].sum+"  "+p)
	}
	env["CP_SN"] = strconv.Itoa(len(paths))
	env["CP_SUMS"] = strings.Join(checks, "\n")
	sctx, cancel := context.WithTimeout(ctx, r.cfg.StepTimeout)
	defer cancel()
	res, err := conn.Run(sctx, transport.Command{Cmd: prepareCmd, Env: env, Become: r.cfg.StateBecome})
	if err != nil {
		return fmt.Errorf("prepare host %s (run directories, scripts): %w", host, err)
	}
	if res.ExitCode != 0 {
		return failf(FailureTransport, false, "prepare host %s (run directories, scripts under %s): exited %d: %s", host, r.cfg.StateDir, res.ExitCode, lastLine(string(res.Stderr)))
	}
	frames, err := parseFrames(res.Stdout)
	if err != nil {
		return failf(FailureTransport, false, "prepare host %s: %v", host, err)
	}
	for _, f := range frames {
		if f.kind != "prepared" {
			continue
		}
		if f.code != 0 {
			return failf(FailureTransport, false, "prepare host %s: scripts do not match their SHA-256 after writing them: %s", host, lastLine(string(f.stderr)))
		}
		if f.idx > 0 {
			r.em.emit(Event{Type: EventScriptShipped, Host: host, Message: fmt.Sprintf("%d script(s) -> %s", f.idx, r.lay.scriptsDir())})
		}
		return nil
	}
	return failf(FailureTransport, false, "prepare host %s: the command printed no result", host)
}

// jobScript is a job's script with what the engine derives from it, once
// per run.
type jobScript struct {
	body   []byte
	sum    string // SHA-256, hex: its name on the hosts
	source bool   // sourceable
}

// scriptFor returns the instance's script (nil when the job has none),
// read once per run.
func (r *run) scriptFor(st *instState) (*jobScript, error) {
	job := st.in.Job
	if job.Script == "" {
		return nil, nil
	}
	key := st.in.Pack + "\x00" + job.Script
	r.scriptMu.Lock()
	defer r.scriptMu.Unlock()
	if s, ok := r.scriptMemo[key]; ok {
		return s, nil
	}
	b, err := r.cfg.Scripts(st.in.Pack, job.Script)
	if err != nil {
		return nil, fmt.Errorf("read script %s of pack %s: %w", job.Script, st.in.Pack, err)
	}
	if r.scriptMemo == nil {
		r.scriptMemo = map[string]*jobScript{}
	}
	s := &jobScript{body: b, sum: hashHex(string(b)), source: sourceable(b)}
	r.scriptMemo[key] = s
	return s, nil
}

// fastEligible reports whether an instance runs in one session: its
// script, evidence and the engine's bookkeeping all run as the same user,
// and its script can travel in the environment.
func (r *run) fastEligible(st *instState) bool {
	job := st.in.Job
	if job == nil || job.Controls.Become != r.cfg.StateBecome {
		return false
	}
	for _, ev := range job.Outputs.Evidence {
		if ev.Become != job.Controls.Become {
			return false
		}
	}
	if script, err := r.scriptFor(st); err == nil && script != nil && bytes.IndexByte(script.body, 0) >= 0 {
		return false
	}
	return true
}

// finalMarker is a marker the engine wrote after judging an instance's
// evidence, waiting for the next command on its host.
type finalMarker struct {
	path string
	body []byte
}

// commitQueue holds final markers per host. They travel with the next
// one-session instance on the host, or in flushCommits at the end of the
// run; until then the pending marker written with the run stands in.
type commitQueue struct {
	mu     sync.Mutex
	byHost map[string][]finalMarker
}

func (q *commitQueue) put(host string, ms ...finalMarker) {
	if len(ms) == 0 {
		return
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.byHost == nil {
		q.byHost = map[string][]finalMarker{}
	}
	q.byHost[host] = append(q.byHost[host], ms...)
}

func (q *commitQueue) take(host string) []finalMarker {
	q.mu.Lock()
	defer q.mu.Unlock()
	ms := q.byHost[host]
	delete(q.byHost, host)
	return ms
}

func (q *commitQueue) hosts() []string {
	q.mu.Lock()
	defer q.mu.Unlock()
	var hs []string
	for h, ms := range q.byHost {
		if len(ms) > 0 {
			hs = append(hs, h)
		}
	}
	sort.Strings(hs)
	return hs
}

// commitEnv adds the markers to env for commitsLoop.
func commitEnv(env map[string]string, ms []finalMarker) {
	env["CP_FC_N"] = strconv.Itoa(len(ms))
	for i, m := range ms {
		n := strconv.Itoa(i)
		env["CP_FCM"+n] = m.path
		env["CP_FCB"+n] = string(m.body)
	}
}

// flushCommits writes the final markers still queued, one command per
// host, all hosts at once. When it cannot (the run was cut off, a host is
// gone), the pending markers stay: the next run checks their evidence.
func (r *run) flushCommits() {
	if r.cmdCtx.Err() != nil {
		return
	}
	var wg sync.WaitGroup
	for _, host := range r.commits.hosts() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ms := r.commits.take(host)
			conn, err := r.conns.get(r.cmdCtx, host, r.cfg.StepTimeout)
			if err != nil {
				return
			}
			env := map[string]string{}
			commitEnv(env, ms)
			sctx, cancel := context.WithTimeout(r.cmdCtx, r.cfg.StepTimeout)
			defer cancel()
			res, err := conn.Run(sctx, transport.Command{Cmd: flushCmd, Env: env, Become: r.cfg.StateBecome})
			if err != nil || res.ExitCode != 0 {
				msg := fmt.Sprintf("final markers not written on host %s (the pending ones stand in): ", host)
				if err != nil {
					msg += err.Error()
				} else {
					msg += fmt.Sprintf("exited %d: %s", res.ExitCode, lastLine(string(res.Stderr)))
				}
				r.em.emit(Event{Type: EventMarkersPending, Host: host, Message: r.cfg.Redactor.String(msg)})
			}
		}()
	}
	wg.Wait()
}

// markerArtifacts says where the produced artifacts are kept.
func markerArtifacts(p instancePaths, arts []producedArtifact) []MarkerArtifact {
	var out []MarkerArtifact
	for _, a := range arts {
		out = append(out, MarkerArtifact{ID: a.spec.ID, Path: path.Join(p.keep, a.name), Sensitivity: a.spec.Sensitivity, Fingerprint: fingerprint(a.content)})
	}
	return out
}
