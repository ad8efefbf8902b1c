package engine

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/intentops/terraform-provider-cp/internal/transport"
)

// memNet is an in-memory fleet of hosts. It understands the engine's own
// commands (probe, run, batch, commit) and hands job scripts and evidence
// and collect commands to the test's handlers. Each host counts how often
// each instance's script ran.
type memNet struct {
	mu    sync.Mutex
	hosts map[string]*memHost
	// script runs a job script; content is what ScriptSource returned.
	script func(h *memHost, content string, env map[string]string, stdout io.Writer) int
	// check runs an evidence or collect command.
	check func(h *memHost, cmd string, env map[string]string) (string, int)
	// hook runs before every command and upload; an error fails it.
	hook  func(ctx context.Context, host, what string) error
	dials int
	cmds  map[string]int // command kind -> count, all hosts
	// inputs records the input artifact paths each instance's script was
	// started with.
	inputs map[string][]string
}

// inputsSeen returns the input paths an instance's script was started with.
func (n *memNet) inputsSeen(instance string) []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.inputs[instance]
}

// sawInputs records env's CP_ARTIFACT_ paths that exist on h.
func (n *memNet) sawInputs(h *memHost, env map[string]string) {
	var ps []string
	for k, v := range env {
		if _, ok := h.file(v); ok && strings.HasPrefix(k, "CP_ARTIFACT_") {
			ps = append(ps, v)
		}
	}
	sort.Strings(ps)
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.inputs == nil {
		n.inputs = map[string][]string{}
	}
	n.inputs[env["CP_INSTANCE"]] = ps
}

type memHost struct {
	name  string
	mu    sync.Mutex
	files map[string][]byte
	outs  map[string][]string // output dir -> files written there
	runs  map[string]int      // instance id -> script executions
	state map[string]string   // free-form host state for handlers
}

func newMemNet(hosts ...string) *memNet {
	n := &memNet{hosts: map[string]*memHost{}}
	for _, h := range hosts {
		n.hosts[h] = &memHost{name: h, files: map[string][]byte{}, runs: map[string]int{}, state: map[string]string{}}
	}
	n.check = func(*memHost, string, map[string]string) (string, int) { return "", 0 }
	n.script = func(*memHost, string, map[string]string, io.Writer) int { return 0 }
	return n
}

func (n *memNet) host(name string) *memHost {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.hosts[name]
}

func (h *memHost) get(k string) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.state[k]
}

func (h *memHost) set(k, v string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.state[k] = v
}

func (h *memHost) put(path string, b []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.files[path] = append([]byte(nil), b...)
	if dir, _, ok := strings.Cut(path, "/out/"); ok {
		if h.outs == nil {
			h.outs = map[string][]string{}
		}
		h.outs[dir+"/out"] = append(h.outs[dir+"/out"], path)
	}
}

func (h *memHost) file(path string) ([]byte, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	b, ok := h.files[path]
	return b, ok
}

