package hostsim

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"
)

var joinRE = regexp.MustCompile(`kubeadm join (\S+) --token (\S+) \\\s+--discovery-token-ca-cert-hash (\S+)`)

// initCluster builds master-1 (+ CNI when cni) and returns the join args.
func initCluster(t *testing.T, e *env, cni bool) []string {
	e.prepareNode("master-1")
	r := e.must("master-1", "kubeadm", "init")
	contains(t, r, "Your Kubernetes control-plane has initialized successfully!")
	m := joinRE.FindStringSubmatch(r.out)
	if m == nil {
		t.Fatalf("no join command in:\n%s", r.out)
	}
	if cni {
		e.vars["KUBECONFIG"] = "/etc/kubernetes/admin.conf"
		e.must("master-1", "kubectl", "apply", "-f", "https://raw.githubusercontent.com/projectcalico/calico/v3.28.0/manifests/calico.yaml")
	}
	return []string{"kubeadm", "join", m[1], "--token", m[2], "--discovery-token-ca-cert-hash", m[3]}
}

func TestKubeadmInitJoinAndKubectl(t *testing.T) {
	e := newEnv(t)
	join := initCluster(t, e, false)
	admin := e.file("master-1", "/etc/kubernetes/admin.conf")
	kc, err := parseKubeconfig([]byte(admin))
	if err != nil || kc.Server != "https://10.0.0.1:6443" || !strings.Contains(kc.CAPEM, "BEGIN CERTIFICATE") {
		t.Fatalf("admin.conf: %+v %v", kc, err)
	}
	if !strings.Contains(e.file("master-1", "/etc/kubernetes/pki/ca.crt"), "BEGIN CERTIFICATE") {
		t.Fatalf("ca.crt is not a certificate")
	}
	// No kubeconfig: refused like kubectl.
	e.fails("master-1", "The connection to the server localhost:8080 was refused", "kubectl", "get", "nodes")
	e.vars["KUBECONFIG"] = "/etc/kubernetes/admin.conf"
	r := e.must("master-1", "kubectl", "get", "nodes")
	contains(t, r, "master-1", "NotReady", "control-plane")

	e.prepareNode("worker-1")
	r = e.must("worker-1", join...)
	contains(t, r, "This node has joined the cluster")
	e.fails("worker-1", "kubelet.conf already exists", join...)

	// Not Ready until a CNI is installed.
	r = e.must("master-1", "kubectl", "get", "nodes", "-o", `jsonpath={range .items[*]}{.metadata.name}={.status.conditions[?(@.type=="Ready")].status}{"\n"}{end}`)
	if r.out != "master-1=False\nworker-1=False\n" {
		t.Fatalf("ready before CNI: got %q", r.out)
	}
	e.fails("master-1", "timed out waiting for the condition", "kubectl", "wait", "--for=condition=Ready", "node", "--all", "--timeout=1s")
	e.must("master-1", "kubectl", "apply", "-f", "https://github.com/flannel-io/flannel/releases/latest/download/kube-flannel.yml")
	r = e.must("master-1", "kubectl", "wait", "--for=condition=Ready", "node/worker-1", "--timeout=5s")
	contains(t, r, "node/worker-1 condition met")
	contains(t, e.must("master-1", "kubectl", "get", "nodes", "-o", "wide"), "INTERNAL-IP", "10.0.0.11")
	// -o json: a List, with labels and taints, as the provider's health read parses it.
	var list struct {
		Items []struct {
			Metadata struct {
				Name   string            `json:"name"`
				Labels map[string]string `json:"labels"`
			} `json:"metadata"`
			Spec struct {
				Taints []map[string]string `json:"taints"`
			} `json:"spec"`
		} `json:"items"`
	}
	r = e.must("master-1", "kubectl", "get", "nodes", "-o", "json")
	if err := json.Unmarshal([]byte(r.out), &list); err != nil || len(list.Items) != 2 || list.Items[0].Metadata.Name != "master-1" ||
		list.Items[0].Metadata.Labels["node-role.kubernetes.io/control-plane"] != "" || len(list.Items[0].Spec.Taints) == 0 {
		t.Fatalf("get nodes -o json: %v\n%s", err, r.out)
	}
	if r := e.must("master-1", "kubectl", "get", "node", "worker-1", "-o", "json"); !strings.HasPrefix(r.out, "{\n    \"apiVersion\": \"v1\",\n    \"kind\": \"Node\"") {
		t.Fatalf("get node worker-1 -o json is not the Node: %s", r.out)
	}
	if r := e.must("master-1", "kubectl", "get", "nodes", "-o", "name"); r.out != "node/master-1\nnode/worker-1\n" {
		t.Fatalf("-o name: %q", r.out)
	}
	if r := e.must("master-1", "kubectl", "get", "--raw=/readyz"); r.out != "ok" {
		t.Fatalf("readyz: %q", r.out)
	}
	e.fails("master-1", "not emulated: kubectl get pods", "kubectl", "get", "pods")
	contains(t, e.must("master-1", "kubectl", "label", "node", "worker-1", "role=db"), "node/worker-1 labeled")
	contains(t, e.must("master-1", "kubectl", "get", "nodes", "-l", "role=db", "-o", "name"), "node/worker-1")
	contains(t, e.must("master-1", "kubectl", "taint", "node", "worker-1", "dedicated=db:NoSchedule"), "tainted")
	// kube-proxy and the CNI agents are DaemonSets: drain needs --ignore-daemonsets.
	e.fails("master-1", "use --ignore-daemonsets to ignore", "kubectl", "drain", "worker-1")
	contains(t, e.must("master-1", "kubectl", "drain", "worker-1", "--ignore-daemonsets", "--timeout=1m"), "node/worker-1 drained")
	contains(t, e.must("master-1", "kubectl", "get", "nodes"), "SchedulingDisabled")
	e.fails("master-1", "invalid argument \"soon\" for \"--timeout\" flag", "kubectl", "drain", "worker-1", "--ignore-daemonsets", "--timeout=soon")
	contains(t, e.must("master-1", "kubectl", "uncordon", "worker-1"), "node/worker-1 uncordoned")
	if strings.Contains(e.must("master-1", "kubectl", "get", "nodes").out, "SchedulingDisabled") {
		t.Fatalf("worker-1 still cordoned after uncordon")
	}
	contains(t, e.must("master-1", "kubectl", "-n", "kube-system", "get", "configmap", "kubeadm-config", "-o", "jsonpath={.data.ClusterConfiguration}"), "kubernetesVersion: v1.31.2")
	contains(t, e.must("master-1", "kubectl", "delete", "node", "worker-1"), `node "worker-1" deleted`)
	e.fails("master-1", "NotFound", "kubectl", "get", "node", "worker-1")

	// A manifest file is recorded with its objects.
	e.write("master-1", "/root/app.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: web\n")
	contains(t, e.must("master-1", "kubectl", "apply", "-f", "/root/app.yaml"), "deployment.apps/web created", "service/web created")
	contains(t, e.must("master-1", "kubectl", "apply", "-f", "/root/app.yaml"), "deployment.apps/web unchanged")
}

