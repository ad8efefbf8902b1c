package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/hostsim"
	"github.com/intentops/terraform-provider-cp/internal/testhosts"
)

// tofuRun is an OpenTofu working directory with the provider built into
// it through a development override, for tests that drive the CLI as a
// person would (kill it, read its output and logs).
type tofuRun struct {
	t   *testing.T
	dir string
	env []string
}

func newTofuRun(t *testing.T, config string) *tofuRun {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "plugins")
	must(t, os.MkdirAll(bin, 0o755))
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "terraform-provider-cp"), ".")
	build.Dir = filepath.Join("..", "..")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build the provider: %v\n%s", err, out)
	}
	rc := filepath.Join(dir, "cli.tfrc")
	must(t, os.WriteFile(rc, []byte(`provider_installation {
  dev_overrides { "intentops/cp" = "`+bin+`" }
  direct {}
}
`), 0o644))
	work := filepath.Join(dir, "work")
	must(t, os.MkdirAll(work, 0o755))
	must(t, os.WriteFile(filepath.Join(work, "main.tf"), []byte(`terraform {
  required_providers {
    cp = { source = "intentops/cp" }
  }
}
`+config), 0o644))
	return &tofuRun{t: t, dir: work, env: append(os.Environ(), "TF_CLI_CONFIG_FILE="+rc, "TF_IN_AUTOMATION=1")}
}

func (r *tofuRun) cmd(ctx context.Context, logFile string, args ...string) *exec.Cmd {
	// Options go after the subcommand and before positional arguments.
	n := 1
	if args[0] == "state" {
		n = 2
	}
	full := append(append(append([]string(nil), args[:n]...), "-no-color"), args[n:]...)
	c := exec.CommandContext(ctx, os.Getenv("TF_ACC_TERRAFORM_PATH"), full...)
	c.Dir = r.dir
	c.Env = append(append([]string(nil), r.env...), "TF_LOG=DEBUG", "TF_LOG_PATH="+logFile)
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return c
}

// markers counts the idempotency markers (final and pending) the engine
// left on a host; a marker still being written (.tmp) is not counted.
func markers(t *testing.T, c *testhosts.Cluster, host string) int {
	return len(snapshotMarkers(t, c, host))
}

// countSim counts simulator log lines of a host matching re.
func countSim(t *testing.T, c *testhosts.Cluster, host string, re *regexp.Regexp) int {
	lines, err := c.SimLog(host)
	if err != nil {
		t.Fatalf("simulator log of %s: %v", host, err)
	}
	n := 0
	for _, l := range lines {
		if re.MatchString(l) {
			n++
		}
	}
	return n
}

