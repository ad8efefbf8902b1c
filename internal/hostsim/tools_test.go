package hostsim

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAptGetAndSystemctl(t *testing.T) {
	e := newEnv(t)
	contains(t, e.runAs("w", "1000", "", "apt-get", "install", "-y", "containerd"), "are you root?")
	e.fails("w", "Unit containerd.service not found", "systemctl", "start", "containerd")
	r := e.must("w", "apt-get", "install", "-y", "containerd", "wireguard-tools", "jq")
	contains(t, r, "Setting up runc", "Setting up containerd (1.7.22-1)", "Setting up jq")
	contains(t, e.must("w", "apt-get", "install", "-y", "containerd"), "containerd is already the newest version")
	if _, err := os.Lstat(filepath.Join(e.roots["w"], "/usr/bin/containerd")); err != nil {
		t.Fatalf("containerd link not installed: %v", err)
	}
	status := e.file("w", dpkgStatusPath)
	if !strings.Contains(status, "Package: containerd\nStatus: install ok installed") {
		t.Fatalf("dpkg status lacks containerd:\n%s", status)
	}
	if r := e.must("w", "systemctl", "is-active", "containerd"); r.out != "active\n" {
		t.Fatalf("is-active after install: %q", r.out)
	}
	e.must("w", "systemctl", "stop", "containerd")
	if r := e.run("w", "systemctl", "is-active", "containerd"); r.out != "inactive\n" || r.code != 3 {
		t.Fatalf("is-active after stop: %q exit %d, want inactive 3", r.out, r.code)
	}
	e.must("w", "systemctl", "enable", "--now", "containerd")
	contains(t, e.must("w", "systemctl", "status", "containerd"), "Active: active (running)")
	if r := e.must("w", "systemctl", "is-enabled", "containerd"); r.out != "enabled\n" {
		t.Fatalf("is-enabled: %q", r.out)
	}
	contains(t, e.runAs("w", "1000", "", "systemctl", "restart", "containerd"), "Interactive authentication required")
	e.must("w", "systemctl", "daemon-reload")
	// kubelet crash-loops until kubeadm configured it.
	e.must("w", "apt-get", "install", "-y", "kubelet")
	if r := e.run("w", "systemctl", "is-active", "kubelet"); r.out != "activating\n" || r.code != 3 {
		t.Fatalf("kubelet before kubeadm: %q %d", r.out, r.code)
	}
	// wg-quick@ needs its config.
	e.fails("w", "wg0.conf' does not exist", "systemctl", "start", "wg-quick@wg0")
	e.write("w", "/etc/wireguard/wg0.conf", "[Interface]\nPrivateKey = x\n[Peer]\nPublicKey = abc=\n")
	e.must("w", "systemctl", "enable", "--now", "wg-quick@wg0")
	contains(t, e.must("w", "wg", "show", "wg0"), "interface: wg0", "peer: abc=")
	e.must("w", "apt-get", "remove", "-y", "jq")
	if strings.Contains(e.file("w", dpkgStatusPath), "Package: jq\n") {
		t.Fatalf("jq still in dpkg status after remove")
	}
	// Kubernetes repository minor picks the version.
	e.write("w", "/etc/apt/sources.list.d/kubernetes.list", "deb [signed-by=/etc/apt/keyrings/kubernetes-apt-keyring.gpg] https://pkgs.k8s.io/core:/stable:/v1.30/deb/ /\n")
	contains(t, e.must("w", "apt-get", "update"), "Hit:", "pkgs.k8s.io")
	contains(t, e.must("w", "apt-get", "install", "-y", "kubeadm"), "Setting up kubeadm (1.30.2-1.1)")
}

func TestHelm(t *testing.T) {
	e := newEnv(t)
	e.fails("master-1", "Kubernetes cluster unreachable", "helm", "list")
	initCluster(t, e, true)
	e.fails("master-1", "repo grafana not found", "helm", "upgrade", "--install", "tempo", "grafana/tempo")
	contains(t, e.must("master-1", "helm", "repo", "add", "grafana", "https://grafana.github.io/helm-charts"), `"grafana" has been added`)
	contains(t, e.must("master-1", "helm", "repo", "update"), "Successfully got an update")
	e.fails("master-1", `namespaces "tracing" not found`, "helm", "upgrade", "--install", "tempo", "grafana/tempo", "-n", "tracing")
	r := e.must("master-1", "helm", "upgrade", "--install", "tempo", "grafana/tempo", "-n", "tracing", "--create-namespace", "--version", "1.10.0", "--wait")
	contains(t, r, "Release \"tempo\" does not exist. Installing it now.", "STATUS: deployed", "REVISION: 1")
	contains(t, e.must("master-1", "helm", "upgrade", "--install", "tempo", "grafana/tempo", "-n", "tracing", "--version", "1.10.1"), "has been upgraded", "REVISION: 2")
	contains(t, e.must("master-1", "helm", "status", "tempo", "-n", "tracing"), "STATUS: deployed")
	contains(t, e.must("master-1", "helm", "list", "-A"), "tempo", "tracing", "tempo-1.10.1")
	contains(t, e.must("master-1", "kubectl", "get", "pods", "-n", "tracing"), "tempo-0", "Running")
	contains(t, e.must("master-1", "helm", "uninstall", "tempo", "-n", "tracing"), `release "tempo" uninstalled`)
	e.fails("master-1", "release: not found", "helm", "status", "tempo", "-n", "tracing")
	contains(t, e.must("master-1", "helm", "version", "--short"), "v3.16.2")
}

