package hostsim

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// env is a simulated cluster in temp directories: one state directory and
// one filesystem root per host.
type env struct {
	t     *testing.T
	state string
	roots map[string]string
	vars  map[string]string
}

func newEnv(t *testing.T) *env {
	t.Helper()
	e := &env{t: t, state: t.TempDir(), roots: map[string]string{}, vars: map[string]string{}}
	if err := InitState(e.state, "test"); err != nil {
		t.Fatal(err)
	}
	return e
}

type result struct {
	out, err string
	code     int
}

// run runs a tool on host as root (euid 0), or as uid when given.
func (e *env) runAs(host string, uid string, stdin string, args ...string) result {
	e.t.Helper()
	root, ok := e.roots[host]
	if !ok {
		root = e.t.TempDir()
		e.roots[host] = root
	}
	addr := map[string]string{"master-1": "10.0.0.1", "master-2": "10.0.0.2", "worker-1": "10.0.0.11", "worker-2": "10.0.0.12"}[host]
	vars := map[string]string{EnvStateDir: e.state, EnvRoot: root, EnvHost: host, EnvAddress: addr, EnvEUID: uid, "HOME": "/root"}
	for k, v := range e.vars {
		vars[k] = v
	}
	recordExercised(args)
	var out, errb bytes.Buffer
	code := Main(args, strings.NewReader(stdin), &out, &errb, func(k string) string { return vars[k] })
	return result{out.String(), errb.String(), code}
}

func (e *env) run(host string, args ...string) result {
	e.t.Helper()
	return e.runAs(host, "0", "", args...)
}

// must runs and fails the test on a non-zero exit.
func (e *env) must(host string, args ...string) result {
	e.t.Helper()
	r := e.run(host, args...)
	if r.code != 0 {
		e.t.Fatalf("%s on %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), host, r.code, r.out, r.err)
	}
	return r
}

// fails runs and wants a non-zero exit with want in the output.
func (e *env) fails(host, want string, args ...string) result {
	e.t.Helper()
	r := e.run(host, args...)
	if r.code == 0 || !strings.Contains(r.out+r.err, want) {
		e.t.Fatalf("%s on %s: got exit %d, output:\n%s%s\nwant failure containing %q", strings.Join(args, " "), host, r.code, r.out, r.err, want)
	}
	return r
}

func contains(t *testing.T, r result, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(r.out+r.err, w) {
			t.Fatalf("got:\n%s%s\nwant it to contain %q", r.out, r.err, w)
		}
	}
}

// prepareNode installs packages, starts containerd and sets ip_forward.
func (e *env) prepareNode(host string) {
	e.t.Helper()
	e.must(host, "apt-get", "update")
	e.must(host, "apt-get", "install", "-y", "containerd", "kubeadm", "kubelet", "kubectl")
	e.must(host, "sysctl", "-w", "net.ipv4.ip_forward=1")
}

func (e *env) file(host, p string) string {
	b, err := os.ReadFile(filepath.Join(e.roots[host], p))
	if err != nil {
		e.t.Fatalf("read %s on %s: %v", p, host, err)
	}
	return string(b)
}

func (e *env) write(host, p, content string) {
	root, ok := e.roots[host]
	if !ok {
		root = e.t.TempDir()
		e.roots[host] = root
	}
	full := filepath.Join(root, p)
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
		e.t.Fatal(err)
	}
}
