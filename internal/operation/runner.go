package operation

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/engine"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
	"github.com/intentops/terraform-provider-cp/internal/transport"
)

// PackGetter finds a pack by id and version constraint; packs.Catalog
// satisfies it.
type PackGetter interface {
	Get(id, constraint string) (*protocol.ScenarioPack, error)
}

// Runner runs plans against hosts over SSH.
type Runner struct {
	Packs       PackGetter
	Parallelism int
	PerHost     int
	Actor       string
	Sinks       []engine.Sink
	// Redactor collects secret values; shared with the caller so its logs
	// are masked too. One is created when nil.
	Redactor *transport.Redactor
	// LockWait is how long a run waits for hosts another operation has
	// locked before it fails naming the holder; 0 waits as long as the
	// caller's context allows (the resource's timeout), negative fails at
	// once.
	LockWait time.Duration
	// Lifetime stops the runs when aborted (default Process()).
	Lifetime *Lifetime
}

// unboundedWait is the wait for a lock when neither Runner.LockWait nor
// the context bounds it.
const unboundedWait = 24 * time.Hour

// lockWait is the engine's LockConfig.Wait for r under ctx.
func (r *Runner) lockWait(ctx context.Context) time.Duration {
	switch {
	case r.LockWait < 0:
		return 0
	case r.LockWait > 0:
		return r.LockWait
	}
	if d, ok := ctx.Deadline(); ok {
		return max(0, time.Until(d))
	}
	return unboundedWait
}

// Scripts returns the engine's script source over the packs: pack refs
// are "id@version".
func (r *Runner) Scripts() engine.ScriptSource {
	return func(ref, path string) ([]byte, error) {
		id, version, _ := strings.Cut(ref, "@")
		pack, err := r.Packs.Get(id, "="+version)
		if err != nil {
			return nil, fmt.Errorf("script %s of %s: %w", path, ref, err)
		}
		b, ok := pack.Scripts[path]
		if !ok {
			return nil, fmt.Errorf("script %s is not in pack %s", path, ref)
		}
		return b, nil
	}
}

// Run executes the plan on the hosts, holding the lock of every host it
// runs on (see the engine's doc). The returned error is about starting
// the run (bad access settings, hosts locked by another operation: an
// *engine.LockedError, the lifetime aborted); job failures are in the
// result.
func (r *Runner) Run(ctx context.Context, plan *protocol.Plan, hosts []HostAccess, in engine.RunInput) (*engine.Result, error) {
	if r.Redactor == nil {
		r.Redactor = &transport.Redactor{}
	}
	life := r.Lifetime
	if life == nil {
		life = Process()
	}
	done, err := life.begin()
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", plan.Display(), err)
	}
	defer done()
	pool, err := Pool(hosts, r.Redactor)
	if err != nil {
		return nil, err
	}
	defer pool.Close()
	become := false
	for _, h := range hosts {
		if h.Access.User != "root" {
			become = true
		}
	}
	eng := engine.New(engine.Config{
		Dialer: pool, Scripts: r.Scripts(), Parallelism: r.Parallelism, PerHost: r.PerHost,
		Sinks: r.Sinks, Redactor: r.Redactor, Actor: r.Actor, StateBecome: become,
		Lock: &engine.LockConfig{Wait: r.lockWait(ctx)}, Abort: life.Aborted(),
	})
	res, err := eng.Run(ctx, plan, in)
	if err != nil {
		return res, fmt.Errorf("run %s: %w", plan.Display(), err)
	}
	return res, nil
}

// Fetch reads a secret artifact by its reference "host:path" from the
// named host.
func Fetch(ctx context.Context, hosts []HostAccess, ref string, redactor *transport.Redactor) ([]byte, error) {
	name, p, ok := protocol.SplitRef(ref)
	if !ok {
		return nil, fmt.Errorf("artifact reference %q is not host:path", ref)
	}
	var target []HostAccess
	for _, h := range hosts {
		if h.Host.Name == name {
			target = append(target, h)
		}
	}
	if len(target) == 0 {
		return nil, fmt.Errorf("artifact reference %q names host %s, which is not among the hosts given", ref, name)
	}
	pool, err := Pool(target, redactor)
	if err != nil {
		return nil, err
	}
	defer pool.Close()
	conn, err := pool.Dial(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", ref, err)
	}
	b, err := conn.Download(ctx, p, target[0].Access.User != "root")
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", ref, err)
	}
	return b, nil
}