func TestKernelTools(t *testing.T) {
	e := newEnv(t)
	e.fails("n", "cannot stat /proc/sys/net/bridge/bridge-nf-call-iptables", "sysctl", "-w", "net.bridge.bridge-nf-call-iptables=1")
	e.must("n", "modprobe", "overlay")
	e.must("n", "modprobe", "br_netfilter")
	e.write("n", "/etc/sysctl.d/k8s.conf", "net.bridge.bridge-nf-call-iptables = 1\nnet.ipv4.ip_forward = 1\n")
	contains(t, e.must("n", "sysctl", "--system"), "* Applying /etc/sysctl.d/k8s.conf", "net.ipv4.ip_forward = 1")
	if r := e.must("n", "sysctl", "-n", "net.ipv4.ip_forward"); r.out != "1\n" {
		t.Fatalf("sysctl -n: %q", r.out)
	}
	e.must("n", "swapoff", "-a")
	st, err := ReadState(e.state)
	if err != nil {
		t.Fatal(err)
	}
	hs := st.Hosts["n"]
	if !hs.SwapOff || strings.Join(hs.Modules, ",") != "br_netfilter,overlay" || hs.Sysctl["net.ipv4.ip_forward"] != "1" {
		t.Fatalf("host state: %+v", hs)
	}
	// wg keys are real curve25519 keys.
	priv := strings.TrimSpace(e.must("n", "wg", "genkey").out)
	pub := e.runAs("n", "0", priv+"\n", "wg", "pubkey")
	if pub.code != 0 || len(strings.TrimSpace(pub.out)) != 44 || strings.TrimSpace(pub.out) == priv {
		t.Fatalf("wg pubkey: %+v", pub)
	}
	contains(t, e.must("n", "containerd", "config", "default"), `SystemdCgroup = false`)
}

func TestInvocationLog(t *testing.T) {
	e := newEnv(t)
	e.run("h", "kubectl", "version", "--client")
	e.run("h", "systemctl", "is-active", "x")
	log := e.file("h", LogPath)
	lines := strings.Split(strings.TrimSpace(log), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "host=h uid=0 kubectl version --client") || !strings.Contains(lines[1], "systemctl is-active x") {
		t.Fatalf("log:\n%s", log)
	}
	if r := e.run("h", "cp-hostsim", "nosuchtool"); r.code == 0 {
		t.Fatalf("unknown tool accepted")
	}
}

func TestJSONPath(t *testing.T) {
	data := toJSONValue(map[string]any{"items": []any{
		map[string]any{"metadata": map[string]any{"name": "a"}, "status": map[string]any{"conditions": []any{map[string]any{"type": "Ready", "status": "True"}}}},
		map[string]any{"metadata": map[string]any{"name": "b"}, "status": map[string]any{"conditions": []any{map[string]any{"type": "Ready", "status": "False"}}}},
	}})
	cases := map[string]string{
		`{.items[*].metadata.name}`:                                       "a b",
		`{.items[0].metadata.name}`:                                       "a",
		`{.items[-1].metadata.name}`:                                      "b",
		`{range .items[*]}{.metadata.name}{"\t"}{end}`:                    "a\tb\t",
		`{.items[?(@.metadata.name=="b")].status.conditions[0].status}`:   "False",
		`x={.items[*].status.conditions[?(@.type=="Ready")].status}`:      "x=True False",
		`{range .items[*]}{range .status.conditions[*]}{.type}{end}{end}`: "ReadyReady",
	}
	for tmpl, want := range cases {
		got, err := jsonpath(tmpl, data)
		if err != nil || got != want {
			t.Errorf("jsonpath %s: got %q, %v; want %q", tmpl, got, err, want)
		}
	}
	if _, err := jsonpath(`{end}`, data); err == nil {
		t.Errorf("stray {end} accepted")
	}
}

func TestPackForms(t *testing.T) {
	e := newEnv(t)
	contains(t, e.must("n", "apt-get", "install", "-y", "--allow-change-held-packages", "kubeadm=1.31.2-*"), "Setting up kubeadm (1.31.2-1.1)")
	e.must("n", "apt-get", "install", "-y", "open-iscsi")
	e.must("n", "systemctl", "enable", "--now", "iscsid")
	e.must("n", "apt-get", "install", "-y", "containerd")
	e.fails("n", "no such image", "crictl", "inspecti", "registry.k8s.io/pause:3.10")
	e.must("n", "crictl", "pull", "registry.k8s.io/pause:3.10")
	e.must("n", "crictl", "inspecti", "registry.k8s.io/pause:3.10")
	e.must("n", "apt-get", "install", "-y", "wireguard-tools")
	e.write("n", "/etc/wireguard/wg0.conf", "[Interface]\nListenPort = 51820\n")
	e.must("n", "systemctl", "enable", "--now", "wg-quick@wg0")
	if r := e.must("n", "wg", "show", "wg0", "listen-port"); r.out != "51820\n" {
		t.Fatalf("wg show listen-port: %q", r.out)
	}
	data := toJSONValue(map[string]any{"metadata": map[string]any{"labels": map[string]any{"cp.intentops.io/labels-hash": "abc"}}})
	if got, err := jsonpath(`{.metadata.labels.cp\.intentops\.io/labels-hash}`, data); err != nil || got != "abc" {
		t.Fatalf("escaped dot: %q %v", got, err)
	}
}
