package packs

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/intentops/terraform-provider-cp/internal/hostsim"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// scriptHost is a scratch directory standing for a host's "/", in which a
// builtin pack script runs under bash with stub commands first on PATH.
// Absolute paths the script writes are rewritten to lie under root, and
// every rewrite must occur in the script, so a test cannot pass because a
// path moved.
type scriptHost struct {
	t      *testing.T
	root   string // stands for "/"
	bin    string // stub commands
	calls  string // one line per stub call: the command and its arguments
	stdin  string // what stubs read on stdin (kubectl apply -f -), appended
	values string // Helm --values files, appended
	canary string // a payload that runs a command touches this file
}

// stubs are the host commands the scripts under test call; each logs its
// call. Bodies give the answers the scripts read.
var stubs = map[string]string{
	"id":       `echo 0`,
	"nproc":    `echo 4`,
	"free":     `echo '              total        used        free'; echo 'Mem:           7936        1024        6912'`,
	"df":       `echo ' Avail'; echo '   50G'`,
	"hostname": `echo node-1`,
	"getent":   `echo "127.0.0.1 $2"`,
	"kubectl": `case " $* " in
  *" -f - "*) cat >>"$CP_TEST_STDIN"; echo '---' >>"$CP_TEST_STDIN" ;;
  *"{.data.password}"*) printf '%s' c2VjcmV0 ;;
  *"{.status.readyReplicas}"*) printf 1 ;;
  *" get persistentvolumeclaim "*) printf Bound ;;
esac`,
	"helm": `while [ $# -gt 0 ]; do
  if [ "$1" = --values ]; then cat "$2" >>"$CP_TEST_VALUES"; fi
  shift
done`,
	"kubeadm": `case " $* " in
  *" token create "*) echo "kubeadm join 10.0.0.10:6443 --token abcdef.0123456789abcdef --discovery-token-ca-cert-hash sha256:$(printf '0%.0s' $(seq 64))" ;;
  *" upload-certs "*) echo '[upload-certs] Using certificate key:'; printf '1%.0s' $(seq 64); echo ;;
  *" images list "*) echo registry.k8s.io/kube-apiserver:v1.31.2; echo registry.k8s.io/pause:3.10 ;;
esac
while [ $# -gt 0 ]; do
  if [ "$1" = --config ]; then cat "$2" >>"$CP_TEST_VALUES"; fi
  shift
done`,
	// install PKG=VERSION records the package as dpkg-query reports it.
	"apt-get": `[ "$1" = install ] || exit 0
for a in "$@"; do case $a in *=*) mkdir -p "$HOME/.dpkg"; echo "install ok installed ${a#*=}" >"$HOME/.dpkg/${a%%=*}" ;; esac; done`,
	// hold PKG... and showhold, kept in $HOME/.holds.
	"apt-mark": `case $1 in hold) shift; printf '%s\n' "$@" >>"$HOME/.holds" ;; showhold) cat "$HOME/.holds" 2>/dev/null ;; esac`,
	// madison PKG: $HOME/.madison-PKG, else Docker's containerd.io 2.2.9.
	"apt-cache": `[ "$1" = madison ] || exit 0
if [ -f "$HOME/.madison-$2" ]; then cat "$HOME/.madison-$2"
elif [ "$2" = containerd.io ]; then echo ' containerd.io | 2.2.9-1~debian.12~bookworm | https://download.docker.com/linux/debian bookworm/stable amd64 Packages'; fi`,
	// What apt-get install recorded (-W -f='${Status} ${Version}' PKG), else the machine's.
	"dpkg-query": `for p; do :; done
if [ -f "$HOME/.dpkg/$p" ]; then cat "$HOME/.dpkg/$p"; else exec /usr/bin/dpkg-query "$@"; fi`,
	// The pinned calico release's manifest, with -o FILE, is its real
	// bytes (newScriptHost puts them at $HOME/.calico.yaml).
	"curl": `out= prev=
for a in "$@"; do [ "$prev" != -o ] || out=$a; prev=$a; done
case " $* " in
  *"/v2/ "*) printf 200 ;;
  *" ` + hostsim.PinnedCalicoURL + ` "*) cp "$HOME/.calico.yaml" "$out" ;;
  *) if [ -n "$out" ]; then echo '-----BEGIN PGP PUBLIC KEY BLOCK-----' >"$out"; else echo '-----BEGIN PGP PUBLIC KEY BLOCK-----'; fi ;;
esac`,
	// --show-keys lists a primary key with $HOME/.gpg-fpr's fingerprint,
	// else Docker's published one; anything else reads its input.
	"gpg": `case " $* " in
*" --show-keys "*) echo 'pub:-:4096:1:8D81803C0EBFCD88:1487788586:::-:::escaESCA::::::23::0:'
  echo "fpr:::::::::$(cat "$HOME/.gpg-fpr" 2>/dev/null || echo 9DC858229FC7DD38854AE2D88D81803C0EBFCD88):" ;;
*) cat >/dev/null ;;
esac`,
	"systemctl": ``,
	"modprobe":  ``,
	"sysctl":    ``,
	"swapoff":   ``,
	"crictl":    ``,
	// A host whose wg0 has no peers (a one-node cluster).
	"wg": ``,
	"ctr": `[ "$1" != plugins ] || echo 'io.containerd.grpc.v1  cri  linux/amd64  ok'
[ "$1" != version ] || { ` + containerdReleaseSh + `; printf 'Client:\n  Version:  v%s\n\nServer:\n  Version:  v%s\n' "$r" "$r"; }`,
	// containerd's own defaults come from Debian's real package
	// (scripts/prereqs.sh installs it); dump reads the host's file.
	"containerd": `case "$1 $2" in
"--version ") ` + containerdReleaseSh + `; echo "containerd github.com/containerd/containerd/v2 v$r" ;;
"config default") exec /usr/bin/containerd config default ;;
"config dump") cat "$HOME/etc/containerd/config.toml" ;;
esac`,
}

