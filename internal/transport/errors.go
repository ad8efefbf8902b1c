package transport

import (
	"errors"
	"fmt"
)

// Sentinel errors classify transport failures; use errors.Is.
var (
	ErrAuth           = errors.New("authentication failed")
	ErrHostKey        = errors.New("host key verification failed")
	ErrUnreachable    = errors.New("host unreachable")
	ErrTimeout        = errors.New("timed out")
	ErrCommandFailed  = errors.New("command failed")
	ErrConnectionLost = errors.New("connection lost")
)

// Retryable reports whether an error may go away when tried again:
// unreachable hosts, timeouts and lost connections are; authentication,
// host key and command failures are not.
func Retryable(err error) bool {
	return errors.Is(err, ErrUnreachable) || errors.Is(err, ErrTimeout) || errors.Is(err, ErrConnectionLost)
}

// HostError wraps a failure with the host it happened on.
type HostError struct {
	Host string
	Op   string
	Err  error
}

func (e *HostError) Error() string { return fmt.Sprintf("%s on host %s: %v", e.Op, e.Host, e.Err) }

func (e *HostError) Unwrap() error { return e.Err }
