package engine

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/user"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/intentops/terraform-provider-cp/internal/transport"
)

// Lock events.
const (
	// EventLockTaken: the run holds the lock of a host (Message says
	// whether it took over an expired lease, and whose).
	EventLockTaken EventType = "lock.taken"
	// EventLockWaiting: a host is locked by another operation and the run
	// waits (Message names the holder).
	EventLockWaiting EventType = "lock.waiting"
	// EventLockSkipped: a host could not be reached to lock it; nothing
	// runs on it in this run.
	EventLockSkipped EventType = "lock.skipped"
	// EventLockRenewFailed: a renewal of the lease failed; the next one
	// tries again.
	EventLockRenewFailed EventType = "lock.renew_failed"
	// EventLockLost: another operation took the lock over after this run's
	// lease expired; the run stops at once.
	EventLockLost EventType = "lock.lost"
	// EventLockReleased: the run released the lock of a host.
	EventLockReleased EventType = "lock.released"
	// EventJobsStopped: the run signalled its running jobs on a host.
	EventJobsStopped EventType = "jobs.stopped"
)

// LockConfig turns on the host lock (Config.Lock): before any job starts,
// Run takes a lock on every host the plan runs on, renews its lease while
// it runs, and releases it when it ends. See doc.go, "One operation per
// host at a time".
type LockConfig struct {
	// Lease is how long a lock stays valid without renewal (default 30s,
	// at least 2s; whole seconds, rounded up). A holder that was killed
	// loses its lock this long after its last renewal.
	Lease time.Duration
	// Renew is how often the running apply renews the lease (default a
	// third of Lease; it must be shorter than Lease).
	Renew time.Duration
	// Wait is how long Run waits for a host another operation holds before
	// it fails with a *LockedError (0: fail at once). The run's context
	// bounds the wait too.
	Wait time.Duration
	// Poll is how often a waiting run looks again (default 1s).
	Poll time.Duration
	// Resource names what the operation changes, for the holder's identity
	// and errors (default: the intent's target resource type and name).
	Resource string
	// Machine, User and PID identify the process holding the lock
	// (defaults: this machine's host name, the OS user, os.Getpid()).
	Machine string
	User    string
	PID     int
}

// ErrAborted is the cause of a run stopped through Config.Abort.
var ErrAborted = errors.New("the run was aborted: its caller went away")

// ErrLockLost is the cause of a run stopped because another operation took
// over its lock.
var ErrLockLost = errors.New("the host lock was taken over by another operation")

// LockHolder identifies the operation holding a host's lock, as written in
// the lock file. Acquired, Renewed and Expires are the host's clock (Unix
// seconds).
type LockHolder struct {
	Operation string    `json:"operation"`
	Token     string    `json:"token"`
	Resource  string    `json:"resource,omitempty"`
	Plan      string    `json:"plan,omitempty"`
	Actor     string    `json:"actor,omitempty"`
	User      string    `json:"user,omitempty"`
	Machine   string    `json:"machine,omitempty"`
	PID       int       `json:"pid,omitempty"`
	Started   time.Time `json:"started"`
	Acquired  int64     `json:"-"`
	Renewed   int64     `json:"-"`
	Expires   int64     `json:"-"`
}

// who is "actor ci, root@runner-1 pid 123".
func (h LockHolder) who() string {
	var parts []string
	if h.Actor != "" {
		parts = append(parts, "actor "+clip(h.Actor))
	}
	p := clip(h.Machine)
	if h.User != "" {
		p = clip(h.User) + "@" + p
	}
	if h.PID > 0 {
		p += " pid " + strconv.Itoa(h.PID)
	}
	if strings.TrimSpace(p) != "" {
		parts = append(parts, strings.TrimSpace(p))
	}
	if len(parts) == 0 {
		return "an unknown holder"
	}
	return strings.Join(parts, ", ")
}

// LockedError is a run refused because another operation holds the lock
// of one of its hosts.
type LockedError struct {
	// Resource is what this run was to change; Host the host it could not
	// lock; Path the lock file there.
	Resource string
	Host     string
	Path     string
	// Holder is who holds it; HostNow the host's clock when it was last
	// read (Unix seconds). Known is false when the lock file could not be
	// read (it changed while being read).
	Holder  LockHolder
	Known   bool
	HostNow int64
	// Waited is how long this run waited for it.
	Waited time.Duration
	// Cause says why the wait ended early (the run's context), if it did.
	Cause error
}