func newScriptHost(t *testing.T) *scriptHost {
	t.Helper()
	root := t.TempDir()
	h := &scriptHost{
		t: t, root: root, bin: filepath.Join(root, ".bin"),
		calls: filepath.Join(root, ".calls"), stdin: filepath.Join(root, ".stdin"),
		values: filepath.Join(root, ".values"), canary: filepath.Join(root, ".canary"),
	}
	for _, d := range []string{h.bin, filepath.Join(root, ".out"), filepath.Join(root, ".tmp")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, ".calico.yaml"), hostsim.ManifestAt(hostsim.PinnedCalicoURL), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, body := range stubs {
		// One write per call, so commands of one pipeline do not
		// interleave their log lines.
		script := "#!/bin/sh\n__l=" + name + `; for a in "$@"; do __l="$__l $a"; done; printf '%s\n' "$__l" >>"$CP_TEST_CALLS"` + "\n" + body + "\n"
		if err := os.WriteFile(filepath.Join(h.bin, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return h
}

// path is the file standing for the host path p.
func (h *scriptHost) path(p string) string { return filepath.Join(h.root, p) }

// write puts a file at host path p.
func (h *scriptHost) write(p, content string) {
	h.t.Helper()
	if err := os.MkdirAll(filepath.Dir(h.path(p)), 0o755); err != nil {
		h.t.Fatal(err)
	}
	if err := os.WriteFile(h.path(p), []byte(content), 0o644); err != nil {
		h.t.Fatal(err)
	}
}

// read returns the file at host path p, "" when absent.
func (h *scriptHost) read(p string) string {
	b, err := os.ReadFile(h.path(p))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		h.t.Fatal(err)
	}
	return string(b)
}

func (h *scriptHost) exists(p string) bool {
	_, err := os.Lstat(h.path(p))
	return err == nil
}

// log returns a scratch file of the harness (calls, stdin, values).
func (h *scriptHost) log(file string) string {
	b, _ := os.ReadFile(file)
	return string(b)
}

type scriptResult struct {
	code           int
	stdout, stderr string
}

// run runs builtin/<script> under bash with env on top of the harness's
// own, the host paths in rewrite moved under root.
func (h *scriptHost) run(script string, env map[string]string, rewrite ...string) scriptResult {
	h.t.Helper()
	body := readScript(h.t, script)
	// Longer prefixes first, so /etc/kubernetes is not cut by /etc.
	sort.Slice(rewrite, func(i, j int) bool { return len(rewrite[i]) > len(rewrite[j]) })
	for _, p := range rewrite {
		if !strings.Contains(body, p) {
			h.t.Fatalf("%s does not mention %s; the rewrite would not bite", script, p)
		}
		body = strings.ReplaceAll(body, p, h.root+p)
		// A host has its configuration directories (*.d) and the parent
		// directory of every file.
		dir := filepath.Dir(h.path(p))
		if strings.HasSuffix(p, ".d") {
			dir = h.path(p)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			h.t.Fatal(err)
		}
	}
	file := filepath.Join(h.root, ".script.sh")
	if err := os.WriteFile(file, []byte(body), 0o755); err != nil {
		h.t.Fatal(err)
	}
	vars := map[string]string{
		"PATH": h.bin + ":/usr/local/bin:/usr/bin:/bin", "HOME": h.root, "LC_ALL": "C",
		"TMPDIR": filepath.Join(h.root, ".tmp"), "CP_OUTPUT_DIR": filepath.Join(h.root, ".out"),
		"CP_TEST_CALLS": h.calls, "CP_TEST_STDIN": h.stdin, "CP_TEST_VALUES": h.values,
		protocol.EnvHost: "node-1", protocol.EnvHostAddress: "10.0.0.11", protocol.EnvHostRole: "worker",
	}
	for k, v := range env {
		vars[k] = v
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", file)
	cmd.Dir = h.root
	for _, k := range protocol.SortedKeys(vars) {
		cmd.Env = append(cmd.Env, k+"="+vars[k])
	}
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	res := scriptResult{stdout: out.String(), stderr: errb.String()}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		res.code = exit.ExitCode()
	case err != nil:
		h.t.Fatalf("run %s: %v", script, err)
	}
	return res
}

// packEnv is the CP_PARAM_ environment of a builtin pack's parameter
// defaults (read from its pack.yaml alone, so that a problem elsewhere in
// the catalog does not hide a script's), with set on top (parameter names,
// not variable names).
func packEnv(t *testing.T, pack string, set map[string]string) map[string]string {
	t.Helper()
	var doc struct {
		Pack struct {
			Parameters map[string]protocol.ParamSpec `yaml:"parameters"`
		} `yaml:"scenario_pack"`
	}
	if err := yaml.Unmarshal([]byte(readFile(t, filepath.Join("builtin", pack, "pack.yaml"))), &doc); err != nil {
		t.Fatalf("%s/pack.yaml: %v", pack, err)
	}
	if len(doc.Pack.Parameters) == 0 {
		t.Fatalf("%s/pack.yaml declares no parameters", pack)
	}
	env := map[string]string{}
	for name, spec := range doc.Pack.Parameters {
		if spec.Default != "" {
			env[protocol.EnvParamPrefix+protocol.EnvName(name)] = spec.Default
		}
	}
	for name, v := range set {
		env[protocol.EnvParamPrefix+protocol.EnvName(name)] = v
	}
	return env
}

// artifactEnv writes input artifacts under root and returns their
// CP_ARTIFACT_ variables.
func (h *scriptHost) artifactEnv(env map[string]string, arts map[string]string) map[string]string {
	h.t.Helper()
	for id, v := range arts {
		p := "/.in/" + id
		h.write(p, v)
		env[protocol.EnvArtifactPrefix+protocol.EnvName(id)] = h.path(p)
	}
	return env
}