func TestKubeadmTokensAndControlPlaneJoin(t *testing.T) {
	e := newEnv(t)
	join := initCluster(t, e, true)
	r := e.must("master-1", "kubeadm", "token", "create", "--print-join-command", "--ttl", "1s")
	fresh := strings.Fields(r.out)
	if len(fresh) < 7 || fresh[3] != "--token" || fresh[4] == join[4] {
		t.Fatalf("token create: %q", r.out)
	}
	contains(t, e.must("master-1", "kubeadm", "token", "list"), fresh[4])
	time.Sleep(1100 * time.Millisecond)
	if strings.Contains(e.must("master-1", "kubeadm", "token", "list").out, fresh[4]) {
		t.Fatalf("expired token still listed")
	}
	e.prepareNode("worker-1")
	e.fails("worker-1", "could not find a JWS signature", fresh...)
	bad := append([]string(nil), join...)
	bad[4] = "abcdef.0123456789abcdef"
	e.fails("worker-1", "could not find a JWS signature", bad...)
	bad = append([]string(nil), join...)
	bad[6] = "sha256:0000"
	e.fails("worker-1", "none of the public keys", bad...)

	// Control-plane join needs the uploaded certificate key.
	e.prepareNode("master-2")
	joinConfig := func(key string) {
		e.write("master-2", "/root/join.yaml", "apiVersion: kubeadm.k8s.io/v1beta4\nkind: JoinConfiguration\ndiscovery:\n  bootstrapToken:\n    apiServerEndpoint: "+join[2]+
			"\n    token: "+join[4]+"\n    caCertHashes: ["+join[6]+"]\nnodeRegistration:\n  name: master-2\ncontrolPlane:\n  certificateKey: \""+key+"\"\n")
	}
	joinConfig("deadbeef")
	cp := []string{"kubeadm", "join", "--config", "/root/join.yaml"}
	e.fails("master-2", `Secret "kubeadm-certs" was not found`, cp...)
	contains(t, e.must("master-1", "kubeadm", "init", "phase", "upload-certs"), "Skipping phase")
	e.fails("master-2", `Secret "kubeadm-certs" was not found`, cp...)
	if out := e.must("master-1", "kubectl", "-n", "kube-system", "get", "secret", "-o", "name").out; strings.Contains(out, "kubeadm-certs") {
		t.Fatalf("kubeadm-certs listed before the certificates were uploaded: %s", out)
	}
	r = e.must("master-1", "kubeadm", "init", "phase", "upload-certs", "--upload-certs")
	contains(t, e.must("master-1", "kubectl", "-n", "kube-system", "get", "secret", "kubeadm-certs", "-o", "name"), "secret/kubeadm-certs")
	joinConfig(strings.TrimSpace(r.out[strings.LastIndex(strings.TrimSpace(r.out), "\n")+1:]))
	contains(t, e.must("master-2", cp...), "new control plane instance was created")
	contains(t, e.must("master-1", "kubectl", "get", "nodes"), "master-2")

	// Reset unregisters; upgrade records versions.
	e.must("master-2", "kubeadm", "reset", "-f")
	if strings.Contains(e.must("master-1", "kubectl", "get", "nodes").out, "master-2") {
		t.Fatalf("master-2 still registered after reset")
	}
	e.fails("master-1", "higher than the kubeadm version", "kubeadm", "upgrade", "apply", "v1.32.0", "-y")
	e.must("master-1", "apt-get", "install", "-y", "kubeadm=1.32.0-1.1")
	// Without -y kubeadm asks; no answer is no.
	e.fails("master-1", "won't proceed", "kubeadm", "upgrade", "apply", "v1.32.0")
	contains(t, e.must("master-1", "kubeadm", "upgrade", "apply", "v1.32.0", "-y"), "SUCCESS! Your cluster was upgraded")
	contains(t, e.must("master-1", "kubectl", "-n", "kube-system", "get", "configmap", "kubeadm-config", "-o", "jsonpath={.data.ClusterConfiguration}"), "kubernetesVersion: v1.32.0")
	e.fails("master-1", "downgrades need --allow-downgrades", "kubeadm", "upgrade", "apply", "v1.31.2", "-y")
	contains(t, e.must("master-1", "kubeadm", "upgrade", "node"), "successfully updated")
	if r := e.must("master-1", "kubeadm", "version", "-o", "short"); r.out != "v1.32.0\n" {
		t.Fatalf("kubeadm version: %q", r.out)
	}
	contains(t, e.must("master-1", "kubeadm", "version"), `GitVersion:"v1.32.0"`)
	if r := e.run("master-1", "kubelet", "--version"); r.code != 2 || !strings.Contains(r.err, "not emulated: kubelet") {
		t.Fatalf("kubelet --version: exit %d %q; want 2, not emulated", r.code, r.err)
	}
}

