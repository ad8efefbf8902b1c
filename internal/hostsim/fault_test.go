package hostsim

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestFaultImagePullAndMirror(t *testing.T) {
	e := newEnv(t)
	contains(t, e.must("master-1", "cp-hostsim", "fault", "set", "image-pull", "--cluster"), "fault set: image-pull cluster")
	e.prepareNode("master-1")
	r := e.fails("master-1", "[ERROR ImagePull]: failed to pull image registry.k8s.io/kube-apiserver:v1.31.2", "kubeadm", "init")
	contains(t, r, "i/o timeout")
	e.fails("master-1", "pulling image", "crictl", "pull", "nginx")
	// A mirror via config_path + hosts.toml, read on containerd restart.
	e.write("master-1", "/etc/containerd/config.toml", "version = 2\n[plugins.\"io.containerd.grpc.v1.cri\".registry]\n  config_path = \"/etc/containerd/certs.d\"\n")
	e.write("master-1", "/etc/containerd/certs.d/registry.k8s.io/hosts.toml", "server = \"https://registry.k8s.io\"\n[host.\"http://mirror.local:5000\"]\n  capabilities = [\"pull\", \"resolve\"]\n")
	e.fails("master-1", "ImagePull", "kubeadm", "init") // not restarted yet
	e.must("master-1", "systemctl", "restart", "containerd")
	e.must("master-1", "crictl", "pull", "nginx")
	e.must("master-1", "crictl", "inspecti", "docker.io/library/nginx:latest")
	e.must("master-1", "kubeadm", "init")
	e.must("master-1", "crictl", "inspecti", "registry.k8s.io/pause:3.10")
	e.must("master-1", "cp-hostsim", "fault", "clear", "image-pull")
	if r := e.must("master-1", "cp-hostsim", "fault", "list"); r.out != "" {
		t.Fatalf("faults after clear: %q", r.out)
	}
}

func TestFaultNodeNotReady(t *testing.T) {
	e := newEnv(t)
	join := initCluster(t, e, true)
	if err := SetFault(e.state, Fault{Kind: FaultNodeNotReady, Host: "worker-1"}); err != nil {
		t.Fatal(err)
	}
	e.prepareNode("worker-1")
	e.must("worker-1", join...)
	r := e.must("master-1", "kubectl", "get", "nodes")
	if !strings.Contains(r.out, "master-1   Ready") || !strings.Contains(r.out, "worker-1   NotReady") {
		t.Fatalf("got:\n%s\nwant master-1 Ready, worker-1 NotReady", r.out)
	}
	_ = ClearFaults(e.state, FaultNodeNotReady, "")
	contains(t, e.must("master-1", "kubectl", "wait", "--for=condition=Ready", "node/worker-1", "--timeout=2s"), "condition met")
}

func TestFaultDNS(t *testing.T) {
	e := newEnv(t)
	join := initCluster(t, e, true)
	e.prepareNode("worker-1")
	e.write("worker-1", "/etc/resolv.conf", "nameserver 10.0.0.53\n")
	e.must("worker-1", "cp-hostsim", "fault", "set", "dns", "--host", "worker-1")
	r := e.fails("worker-1", "lookup registry.k8s.io on 203.0.113.53:53", join...)
	contains(t, r, "[ERROR ImagePull]")
	if got := e.file("worker-1", "/etc/resolv.conf"); !strings.Contains(got, "nameserver 203.0.113.53") {
		t.Fatalf("resolv.conf after the fault: %q", got)
	}
	contains(t, e.run("worker-1", "apt-get", "update"), "Temporary failure resolving")
	// master-1 is not affected.
	e.must("master-1", "crictl", "pull", "busybox")
	// Fixing resolv.conf fixes it (and the fault does not rewrite it again).
	e.write("worker-1", "/etc/resolv.conf", "nameserver 1.1.1.1\n")
	e.must("worker-1", join...)
	if got := e.file("worker-1", "/etc/resolv.conf"); got != "nameserver 1.1.1.1\n" {
		t.Fatalf("resolv.conf rewritten after the fix: %q", got)
	}
}

func TestFaultSlowAndHang(t *testing.T) {
	e := newEnv(t)
	if err := SetFault(e.state, Fault{Kind: FaultSlow, Host: "worker-1", Command: "kubectl", Delay: 700 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	e.run("worker-1", "kubectl", "get", "--raw=/readyz")
	if d := time.Since(start); d < 700*time.Millisecond {
		t.Fatalf("slow fault: kubectl took %s, want >= 700ms", d)
	}
	start = time.Now()
	e.run("master-1", "kubectl", "get", "--raw=/readyz")
	if d := time.Since(start); d > 500*time.Millisecond {
		t.Fatalf("slow fault on worker-1 slowed master-1 (%s)", d)
	}
	if err := SetFault(e.state, Fault{Kind: FaultSlow}); err == nil {
		t.Fatalf("slow fault without delay accepted")
	}

	// Hang: run the real binary so it can be killed.
	bin := filepath.Join(t.TempDir(), "cp-hostsim")
	build := exec.Command("go", "build", "-o", bin, "github.com/intentops/terraform-provider-cp/cmd/cp-hostsim")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	if err := SetFault(e.state, Fault{Kind: FaultHang, Command: "kubeadm join"}); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "kubeadm", "join", "10.0.0.1:6443", "--token", "x")
	cmd.Env = append(os.Environ(), EnvStateDir+"="+e.state, EnvRoot+"="+t.TempDir(), EnvHost+"=worker-2")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		t.Fatalf("hung command returned: %v", err)
	case <-time.After(1500 * time.Millisecond):
	}
	_ = cmd.Process.Kill()
	<-done
	// Other kubeadm commands are not hung.
	contains(t, e.run("worker-2", "kubeadm", "version", "-o", "short"), "v1.31.2")
}

func TestFaultCLIValidation(t *testing.T) {
	e := newEnv(t)
	e.fails("m", "unknown fault", "cp-hostsim", "fault", "set", "meteor")
	e.fails("m", "needs a command", "cp-hostsim", "fault", "set", "hang")
	e.fails("m", "not both", "cp-hostsim", "fault", "set", "dns", "--host", "a", "--cluster")
	e.must("m", "cp-hostsim", "fault", "set", "slow", "--delay", "1s")
	e.must("m", "cp-hostsim", "fault", "set", "dns", "--host", "b")
	r := e.must("m", "cp-hostsim", "fault", "list")
	if r.out != "dns host=b nameserver=203.0.113.53\nslow cluster delay=1s\n" {
		t.Fatalf("fault list: %q", r.out)
	}
	contains(t, e.must("m", "cp-hostsim", "state"), `"kind": "dns"`)
}
