package diagnose

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// DefaultAnalyzerTimeout bounds an external analyzer whose Timeout is zero.
const DefaultAnalyzerTimeout = 60 * time.Second

// CommandAnalyzer runs an executable that reads the failure as JSON on
// stdin and writes the answer as JSON on stdout (see ParseAnswer). A
// non-zero exit, a timeout or anything but the expected JSON is an error.
type CommandAnalyzer struct {
	// Path of the executable; Args are passed as they are (no shell).
	Path string
	Args []string
	// Timeout of one run; zero means DefaultAnalyzerTimeout.
	Timeout time.Duration
	// ID names the analyzer in patch authors; empty means the
	// executable's base name.
	ID string
}

// Name returns ID or the executable's base name.
func (c CommandAnalyzer) Name() string {
	if c.ID != "" {
		return c.ID
	}
	return filepath.Base(c.Path)
}

// Analyze runs the executable once.
func (c CommandAnalyzer) Analyze(ctx context.Context, req Request) (Answer, error) {
	if c.Path == "" {
		return Answer{}, fmt.Errorf("%w: command analyzer has no path", ErrAnalyzer)
	}
	payload, err := req.payload()
	if err != nil {
		return Answer{}, fmt.Errorf("%w: %w", ErrAnalyzer, err)
	}
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = DefaultAnalyzerTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.Path, c.Args...)
	cmd.Stdin = bytes.NewReader(payload)
	stdout := &capped{max: maxAnswer + 1}
	stderr := &capped{max: 4096}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	// A killed script may leave children holding the pipes open.
	cmd.WaitDelay = 2 * time.Second
	err = cmd.Run()
	switch {
	case ctx.Err() != nil:
		return Answer{}, fmt.Errorf("%w: %s did not answer within %s: %w", ErrAnalyzer, c.Path, timeout, ctx.Err())
	case err != nil:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return Answer{}, fmt.Errorf("%w: %s exited with code %d: %s", ErrAnalyzer, c.Path, ee.ExitCode(), strings.TrimSpace(stderr.String()))
		}
		return Answer{}, fmt.Errorf("%w: run %s: %w", ErrAnalyzer, c.Path, err)
	case stdout.over:
		return Answer{}, fmt.Errorf("%w: %s wrote more than %d bytes", ErrAnswer, c.Path, maxAnswer)
	}
	ans, err := ParseAnswer(stdout.Bytes())
	if err != nil {
		return Answer{}, fmt.Errorf("%s: %w", c.Path, err)
	}
	return ans, nil
}

// capped is a buffer that keeps at most max bytes and remembers whether
// more arrived.
type capped struct {
	bytes.Buffer
	max  int
	over bool
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.Buffer.Len(); len(p) > room {
		c.over = true
		if room > 0 {
			c.Buffer.Write(p[:room])
		}
		return len(p), nil
	}
	return c.Buffer.Write(p)
}
