package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/intentops/terraform-provider-cp/internal/transport"
)

// attemptError is the failure of one attempt with its class.
type attemptError struct {
	class     string
	retryable bool
	exit      int
	err       error
}

func (e *attemptError) Error() string { return e.err.Error() }
func (e *attemptError) Unwrap() error { return e.err }

func failf(class string, retryable bool, format string, a ...any) *attemptError {
	return &attemptError{class: class, retryable: retryable, err: fmt.Errorf(format, a...)}
}

// classify turns a transport or context error into an attempt error.
// interrupted reports whether the run was cancelled, which wins over the
// error's own class.
func classify(err error, interrupted bool) *attemptError {
	var ae *attemptError
	if errors.As(err, &ae) {
		return ae
	}
	a := &attemptError{err: err}
	switch {
	case interrupted || errors.Is(err, context.Canceled):
		a.class = FailureInterrupted
	case errors.Is(err, transport.ErrTimeout), errors.Is(err, context.DeadlineExceeded):
		a.class, a.retryable = FailureTimeout, true
	case errors.Is(err, transport.ErrUnreachable):
		a.class, a.retryable = FailureUnreachable, true
	case errors.Is(err, transport.ErrConnectionLost):
		a.class, a.retryable = FailureConnLost, true
	case errors.Is(err, transport.ErrAuth):
		a.class = FailureAuth
	case errors.Is(err, transport.ErrHostKey):
		a.class = FailureHostKey
	default:
		a.class, a.retryable = FailureTransport, transport.Retryable(err)
	}
	return a
}

// redactedError shows a redacted message. It unwraps only to the transport
// sentinel or context error found in the original chain, so errors.Is still
// classifies it while no unredacted text is reachable through it.
type redactedError struct {
	msg  string
	kind error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.kind }

var sentinels = []error{
	transport.ErrAuth, transport.ErrHostKey, transport.ErrUnreachable, transport.ErrTimeout,
	transport.ErrCommandFailed, transport.ErrConnectionLost, context.Canceled, context.DeadlineExceeded,
}

func redactErr(r *transport.Redactor, err error) error {
	if err == nil {
		return nil
	}
	re := &redactedError{msg: r.String(err.Error())}
	for _, s := range sentinels {
		if errors.Is(err, s) {
			re.kind = s
			break
		}
	}
	return re
}