// removeTree removes every file under dir, as rm -rf does.
func (h *memHost) removeTree(dir string) {
	if dir == "" {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for p := range h.files {
		if strings.HasPrefix(p, dir+"/") {
			delete(h.files, p)
		}
	}
	for d := range h.outs {
		if d == dir || strings.HasPrefix(d, dir+"/") {
			delete(h.outs, d)
		}
	}
}

// under lists the files under dir, sorted.
func (h *memHost) under(dir string) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for p := range h.files {
		if strings.HasPrefix(p, dir+"/") {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// writeInputs emulates inputsLoop.
func (h *memHost) writeInputs(env map[string]string) {
	count, _ := strconv.Atoi(env["CP_IN_N"])
	for i := 0; i < count; i++ {
		h.put(env["CP_INP"+strconv.Itoa(i)], []byte(env["CP_INB"+strconv.Itoa(i)]))
	}
}

func (h *memHost) runCount(instance string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.runs[instance]
}

func (n *memNet) Dial(ctx context.Context, host string) (transport.Conn, error) {
	if h := n.host(host); h != nil {
		if n.hook != nil {
			if err := n.hook(ctx, host, "dial"); err != nil {
				return nil, &transport.HostError{Host: host, Op: "dial", Err: err}
			}
		}
		n.mu.Lock()
		n.dials++
		n.mu.Unlock()
		return &memConn{n: n, h: h}, nil
	}
	return nil, &transport.HostError{Host: host, Op: "dial", Err: transport.ErrUnreachable}
}

type memConn struct {
	n *memNet
	h *memHost
}

func (c *memConn) Host() string { return c.h.name }
func (c *memConn) Close() error { return nil }

func (c *memConn) Upload(ctx context.Context, f transport.File) error {
	if c.n.hook != nil {
		if err := c.n.hook(ctx, c.h.name, "upload "+f.Path); err != nil {
			return err
		}
	}
	c.h.put(f.Path, f.Content)
	return nil
}

func (c *memConn) Download(ctx context.Context, path string, _ bool) ([]byte, error) {
	if c.n.hook != nil {
		if err := c.n.hook(ctx, c.h.name, "download "+path); err != nil {
			return nil, err
		}
	}
	b, ok := c.h.file(path)
	if !ok {
		return nil, fmt.Errorf("download %s: %w: %w", path, os.ErrNotExist, transport.ErrCommandFailed)
	}
	return b, nil
}

func (c *memConn) Run(ctx context.Context, cmd transport.Command) (transport.Result, error) {
	what := map[string]string{probeCmd: "probe", runCmd: "run", batchCmd: "batch", commitCmd: "commit",
		prepareCmd: "prepare", fastCmd: "fast", flushCmd: "flush", killCmd: "kill", dropPendingCmd: "drop", cleanupCmd: "cleanup"}[cmd.Cmd]
	if what == "" {
		return transport.Result{}, fmt.Errorf("memNet: unknown command %q", cmd.Cmd)
	}
	c.n.mu.Lock()
	if c.n.cmds == nil {
		c.n.cmds = map[string]int{}
	}
	c.n.cmds[what]++
	c.n.mu.Unlock()
	if c.n.hook != nil {
		if err := c.n.hook(ctx, c.h.name, what); err != nil {
			return transport.Result{}, err
		}
	}
	env := cmd.Env
	var out bytes.Buffer
	switch what {
	case "probe":
		script, ok := c.h.file(env["CP_SCRIPT"])
		sum := sha256.Sum256(script)
		if ok && hex.EncodeToString(sum[:]) == env["CP_SCRIPT_SHA"] {
			out.WriteString("script=present\n")
		} else {
			out.WriteString("script=absent\n")
		}
		m, ok := c.h.file(env["CP_MARKER"])
		if !ok {
			m, ok = c.h.file(env["CP_MARKER"] + ".pending")
		}
		if ok {
			out.WriteString("marker=present\n")
			out.Write(m)
		} else {
			out.WriteString("marker=absent\n")
		}
	case "run":
		c.h.mu.Lock()
		for _, p := range c.h.outs[env["CP_OUTPUT_DIR"]] {
			delete(c.h.files, p)
		}
		delete(c.h.outs, env["CP_OUTPUT_DIR"])
		c.h.runs[env["CP_INSTANCE"]]++
		c.h.mu.Unlock()
		c.n.sawInputs(c.h, env)
		script, ok := c.h.file(env["CP_SCRIPT"])
		if !ok {
			return transport.Result{ExitCode: 127, Stderr: []byte("script not found")}, nil
		}
		w := io.Writer(&out)
		if cmd.Stdout != nil {
			w = io.MultiWriter(&out, cmd.Stdout)
		}
		code := c.n.script(c.h, string(script), env, w)
		if err := ctx.Err(); err != nil {
			return transport.Result{}, fmt.Errorf("run: %w: %w", transport.ErrTimeout, err)
		}
		return transport.Result{Stdout: out.Bytes(), ExitCode: code}, nil
	case "batch":
		c.h.writeInputs(env)
		c.batch(env, 0, &out)
		if env["CP_DROP_RUN"] != "" {
			c.h.removeTree(env["CP_RUN_DIR"])
		}
	case "cleanup":
		c.h.removeTree(env["CP_RUN_DIR"])
	case "prepare":
		c.h.removeTree(env["CP_STALE_RUNS"])
		count, _ := strconv.Atoi(env["CP_SN"])
		written := 0
		for i := 0; i < count; i++ {
			p, body := env["CP_SP"+strconv.Itoa(i)], env["CP_SB"+strconv.Itoa(i)]
			if b, ok := c.h.file(p); !ok || string(b) != body {
				c.h.put(p, []byte(body))
				written++
			}
		}
		fmt.Fprintf(&out, "@cp prepared %d 0\n", written)
	case "flush":
		c.commits(env, &out)
	case "drop":
		c.h.mu.Lock()
		delete(c.h.files, env["CP_MARKER"]+".pending")
		c.h.mu.Unlock()
	case "fast":
		return c.fast(ctx, cmd, &out)
	case "commit":
		count, _ := strconv.Atoi(env["CP_N"])
		for i := 0; i < count; i++ {
			b, ok := c.h.file(env["CP_S"+strconv.Itoa(i)])
			if !ok {
				return transport.Result{ExitCode: 1, Stderr: []byte("cp: missing source")}, nil
			}
			c.h.put(env["CP_D"+strconv.Itoa(i)], b)
		}
		body, err := io.ReadAll(cmd.Stdin)
		if err != nil {
			return transport.Result{}, err
		}
		c.h.put(env["CP_MARKER"], body)
		c.h.removeTree(env["CP_RUN_DIR"])
	}
	return transport.Result{Stdout: out.Bytes()}, nil
}

// commits emulates commitsLoop.
func (c *memConn) commits(env map[string]string, out *bytes.Buffer) {
	count, _ := strconv.Atoi(env["CP_FC_N"])
	for i := 0; i < count; i++ {
		c.h.put(env["CP_FCM"+strconv.Itoa(i)], []byte(env["CP_FCB"+strconv.Itoa(i)]+"\n"))
	}
	fmt.Fprintf(out, "@cp commits %d 0\n", count)
}

// lines writes b as payload lines after prefix, as __cp_lines does.
func lines(out *bytes.Buffer, prefix string, b string) {
	if b == "" {
		return
	}
	for _, l := range strings.Split(strings.TrimSuffix(b, "\n"), "\n") {
		out.WriteString(prefix + l + "\n")
	}
}

// batch emulates batchLoop; collect commands run only when rc is 0.
func (c *memConn) batch(env map[string]string, rc int, out *bytes.Buffer) {
	count, _ := strconv.Atoi(env["CP_N"])
	for i := 0; i < count; i++ {
		k, cm, f := env["CP_K"+strconv.Itoa(i)], env["CP_C"+strconv.Itoa(i)], env["CP_F"+strconv.Itoa(i)]
		switch k {
		case "col":
			if rc != 0 {
				fmt.Fprintf(out, "@cp skip %d 0\n", i)
				continue
			}
			so, code := c.n.check(c.h, cm, env)
			c.h.put(f, []byte(so))
			fmt.Fprintf(out, "@cp col %d %d\n", i, code)
		case "ev":
			so, code := c.n.check(c.h, cm, env)
			fmt.Fprintf(out, "@cp ev %d %d\n", i, code)
			lines(out, "|", so)
		case "art":
			if b, ok := c.h.file(f); ok {
				fmt.Fprintf(out, "@cp art %d 0\n=%s\n", i, base64.StdEncoding.EncodeToString(b))
			} else {
				fmt.Fprintf(out, "@cp art %d 1\n", i)
			}
		}
	}
}

// fast emulates fastCmd. The hook sees "run" before the script runs.
func (c *memConn) fast(ctx context.Context, cmd transport.Command, out *bytes.Buffer) (transport.Result, error) {
	env := cmd.Env
	c.commits(env, out)
	defer c.h.removeTree(env["CP_RUN_DIR"]) // the session's EXIT trap
	final, ok1 := c.h.file(env["CP_MARKER"])
	pending, ok2 := c.h.file(env["CP_MARKER"] + ".pending")
	if (ok1 || ok2) && env["CP_RERUN"] == "" {
		out.WriteString("@cp marker 0 0\n")
		lines(out, "|", string(final))
		out.WriteString("@cp marker 1 0\n")
		lines(out, "|", string(pending))
		return transport.Result{Stdout: out.Bytes()}, nil
	}
	c.h.mu.Lock()
	for _, p := range c.h.outs[env["CP_OUTPUT_DIR"]] {
		delete(c.h.files, p)
	}
	delete(c.h.outs, env["CP_OUTPUT_DIR"])
	c.h.mu.Unlock()
	var script []byte
	if env["CP_SCRIPT"] != "" {
		b, ok := c.h.file(env["CP_SCRIPT"])
		if !ok {
			out.WriteString("@cp noscript 0 0\n")
			return transport.Result{Stdout: out.Bytes()}, nil
		}
		script = b
	}
	c.h.writeInputs(env)
	if c.n.hook != nil {
		if err := c.n.hook(ctx, c.h.name, "run"); err != nil {
			return transport.Result{}, err
		}
	}
	code := 0
	if script != nil {
		c.h.mu.Lock()
		c.h.runs[env["CP_INSTANCE"]]++
		c.h.mu.Unlock()
		c.n.sawInputs(c.h, env)
		var log bytes.Buffer
		w := io.Writer(&log)
		if cmd.Stderr != nil {
			w = io.MultiWriter(&log, cmd.Stderr)
		}
		code = c.n.script(c.h, string(script), env, w)
		if err := ctx.Err(); err != nil {
			return transport.Result{}, fmt.Errorf("run: %w: %w", transport.ErrTimeout, err)
		}
	}
	fmt.Fprintf(out, "@cp ran 0 %d\n", code)
	c.batch(env, code, out)
	if code == 0 {
		kn, _ := strconv.Atoi(env["CP_KN"])
		for i := 0; i < kn; i++ {
			if b, ok := c.h.file(env["CP_S"+strconv.Itoa(i)]); ok {
				c.h.put(env["CP_D"+strconv.Itoa(i)], b)
			}
		}
		c.h.put(env["CP_MARKER"]+".pending", []byte(env["CP_PENDING"]+"\n"))
		out.WriteString("@cp kept 0 0\n")
	}
	return transport.Result{Stdout: out.Bytes()}, nil
}

func (n *memNet) count(what string) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.cmds[what]
}