func (e *LockedError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: host %s is locked", e.Resource, e.Host)
	if e.Known {
		h := e.Holder
		fmt.Fprintf(&b, " by operation %s", clip(h.Operation))
		if h.Resource != "" {
			fmt.Fprintf(&b, " on %s", clip(h.Resource))
		}
		fmt.Fprintf(&b, " of %s", h.who())
		if h.Acquired > 0 {
			fmt.Fprintf(&b, ", started %s ago", ago(e.HostNow-h.Acquired))
		}
		if h.Renewed > 0 {
			fmt.Fprintf(&b, ", lease renewed %s ago", ago(e.HostNow-h.Renewed))
		}
		if h.Expires > 0 {
			fmt.Fprintf(&b, ", expires in %s", ago(h.Expires-e.HostNow))
		}
	} else {
		b.WriteString(" by another operation (its lock file changed while it was read)")
	}
	if e.Waited > 0 {
		fmt.Fprintf(&b, "; waited %s", e.Waited.Round(time.Second))
	}
	if e.Cause != nil {
		fmt.Fprintf(&b, " (%v)", e.Cause)
	}
	fmt.Fprintf(&b, ". Wait for that operation to end and apply again; if its process is gone (killed), its lease runs out"+
		" without renewal and the next apply takes the lock over. The lock file is %s on %s.", e.Path, e.Host)
	return b.String()
}

func ago(s int64) string {
	if s < 0 {
		s = 0
	}
	return (time.Duration(s) * time.Second).String()
}

// clip makes a value read from a host printable: control characters
// become '?', and it is cut at 200 characters.
func clip(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return '?'
		}
		return r
	}, s)
	if r := []rune(s); len(r) > 200 {
		return string(r[:200]) + "..."
	}
	return s
}

// hostLocks is a run's locks and its stop path (stop.go). With
// Config.Lock nil it locks nothing and only stops as the engine always
// has.
type hostLocks struct {
	r       *run
	cfg     LockConfig
	enabled bool
	holder  LockHolder
	line    string // the holder as one JSON line
	dir     string // lock directory on the hosts
	guard   *lockGuard

	mu    sync.Mutex
	held  []string         // hosts locked, in the order taken
	since map[string]int64 // host -> host time the lock was taken

	cancel   context.CancelCauseFunc
	hard     chan struct{} // closed: stop now (abort or lock lost)
	hardOnce sync.Once
	done     chan struct{} // closed by release
	termSent chan struct{} // closed once the running jobs were sent TERM (stop.go)
	renewed  chan struct{} // closed when the renewal loop ended
	renewing bool          // the renewal loop was started
	relOnce  sync.Once
}

// lockHosts sets up the run's connections and, when Config.Lock is set,
// takes the lock of every host the plan runs on, in sorted order. The
// context it returns is cancelled when Config.Abort closes or the lock is
// lost. On error nothing is held and the connections are closed.
func (r *run) lockHosts(ctx context.Context, opID string) (context.Context, *hostLocks, error) {
	lk := &hostLocks{r: r, hard: make(chan struct{}), done: make(chan struct{}), renewed: make(chan struct{}), since: map[string]int64{},
		termSent: make(chan struct{})}
	ctx, lk.cancel = context.WithCancelCause(ctx)
	if abort := r.cfg.Abort; abort != nil {
		go func() {
			select {
			case <-abort:
				lk.stopNow(ErrAborted)
			case <-lk.done:
			}
		}()
	}
	if r.cfg.Lock == nil {
		r.conns = newConnCache(r.cfg.Dialer)
		return ctx, lk, nil
	}
	lk.enabled = true
	lk.cfg = lockDefaults(*r.cfg.Lock, r)
	if lk.cfg.Renew >= lk.cfg.Lease {
		lk.finish()
		return ctx, nil, fmt.Errorf("lock: Renew (%s) must be shorter than Lease (%s); renew the lease at least once before it expires", lk.cfg.Renew, lk.cfg.Lease)
	}
	for _, s := range []string{opID, lk.cfg.Resource} {
		if strings.ContainsFunc(s, unicode.IsControl) {
			lk.finish()
			return ctx, nil, fmt.Errorf("lock: operation id and resource must not hold control characters: %q", clip(s))
		}
	}
	token, err := newToken()
	if err != nil {
		lk.finish()
		return ctx, nil, fmt.Errorf("lock: %w", err)
	}
	lk.holder = LockHolder{
		Operation: opID, Token: token, Resource: lk.cfg.Resource, Plan: r.plan.ID, Actor: r.cfg.Actor,
		User: lk.cfg.User, Machine: lk.cfg.Machine, PID: lk.cfg.PID, Started: r.cfg.Clock().UTC(),
	}
	line, err := json.Marshal(lk.holder)
	if err != nil {
		lk.finish()
		return ctx, nil, fmt.Errorf("lock: encode the holder: %w", err)
	}
	lk.line = string(line)
	lk.dir = path.Join(r.cfg.StateDir, "lock")
	lk.guard = &lockGuard{Dialer: r.cfg.Dialer, refused: map[string]error{}}
	r.conns = newConnCache(lk.guard)

	hosts := slices.Clone(r.hosts)
	slices.Sort(hosts)
	deadline := time.Now().Add(lk.cfg.Wait)
	for _, h := range hosts {
		if err := lk.take(ctx, h, deadline); err != nil {
			lk.release()
			r.conns.closeAll()
			return ctx, nil, err
		}
	}
	lk.renewing = true
	go lk.renewLoop()
	return ctx, lk, nil
}