func TestPreflightFailures(t *testing.T) {
	e := newEnv(t)
	e.must("master-1", "apt-get", "install", "-y", "kubeadm", "kubelet")
	e.must("master-1", "sysctl", "-w", "net.ipv4.ip_forward=1")
	e.fails("master-1", "[ERROR CRI]: container runtime is not running", "kubeadm", "init")
	contains(t, e.runAs("master-1", "1000", "", "kubeadm", "init"), "[ERROR IsPrivilegedUser]")
	// A config that disables the CRI plugin (as Docker's containerd.io ships).
	e.must("master-1", "apt-get", "install", "-y", "containerd")
	e.write("master-1", "/etc/containerd/config.toml", "disabled_plugins = [\"cri\"]\n")
	e.must("master-1", "systemctl", "restart", "containerd")
	e.fails("master-1", "unknown service runtime.v1.RuntimeService", "kubeadm", "init")
	e.write("master-1", "/etc/containerd/config.toml", "version = 2\n")
	e.must("master-1", "systemctl", "restart", "containerd")
	e.must("master-1", "kubeadm", "init")
	e.fails("master-1", "[ERROR Port-6443]", "kubeadm", "init")
	e.write("master-1", "/root/bad.yaml", "apiVersion: kubeadm.k8s.io/v1beta2\nkind: ClusterConfiguration\n")
	e.fails("master-1", "no kind \"ClusterConfiguration\" is registered", "kubeadm", "init", "--config", "/root/bad.yaml")
}

// kubeadm init --skip-token-print creates the bootstrap token but prints
// it nowhere: the join commands show "<value withheld>".
func TestKubeadmInitSkipTokenPrint(t *testing.T) {
	e := newEnv(t)
	e.prepareNode("master-1")
	r := e.must("master-1", "kubeadm", "init", "--skip-token-print")
	contains(t, r, "Your Kubernetes control-plane has initialized successfully!", "--token <value withheld>")
	if regexp.MustCompile(`[a-z0-9]{6}\.[a-z0-9]{16}`).MatchString(r.out + r.err) {
		t.Errorf("kubeadm init --skip-token-print printed a token:\n%s", r.out)
	}
	if strings.Contains(r.out, "[bootstrap-token] Using token") {
		t.Errorf("the bootstrap-token phase printed its token line:\n%s", r.out)
	}
	e.vars["KUBECONFIG"] = "/etc/kubernetes/admin.conf"
	if out := e.must("master-1", "kubeadm", "token", "list").out; !regexp.MustCompile(`[a-z0-9]{6}\.`).MatchString(out) {
		t.Errorf("no bootstrap token was created: %q", out)
	}
}
