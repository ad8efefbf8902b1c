package hostsim

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// sim is one invocation of a simulated tool.
type sim struct {
	root     string // the host's filesystem root ("/" inside a host)
	host     HostConfig
	euid     int
	getenv   func(string) string
	stdin    io.Reader
	out, err io.Writer
	now      func() time.Time
	st       store
	// afterUnlock runs once the state lock is released (waiting for a
	// real daemon that may itself run a simulated tool); a non-zero
	// result is the exit code.
	afterUnlock []func() int
	containerd  *os.Process // the real daemon this invocation started
}

// Main runs the simulator: args[0]'s basename picks the tool; as
// cp-hostsim it takes a tool name or a control command (fault, state) as
// its first argument. It returns the exit code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	s, err := newSim(stdin, stdout, stderr, getenv)
	if err != nil {
		fmt.Fprintf(stderr, "cp-hostsim: %v\n", err)
		return 2
	}
	if len(args) == 0 {
		args = []string{"cp-hostsim"}
	}
	name := filepath.Base(args[0])
	rest := args[1:]
	if name == "cp-hostsim" {
		if len(rest) == 0 {
			return s.usage()
		}
		if _, ok := scope()[rest[0]]; !ok && (rest[0] == "fault" || rest[0] == "state") {
			return s.control(rest)
		}
		name, rest = rest[0], rest[1:]
	}
	s.log(name, rest)
	if _, ok := scope()[name]; !ok {
		// kubelet, wg-quick...: a package links them, nothing runs them.
		return s.fail(2, "cp-hostsim: not emulated: %s (emulated tools: %s; see internal/hostsim/README.md)", name, strings.Join(ToolNames(), ", "))
	}
	if code, stop := s.applyCommandFaults(name, rest); stop {
		return code
	}
	return s.run(name, rest)
}

func newSim(stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) (*sim, error) {
	s := &sim{root: "/", getenv: getenv, stdin: stdin, out: stdout, err: stderr, now: time.Now, euid: os.Geteuid()}
	if r := getenv(EnvRoot); r != "" {
		s.root = r
	}
	dir := StateDirInHost
	if d := getenv(EnvStateDir); d != "" {
		dir = d
	}
	s.st = store{dir}
	if b, err := os.ReadFile(s.path(HostConfigPath)); err == nil {
		if err := json.Unmarshal(b, &s.host); err != nil {
			return nil, fmt.Errorf("parse %s: %w", s.path(HostConfigPath), err)
		}
	}
	if v := getenv(EnvHost); v != "" {
		s.host.Host = v
	}
	if v := getenv(EnvCluster); v != "" {
		s.host.Cluster = v
	}
	if v := getenv(EnvAddress); v != "" {
		s.host.Address = v
	}
	if s.host.Host == "" {
		h, _ := os.Hostname()
		s.host.Host = h
	}
	if s.host.Address == "" {
		s.host.Address = "127.0.0.1"
	}
	if v := getenv(EnvEUID); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return nil, fmt.Errorf("%s=%q is not a number", EnvEUID, v)
		}
		s.euid = n
	}
	return s, nil
}

// path maps an absolute path on the host to the simulator's view.
func (s *sim) path(p string) string { return filepath.Join(s.root, p) }

func (s *sim) fail(code int, format string, a ...any) int {
	fmt.Fprintf(s.err, format, a...)
	if !strings.HasSuffix(format, "\n") {
		fmt.Fprintln(s.err)
	}
	return code
}

func (s *sim) printf(format string, a ...any) { fmt.Fprintf(s.out, format, a...) }

// log appends one line per invocation to the host's LogPath.
func (s *sim) log(tool string, args []string) {
	p := s.path(LogPath)
	_ = os.MkdirAll(filepath.Dir(p), 0o755)
	f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o666)
	if err != nil {
		return
	}
	defer f.Close()
	fmt.Fprintf(f, "%s host=%s uid=%d %s\n", s.now().UTC().Format(time.RFC3339Nano), s.host.Host, s.euid, strings.Join(append([]string{tool}, args...), " "))
}

// commandMatches reports whether a fault's command ("kubeadm join")
// names this invocation.
func commandMatches(command, tool string, args []string) bool {
	want := strings.Fields(command)
	if len(want) == 0 || want[0] != tool {
		return false
	}
	pos := positional(args)
	for i, w := range want[1:] {
		if i >= len(pos) || pos[i] != w {
			return false
		}
	}
	return true
}

// positional drops flags (best effort) to find a command's subcommands.
func positional(args []string) []string {
	var out []string
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			out = append(out, a)
		}
	}
	return out
}

// applyCommandFaults runs the slow and hang faults; stop says the
// invocation is over (hang ended by the parent going away).
func (s *sim) applyCommandFaults(tool string, args []string) (int, bool) {
	var slow time.Duration
	hang := false
	_ = s.st.view(func(st *State) error {
		for _, f := range st.Faults {
			if f.Host != "" && f.Host != s.host.Host {
				continue
			}
			switch f.Kind {
			case FaultSlow:
				if f.Command == "" || commandMatches(f.Command, tool, args) {
					slow = max(slow, f.Delay)
				}
			case FaultHang:
				if commandMatches(f.Command, tool, args) {
					hang = true
				}
			}
		}
		return nil
	})
	if slow > 0 {
		time.Sleep(slow)
	}
	if !hang {
		return 0, false
	}
	// Sleep until killed; a command whose session went away (parent now
	// init) ends instead of lingering forever.
	for {
		time.Sleep(200 * time.Millisecond)
		if os.Getppid() == 1 {
			return 129, true
		}
	}
}

func (s *sim) usage() int {
	fmt.Fprintf(s.err, `usage: cp-hostsim TOOL [ARGS...]       run a simulated tool (%s)
       cp-hostsim fault set KIND [--host H | --cluster] [--command C] [--delay D] [--nameserver IP]
       cp-hostsim fault clear [KIND] [--host H]
       cp-hostsim fault list
       cp-hostsim state                     print the shared state (JSON)
environment: %s (state directory, default %s), %s, %s, %s, %s
`, strings.Join(ToolNames(), ", "), EnvStateDir, StateDirInHost, EnvRoot, EnvHost, EnvCluster, EnvEUID)
	return 2
}