func lockDefaults(c LockConfig, r *run) LockConfig {
	if c.Lease <= 0 {
		c.Lease = 30 * time.Second
	}
	c.Lease = max(2*time.Second, (c.Lease + time.Second - 1).Truncate(time.Second))
	if c.Renew <= 0 {
		c.Renew = c.Lease / 3
	}
	if c.Poll <= 0 {
		c.Poll = time.Second
	}
	if c.Resource == "" {
		in := r.plan.Intent
		c.Resource = strings.TrimSpace(in.TargetResourceType + " " + in.TargetResource)
		if c.Resource == "" {
			c.Resource = "plan " + r.plan.ID
		}
	}
	if c.Machine == "" {
		c.Machine, _ = os.Hostname()
	}
	if c.User == "" {
		if u, err := user.Current(); err == nil {
			c.User = u.Username
		}
	}
	if c.PID == 0 {
		c.PID = os.Getpid()
	}
	return c
}

func newToken() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("draw a lock token: %w", err)
	}
	return hex.EncodeToString(b), nil
}

func (lk *hostLocks) env() map[string]string {
	return map[string]string{
		"CP_LOCK_DIR": lk.dir, "CP_LOCK_TOKEN": lk.holder.Token, "CP_LOCK_HOLDER": lk.line,
		"CP_LOCK_LEASE": strconv.Itoa(int(lk.cfg.Lease / time.Second)),
	}
}

// lockReply is what a lock command printed: its state, the host's clock
// and the lock file that came with it.
type lockReply struct {
	state  string
	now    int64
	holder LockHolder
	known  bool
}

func parseLockReply(out []byte) (lockReply, error) {
	var rep lockReply
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	first := true
	var file []string
	for sc.Scan() {
		l := sc.Text()
		if first {
			f := strings.Fields(l)
			if len(f) != 3 || f[0] != "@lock" {
				return rep, fmt.Errorf("unexpected reply %q", clip(l))
			}
			rep.state = f[1]
			n, err := strconv.ParseInt(f[2], 10, 64)
			if err != nil {
				return rep, fmt.Errorf("unexpected time in reply %q", clip(l))
			}
			rep.now, first = n, false
			continue
		}
		if rest, ok := strings.CutPrefix(l, "|"); ok {
			file = append(file, rest)
		}
	}
	if first {
		return rep, fmt.Errorf("empty reply")
	}
	rep.holder, rep.known = parseLockFile(file)
	return rep, nil
}

// parseLockFile reads the lock file's lines; ok is false when it is not
// a complete lock file.
func parseLockFile(lines []string) (LockHolder, bool) {
	var h LockHolder
	var token string
	haveHolder := false
	for _, l := range lines {
		k, v, _ := strings.Cut(l, " ")
		switch k {
		case "token":
			token = v
		case "acquired":
			h.Acquired, _ = strconv.ParseInt(v, 10, 64)
		case "renewed":
			h.Renewed, _ = strconv.ParseInt(v, 10, 64)
		case "expires":
			h.Expires, _ = strconv.ParseInt(v, 10, 64)
		case "holder":
			var j LockHolder
			if json.Unmarshal([]byte(v), &j) == nil {
				j.Acquired, j.Renewed, j.Expires = h.Acquired, h.Renewed, h.Expires
				h, haveHolder = j, true
			}
		}
	}
	if !haveHolder {
		return h, false
	}
	h.Token = token
	return h, true
}

