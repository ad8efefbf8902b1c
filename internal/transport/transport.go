// Package transport defines how the engine runs commands and moves files on
// a host. Implementations: transport/ssh (real hosts over SSH) and in-memory
// fakes for tests and benchmarks.
package transport

import (
	"context"
	"io"
	"os"
	"time"
)

// Command is one command to run on a host. The command line is passed to
// the remote shell as is; values (parameters, artifacts, secrets) travel in
// Env or Stdin, never pasted into Cmd.
type Command struct {
	Cmd   string
	Stdin io.Reader
	Env   map[string]string
	Dir   string
	// Become runs the command through sudo (with the host's become password
	// when one is configured).
	Become bool
	// MaxOutput caps captured stdout and stderr each, in bytes; 0 means
	// the transport default (1 MiB).
	MaxOutput int
	// Stdout and Stderr, when set, receive the stream as it arrives (after
	// redaction) in addition to the captured copy.
	Stdout io.Writer
	Stderr io.Writer
	// RawStdout returns the captured stdout unredacted, for a caller that
	// decodes the output and redacts what it records itself (the engine's
	// framed results). Streamed output and stderr are still redacted.
	RawStdout bool
}

// Result of a command that ran to completion (whatever its exit code).
type Result struct {
	Stdout    []byte
	Stderr    []byte
	ExitCode  int
	Truncated bool
	Duration  time.Duration
}

// File is a file to upload.
type File struct {
	Path    string
	Content []byte
	Mode    os.FileMode
	Owner   string // "user" or "user:group"; empty keeps the login user
	Become  bool   // write through sudo
}

// Conn runs commands and moves files on one host. Implementations are safe
// for concurrent use; sessions over one connection are bounded per host.
type Conn interface {
	// Run runs a command. A non-zero exit code is not an error: it is in
	// Result.ExitCode. Errors are classified with the sentinels of this
	// package (ErrTimeout, ErrConnectionLost...).
	Run(ctx context.Context, cmd Command) (Result, error)
	Upload(ctx context.Context, f File) error
	Download(ctx context.Context, path string, become bool) ([]byte, error)
	// Host returns the host's name.
	Host() string
	Close() error
}

// Dialer opens connections to hosts by name; a pool reuses one connection
// per host.
type Dialer interface {
	Dial(ctx context.Context, host string) (Conn, error)
}