// The tofu process killed in the middle of an apply, then apply again:
// it completes, no finished job ran twice (counted on the hosts), nothing
// is tainted, and neither the kubeconfig nor a join token appears in any
// output, debug log or state.
func TestAccKubernetesCluster_killedApplyResumesAndKeepsSecrets(t *testing.T) {
	testAccPreCheck(t)
	c := accHosts(t, "killed", "master-1", "worker-1", "worker-2")
	config := accProvider(c, "") + `
resource "cp_kubernetes_cluster" "k" {
  name    = "killed"
  storage = "none"
  masters = ` + nodesHCL(c, "master-1") + `
  workers = ` + nodesHCL(c, "worker-1", "worker-2") + `
}
`
	r := newTofuRun(t, config)
	logs := t.TempDir()
	var outputs bytes.Buffer

	// First apply: killed once some jobs finished on master-1.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	first := r.cmd(ctx, filepath.Join(logs, "apply1.log"), "apply", "-auto-approve")
	first.Stdout, first.Stderr = &outputs, &outputs
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- first.Wait() }()
	killed := false
	for !killed {
		select {
		case err := <-done:
			t.Fatalf("the first apply ended before it could be killed (err %v): the kill point was missed\n%s", err, outputs.String())
		case <-time.After(100 * time.Millisecond):
			if markers(t, c, "master-1") >= 4 {
				_ = syscall.Kill(-first.Process.Pid, syscall.SIGKILL)
				killed = true
			}
		}
	}
	<-done
	before := markers(t, c, "master-1")
	killedMarkers := snapshotMarkers(t, c, "master-1", "worker-1", "worker-2")

	// Second apply resumes.
	second := r.cmd(ctx, filepath.Join(logs, "apply2.log"), "apply", "-auto-approve")
	out2, err := second.CombinedOutput()
	outputs.Write(out2)
	if err != nil {
		t.Fatalf("second apply: %v\n%s", err, out2)
	}
	if !strings.Contains(string(out2), "Apply complete!") {
		t.Fatalf("got: %s want: Apply complete!", out2)
	}
	if after := markers(t, c, "master-1"); after < before {
		t.Fatalf("markers on master-1: got %d after the second apply, %d before it", after, before)
	}

	// Finished work ran once: every idempotency marker written before the
	// kill is unchanged (a job that ran again would rewrite its marker),
	// and no host ran kubeadm init or join more often than the jobs that
	// do it could have started.
	for name, content := range killedMarkers {
		now, err := os.ReadFile(name)
		if err != nil {
			t.Errorf("marker %s written before the kill is gone: %v", filepath.Base(name), err)
			continue
		}
		if !bytes.Equal(now, content) {
			t.Errorf("marker %s changed: the job that finished before the kill ran again", filepath.Base(name))
		}
	}
	if len(killedMarkers) < 4 {
		t.Fatalf("got: %d markers at the kill want: at least 4", len(killedMarkers))
	}
	for _, ch := range []struct {
		host string
		re   string
	}{{"master-1", `kubeadm init`}, {"worker-1", `kubeadm join`}, {"worker-2", `kubeadm join`}} {
		if n := countSim(t, c, ch.host, regexp.MustCompile(ch.re)); n < 1 || n > 2 {
			t.Errorf("%s ran %q %d times; want once, or twice when the kill cut the first run short", ch.host, ch.re, n)
		}
	}

	// Import by the address of a master, then the same configuration plans
	// nothing.
	m1host, _ := c.Host("master-1")
	if out, err := r.cmd(ctx, filepath.Join(logs, "rm.log"), "state", "rm", "cp_kubernetes_cluster.k").CombinedOutput(); err != nil {
		t.Fatalf("state rm: %v\n%s", err, out)
	}
	imp, err := r.cmd(ctx, filepath.Join(logs, "import.log"), "import", "cp_kubernetes_cluster.k", "killed@"+m1host.Addr).CombinedOutput()
	outputs.Write(imp)
	if err != nil {
		t.Fatalf("import by a master's address: %v\n%s", err, imp)
	}
	replan, err := r.cmd(ctx, filepath.Join(logs, "replan.log"), "plan", "-detailed-exitcode").CombinedOutput()
	outputs.Write(replan)
	if err != nil {
		t.Fatalf("plan after import is not empty (exit %v):\n%s", err, replan)
	}

	// Nothing tainted.
	state, err := os.ReadFile(filepath.Join(r.dir, "terraform.tfstate"))
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		Resources []struct {
			Instances []struct {
				Status string `json:"status"`
			} `json:"instances"`
		} `json:"resources"`
	}
	must(t, json.Unmarshal(state, &st))
	for _, res := range st.Resources {
		for _, in := range res.Instances {
			if in.Status == "tainted" {
				t.Fatal("a resource is tainted after the killed apply")
			}
		}
	}

	// Secrets: the admin kubeconfig's key and every join token, searched
	// as literal values.
	m1, _ := c.Host("master-1")
	kubeconfig, err := os.ReadFile(filepath.Join(m1.Upper, "etc/kubernetes/admin.conf"))
	if err != nil {
		t.Fatalf("admin.conf on master-1: %v", err)
	}
	secrets := []string{}
	for _, line := range strings.Split(string(kubeconfig), "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), ":"); ok && (k == "client-key-data" || k == "client-certificate-data") {
			secrets = append(secrets, strings.TrimSpace(v))
		}
	}
	sim, err := hostsim.ReadState(c.SimulatorStateDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, tok := range sim.Tokens {
		secrets = append(secrets, tok.String(), tok.Secret)
	}
	if len(secrets) < 3 {
		t.Fatalf("found %d secret values to search for; the kubeconfig or the tokens are missing", len(secrets))
	}
	haystacks := map[string][]byte{"outputs": outputs.Bytes(), "state": state}
	for _, f := range []string{"apply1.log", "apply2.log", "import.log", "replan.log"} {
		b, _ := os.ReadFile(filepath.Join(logs, f))
		if len(b) == 0 {
			t.Fatalf("TF_LOG=DEBUG wrote nothing to %s", f)
		}
		haystacks[f] = b
	}
	for name, hay := range haystacks {
		for _, s := range secrets {
			if bytes.Contains(hay, []byte(s)) {
				t.Errorf("a secret value (%d bytes) appears in %s", len(s), name)
			}
		}
	}
}

// snapshotMarkers reads every idempotency marker on the hosts.
func snapshotMarkers(t *testing.T, c *testhosts.Cluster, hosts ...string) map[string][]byte {
	out := map[string][]byte{}
	for _, name := range hosts {
		h, err := c.Host(name)
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(h.Upper, "var/lib/cp/markers")
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if strings.HasSuffix(e.Name(), ".tmp") {
				continue // a marker being written, not a finished job's
			}
			p := filepath.Join(dir, e.Name())
			if b, err := os.ReadFile(p); err == nil {
				out[p] = b
			}
		}
	}
	return out
}