// take locks one host, waiting while another operation holds it until
// deadline or the end of ctx. A host that cannot be reached is skipped
// (and refused for the rest of the run); a lock command that fails is an
// error.
func (lk *hostLocks) take(ctx context.Context, host string, deadline time.Time) error {
	r := lk.r
	begin := time.Now()
	var lastWho string
	// last is the holder seen by the previous try: when the wait ends
	// during a try (a slow host, a loaded machine), the error still names
	// who holds the lock rather than the cut-off command.
	var last *LockedError
	ended := func() error {
		last.Waited, last.Cause = time.Since(begin), context.Cause(ctx)
		return last
	}
	for {
		conn, err := r.conns.get(ctx, host, r.cfg.StepTimeout)
		if err != nil {
			if ctx.Err() != nil {
				if last != nil {
					return ended()
				}
				return fmt.Errorf("lock host %s: %w", host, err)
			}
			lk.guard.refuse(host, err)
			r.em.emit(Event{Type: EventLockSkipped, Host: host, Message: "not locked, nothing runs there in this run: " + err.Error()})
			return nil
		}
		rep, err := lk.command(ctx, conn, lockTakeCmd, nil)
		if err != nil {
			if ctx.Err() != nil && last != nil {
				return ended()
			}
			if ctx.Err() == nil && transport.Retryable(err) {
				r.conns.drop(host, conn)
				lk.guard.refuse(host, err)
				r.em.emit(Event{Type: EventLockSkipped, Host: host, Message: "not locked, nothing runs there in this run: " + err.Error()})
				return nil
			}
			return fmt.Errorf("lock host %s (%s): %w", host, path.Join(lk.dir, "held"), err)
		}
		switch rep.state {
		case "taken", "takenover":
			lk.mu.Lock()
			lk.held = append(lk.held, host)
			lk.since[host] = rep.now
			lk.mu.Unlock()
			msg := "locked " + path.Join(lk.dir, "held")
			if rep.state == "takenover" {
				msg += "; took over the expired lease of " + staleWho(rep)
			}
			r.em.emit(Event{Type: EventLockTaken, Host: host, Message: msg})
			return nil
		case "busy":
		default:
			return fmt.Errorf("lock host %s: unexpected state %q", host, clip(rep.state))
		}
		lerr := &LockedError{Resource: lk.cfg.Resource, Host: host, Path: path.Join(lk.dir, "held"), Holder: rep.holder, Known: rep.known, HostNow: rep.now, Waited: time.Since(begin)}
		last = lerr
		if !time.Now().Before(deadline) {
			return lerr
		}
		if who := rep.holder.Token; who != lastWho {
			lastWho = who
			r.em.emit(Event{Type: EventLockWaiting, Host: host, Message: "waiting up to " + time.Until(deadline).Round(time.Second).String() + ": " + lerr.Error()})
		}
		wait := min(lk.cfg.Poll, time.Until(deadline))
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			lerr.Waited, lerr.Cause = time.Since(begin), context.Cause(ctx)
			return lerr
		case <-t.C:
		}
	}
}

func staleWho(rep lockReply) string {
	if !rep.known {
		return "an unreadable lock file"
	}
	h := rep.holder
	s := "operation " + clip(h.Operation) + " of " + h.who()
	if h.Renewed > 0 {
		s += ", last renewed " + ago(rep.now-h.Renewed) + " ago"
	}
	return s
}

// command runs one lock command with the lock's environment plus extra.
func (lk *hostLocks) command(ctx context.Context, conn transport.Conn, cmd string, extra map[string]string) (lockReply, error) {
	env := lk.env()
	for k, v := range extra {
		env[k] = v
	}
	sctx, cancel := context.WithTimeout(ctx, lk.r.cfg.StepTimeout)
	defer cancel()
	res, err := conn.Run(sctx, transport.Command{Cmd: cmd, Env: env, Become: lk.r.cfg.StateBecome})
	if err != nil {
		return lockReply{}, err
	}
	if res.ExitCode != 0 {
		return lockReply{}, fmt.Errorf("%w: the lock command exited %d: %s", transport.ErrCommandFailed, res.ExitCode, lastLine(string(res.Stderr)))
	}
	rep, err := parseLockReply(res.Stdout)
	if err != nil {
		return rep, fmt.Errorf("%w: the lock command's output: %w", transport.ErrCommandFailed, err)
	}
	return rep, nil
}

