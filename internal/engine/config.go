package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/transport"
)

// ScriptSource returns the bytes of a script of a pack, e.g.
// ("kubernetes@1.0.0", "scripts/install-containerd.sh").
type ScriptSource func(pack, path string) ([]byte, error)

// Config holds everything the engine needs; there are no package globals.
type Config struct {
	// Dialer opens connections to hosts by name. Each Run dials a host once
	// and closes its connections when it returns.
	Dialer transport.Dialer
	// Scripts looks up job scripts.
	Scripts ScriptSource
	// Parallelism bounds the instances running at once (default 16).
	Parallelism int
	// PerHost bounds the instances running at once on one host (default 4).
	PerHost int
	// FailFast stops starting instances after the first failure.
	FailFast bool
	// Clock gives timestamps (default time.Now).
	Clock func() time.Time
	// Sleep waits between attempts (default: a timer that honours ctx).
	Sleep func(ctx context.Context, d time.Duration) error
	// Sinks receive every event, redacted.
	Sinks []Sink
	// Redactor masks secret values; one is created when nil.
	Redactor *transport.Redactor
	// DefaultTimeout bounds a job script without Controls.Timeout (default 10m).
	DefaultTimeout time.Duration
	// StepTimeout bounds each of the engine's own commands: probe, evidence
	// and collect batch, commit (default 2m).
	StepTimeout time.Duration
	// GracePeriod is how long running commands may go on after the run's
	// context is cancelled before they are cut off (default 30s; a negative
	// value cuts them off at once).
	GracePeriod time.Duration
	// Actor is recorded on the operation.
	Actor string
	// StateDir is the engine's directory on hosts (default /var/lib/cp).
	StateDir string
	// StateBecome runs the engine's own bookkeeping through sudo; needed
	// when the login user cannot write StateDir.
	StateBecome bool
	// LogTailLines is how many output lines an instance result keeps
	// (default 40).
	LogTailLines int
	// Lock, when set, makes Run lock every host the plan runs on before
	// any job starts, renew the lease while it runs and release it at the
	// end; nil locks nothing (see doc.go).
	Lock *LockConfig
	// Abort, when closed, stops a run at once: like cancelling its
	// context, but running commands get no GracePeriod; on a locked run
	// the running jobs are sent TERM on their hosts.
	Abort <-chan struct{}
}

// Engine runs plans. It is safe to call Run concurrently for different
// plans.
type Engine struct {
	cfg Config
}

// New returns an engine with the defaults filled in.
func New(cfg Config) *Engine {
	if cfg.Parallelism <= 0 {
		cfg.Parallelism = 16
	}
	if cfg.PerHost <= 0 {
		cfg.PerHost = 4
	}
	if cfg.Clock == nil {
		cfg.Clock = time.Now
	}
	if cfg.Sleep == nil {
		cfg.Sleep = sleepCtx
	}
	if cfg.Redactor == nil {
		cfg.Redactor = &transport.Redactor{}
	}
	if cfg.DefaultTimeout <= 0 {
		cfg.DefaultTimeout = 10 * time.Minute
	}
	if cfg.StepTimeout <= 0 {
		cfg.StepTimeout = 2 * time.Minute
	}
	if cfg.GracePeriod < 0 {
		cfg.GracePeriod = 0
	} else if cfg.GracePeriod == 0 {
		cfg.GracePeriod = 30 * time.Second
	}
	if cfg.StateDir == "" {
		cfg.StateDir = "/var/lib/cp"
	}
	if cfg.LogTailLines <= 0 {
		cfg.LogTailLines = 40
	}
	return &Engine{cfg: cfg}
}

// Redactor returns the engine's redactor (the configured one or its own).
func (e *Engine) Redactor() *transport.Redactor { return e.cfg.Redactor }

func (c *Config) validate() error {
	if c.Dialer == nil {
		return fmt.Errorf("engine config: Dialer is nil")
	}
	if c.Scripts == nil {
		return fmt.Errorf("engine config: Scripts is nil (a ScriptSource returns the pack scripts)")
	}
	return nil
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
