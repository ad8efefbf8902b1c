package testhosts

import (
	"fmt"
	"os"
	"strings"
)

// SSHDLogPath is the file a host's sshd logs to (LogLevel VERBOSE): one
// "Connection from" line per connection it accepts, whether or not the
// client logs in.
func (c *Cluster) SSHDLogPath(name string) (string, error) {
	h, err := c.host(name)
	if err != nil {
		return "", err
	}
	return h.dirs.log, nil
}

// Connections counts the connections a host's sshd has accepted since it
// was first started, from its log. The harness's own readiness probes
// count too: compare two readings.
func (c *Cluster) Connections(name string) (int, error) {
	p, err := c.SSHDLogPath(name)
	if err != nil {
		return 0, err
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return 0, fmt.Errorf("count connections to host %s: %w", name, err)
	}
	return strings.Count(string(b), "Connection from "), nil
}