// heldHosts returns the hosts locked so far.
func (lk *hostLocks) heldHosts() []string {
	lk.mu.Lock()
	defer lk.mu.Unlock()
	return slices.Clone(lk.held)
}

// renewLoop renews the lease on every held host each Renew, in parallel,
// over the run's connections, until release.
func (lk *hostLocks) renewLoop() {
	defer close(lk.renewed)
	t := time.NewTicker(lk.cfg.Renew)
	defer t.Stop()
	for {
		select {
		case <-lk.done:
			return
		case <-t.C:
		}
		var wg sync.WaitGroup
		for _, h := range lk.heldHosts() {
			wg.Add(1)
			go func() {
				defer wg.Done()
				lk.renew(h)
			}()
		}
		wg.Wait()
	}
}

func (lk *hostLocks) renew(host string) {
	r := lk.r
	ctx, cancel := context.WithTimeout(context.Background(), lk.cfg.Renew)
	defer cancel()
	conn, err := r.conns.get(ctx, host, lk.cfg.Renew)
	if err == nil {
		var rep lockReply
		rep, err = lk.command(ctx, conn, lockRenewCmd, nil)
		if err == nil && rep.state == "lost" {
			who := "an unreadable lock file"
			if rep.known {
				who = "operation " + clip(rep.holder.Operation) + " of " + rep.holder.who()
			}
			msg := fmt.Sprintf("the lease expired and %s holds the lock now; stopping", who)
			r.em.emit(Event{Type: EventLockLost, Host: host, Message: msg})
			lk.stopNow(fmt.Errorf("%w: host %s: %s", ErrLockLost, host, msg))
			return
		}
		if err == nil && rep.state != "renewed" {
			err = fmt.Errorf("unexpected state %q", clip(rep.state))
		}
		if err != nil && transport.Retryable(err) {
			r.conns.drop(host, conn)
		}
	}
	if err != nil {
		r.em.emit(Event{Type: EventLockRenewFailed, Host: host, Message: "renew the lease: " + err.Error()})
	}
}

// stopNow cancels the run at once: no grace for running commands.
func (lk *hostLocks) stopNow(cause error) {
	lk.hardOnce.Do(func() { close(lk.hard) })
	lk.cancel(cause)
}

// finish ends the abort watcher and the run's derived context; the run
// is over (or never started).
func (lk *hostLocks) finish() {
	lk.relOnce.Do(func() {
		close(lk.done)
		lk.cancel(nil)
	})
}

// release stops the renewals and releases every held lock, in parallel;
// it runs once, after the last job, whether the run succeeded or not.
func (lk *hostLocks) release() {
	if lk == nil {
		return
	}
	lk.finish()
	if lk.renewing {
		<-lk.renewed
	}
	if !lk.enabled {
		return
	}
	r := lk.r
	var wg sync.WaitGroup
	for _, h := range lk.heldHosts() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), min(r.cfg.StepTimeout, 20*time.Second))
			defer cancel()
			conn, err := r.conns.get(ctx, h, r.cfg.StepTimeout)
			var rep lockReply
			if err == nil {
				rep, err = lk.command(ctx, conn, lockReleaseCmd, nil)
			}
			msg := "released"
			switch {
			case err != nil:
				msg = "not released (its lease expires on its own): " + err.Error()
			case rep.state == "notheld":
				msg = "not held any more (taken over after the lease expired)"
			}
			r.em.emit(Event{Type: EventLockReleased, Host: h, Message: msg})
		}()
	}
	wg.Wait()
	lk.mu.Lock()
	lk.held = nil
	lk.mu.Unlock()
}

// lockGuard is the run's Dialer when locking: a host that could not be
// reached when the locks were taken stays refused for the run, so no job
// runs on a host this run does not hold.
type lockGuard struct {
	transport.Dialer
	mu      sync.Mutex
	refused map[string]error
}

func (g *lockGuard) refuse(host string, err error) {
	g.mu.Lock()
	g.refused[host] = err
	g.mu.Unlock()
}

// Dial refuses the hosts that were not locked.
func (g *lockGuard) Dial(ctx context.Context, host string) (transport.Conn, error) {
	g.mu.Lock()
	err := g.refused[host]
	g.mu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("host %s was not locked (it could not be reached when the run took its locks), so nothing runs there in this run: %w", host, err)
	}
	return g.Dialer.Dial(ctx, host)
}
