package hostsim

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAptGet(t *testing.T) {
	e := newEnv(t)
	contains(t, e.runAs("w", "1000", "", "apt-get", "install", "-y", "containerd"), "are you root?")
	r := e.must("w", "apt-get", "install", "-y", "containerd", "wireguard-tools", "jq")
	contains(t, r, "Setting up runc", "Setting up containerd (1.7.22-1)", "Setting up jq")
	contains(t, e.must("w", "apt-get", "install", "-y", "containerd"), "containerd is already the newest version")
	// containerd's programs are never the simulator's (Debian's real ones
	// on test hosts): the install links none.
	if _, err := os.Lstat(filepath.Join(e.roots["w"], "/usr/bin/containerd")); err == nil {
		t.Fatalf("the emulated containerd package linked /usr/bin/containerd to the simulator")
	}
	if status := e.file("w", dpkgStatusPath); !strings.Contains(status, "Package: containerd\nStatus: install ok installed") {
		t.Fatalf("dpkg status lacks containerd:\n%s", status)
	}
	// Services are enabled and started on install, as Debian does.
	if r := e.must("w", "systemctl", "is-active", "containerd"); r.out != "active\n" {
		t.Fatalf("is-active after install: %q", r.out)
	}
	// Dependencies come along; without -y apt asks, and no answer aborts.
	r = e.run("w", "apt-get", "install", "kubeadm")
	if r.code != 1 || !strings.Contains(r.out, "Do you want to continue? [Y/n]") || !strings.Contains(r.err, "Abort.") {
		t.Fatalf("install without -y: exit %d\n%s%s", r.code, r.out, r.err)
	}
	contains(t, e.runAs("w", "0", "y\n", "apt-get", "install", "kubeadm"), "Setting up cri-tools", "Setting up kubeadm (1.31.2-1.1)")
	// A package alone is installed without a question.
	contains(t, e.runAs("w", "0", "", "apt-get", "install", "kubectl"), "Setting up kubectl")
	// A held package (apt-mark hold) changes only with --allow-change-held-packages.
	e.write("w", dpkgStatusPath, strings.Replace(e.file("w", dpkgStatusPath), "Package: kubeadm\nStatus: install ok installed", "Package: kubeadm\nStatus: hold ok installed", 1))
	e.write("w", "/etc/apt/sources.list.d/kubernetes.list", "deb [signed-by=/etc/apt/keyrings/kubernetes-apt-keyring.gpg] https://pkgs.k8s.io/core:/stable:/v1.32/deb/ /\n")
	r = e.run("w", "apt-get", "install", "-y", "kubeadm=1.32.2-*")
	if r.code != 100 || !strings.Contains(r.err, "Held packages were changed and -y was used without --allow-change-held-packages") {
		t.Fatalf("held package changed without the flag: exit %d\n%s%s", r.code, r.out, r.err)
	}
	contains(t, e.must("w", "apt-get", "install", "-y", "--allow-change-held-packages", "kubeadm=1.32.2-*"), "Setting up kubeadm (1.32.2-1.1)")
	if !strings.Contains(e.file("w", dpkgStatusPath), "Package: kubeadm\nStatus: hold ok installed") {
		t.Fatalf("the hold on kubeadm was lost by the upgrade")
	}
	// The repository's minor picks the version; update lists repositories.
	contains(t, e.must("w", "apt-get", "update"), "Hit:1 https://pkgs.k8s.io/core:/stable:/v1.32/deb/ InRelease")
	contains(t, e.must("w", "apt-get", "install", "-y", "kubelet"), "Setting up kubelet (1.32.2-1.1)")
	e.fails("w", "not emulated: apt-get remove", "apt-get", "remove", "-y", "jq")
}

func TestSystemctl(t *testing.T) {
	e := newEnv(t)
	e.fails("w", "Unit file containerd.service does not exist", "systemctl", "enable", "containerd")
	e.fails("w", "Unit containerd.service not found", "systemctl", "restart", "containerd")
	e.must("w", "apt-get", "install", "-y", "containerd")
	e.must("w", "systemctl", "disable", "containerd")
	if r := e.run("w", "systemctl", "is-enabled", "containerd"); r.out != "disabled\n" || r.code != 1 {
		t.Fatalf("is-enabled after disable: %q exit %d", r.out, r.code)
	}
	if r := e.must("w", "systemctl", "is-active", "containerd"); r.out != "active\n" {
		t.Fatalf("disable without --now stopped containerd: %q", r.out)
	}
	e.must("w", "systemctl", "disable", "--now", "containerd")
	if r := e.run("w", "systemctl", "is-active", "containerd"); r.out != "inactive\n" || r.code != 3 {
		t.Fatalf("is-active after disable --now: %q exit %d, want inactive 3", r.out, r.code)
	}
	if r := e.run("w", "systemctl", "is-active", "--quiet", "containerd"); r.out != "" || r.code != 3 {
		t.Fatalf("is-active --quiet: %q exit %d, want nothing and 3", r.out, r.code)
	}
	e.must("w", "systemctl", "enable", "containerd")
	if r := e.run("w", "systemctl", "is-active", "containerd"); r.code != 3 {
		t.Fatalf("enable without --now started containerd")
	}
	e.must("w", "systemctl", "enable", "--now", "containerd")
	if r := e.must("w", "systemctl", "is-active", "--quiet", "containerd"); r.out != "" {
		t.Fatalf("is-active --quiet printed %q", r.out)
	}
	if r := e.must("w", "systemctl", "is-enabled", "containerd"); r.out != "enabled\n" {
		t.Fatalf("is-enabled: %q", r.out)
	}
	contains(t, e.runAs("w", "1000", "", "systemctl", "restart", "containerd"), "Interactive authentication required")
	contains(t, e.runAs("w", "1000", "", "systemctl", "daemon-reload"), "Interactive authentication required")
	e.must("w", "systemctl", "daemon-reload")
	// Starting containerd reads its config: the CRI plugin may be disabled.
	e.write("w", "/etc/containerd/config.toml", "disabled_plugins = [\"cri\"]\n")
	e.must("w", "systemctl", "restart", "containerd")
	if st, _ := ReadState(e.state); !st.Hosts["w"].CRIDisabled {
		t.Fatalf("restart did not read disabled_plugins")
	}
	// kubelet crash-loops until kubeadm configured it.
	e.must("w", "apt-get", "install", "-y", "kubelet")
	if r := e.run("w", "systemctl", "is-active", "kubelet"); r.out != "activating\n" || r.code != 3 {
		t.Fatalf("kubelet before kubeadm: %q %d", r.out, r.code)
	}
	// wg-quick@ needs its config.
	e.must("w", "apt-get", "install", "-y", "wireguard-tools")
	e.fails("w", "wg0.conf' does not exist", "systemctl", "enable", "--now", "wg-quick@wg0")
	e.fails("w", "not emulated: systemctl start", "systemctl", "start", "containerd")
}

func TestHelm(t *testing.T) {
	e := newEnv(t)
	kc := "--kubeconfig=/etc/kubernetes/admin.conf"
	install := []string{"helm", "upgrade", "--install", "tempo", "tempo", "--repo", "https://grafana.github.io/helm-charts", "--namespace", "tracing", kc}
	e.fails("master-1", "Kubernetes cluster unreachable", install...)
	initCluster(t, e, true)
	e.fails("master-1", "not emulated: helm upgrade grafana/tempo", "helm", "upgrade", "--install", "tempo", "grafana/tempo", kc)
	e.fails("master-1", `"tempo" has no deployed releases`, append(install[:2:2], install[3:]...)...)
	e.fails("master-1", `namespaces "tracing" not found`, install...)
	e.fails("master-1", "open /root/values.yaml: no such file or directory", append(install, "--create-namespace", "--values", "/root/values.yaml")...)
	e.write("master-1", "/root/values.yaml", "a: [b\n")
	e.fails("master-1", "failed to parse /root/values.yaml", append(install, "--create-namespace", "--values", "/root/values.yaml")...)
	e.write("master-1", "/root/values.yaml", "tempo:\n  storage: s3\n")
	e.fails("master-1", `failed parsing --set data: key "replicas" has no value`, append(install, "--create-namespace", "--set", "replicas")...)
	e.fails("master-1", `invalid argument "soon" for "--timeout" flag`, append(install, "--create-namespace", "--timeout", "soon")...)
	r := e.must("master-1", append(install, "--create-namespace", "--version", "1.10.0", "--values", "/root/values.yaml", "--set", "a.b=c", "--wait", "--timeout", "1m")...)
	contains(t, r, "Release \"tempo\" does not exist. Installing it now.", "STATUS: deployed", "REVISION: 1")
	contains(t, e.must("master-1", append(install, "--version", "1.10.1")...), "has been upgraded", "REVISION: 2")
	if r := e.must("master-1", "kubectl", "-n", "tracing", "get", "statefulset", "-l", "helm.sh/chart=tempo-1.10.1", "-o", "name"); r.out != "statefulset.apps/tempo\n" {
		t.Fatalf("objects of the release at --version 1.10.1: %q", r.out)
	}
	contains(t, e.must("master-1", "helm", "status", "tempo", "--namespace", "tracing", kc), "STATUS: deployed")
	contains(t, e.must("master-1", "helm", "uninstall", "tempo", "--namespace", "tracing", kc, "--wait"), `release "tempo" uninstalled`)
	e.fails("master-1", "release: not found", "helm", "status", "tempo", "--namespace", "tracing", kc)
	if r := e.must("master-1", "helm", "version", "--short"); r.out != "v3.16.2+g13654a5\n" {
		t.Fatalf("helm version --short: %q", r.out)
	}
	contains(t, e.must("master-1", "helm", "version"), `Version:"v3.16.2"`)
}

func TestKernelTools(t *testing.T) {
	e := newEnv(t)
	e.fails("n", "cannot stat /proc/sys/net/bridge/bridge-nf-call-iptables", "sysctl", "-w", "net.bridge.bridge-nf-call-iptables=1")
	contains(t, e.runAs("n", "1000", "", "modprobe", "overlay"), "Operation not permitted")
	e.must("n", "modprobe", "overlay")
	e.must("n", "modprobe", "br_netfilter")
	e.fails("n", "not emulated: modprobe", "modprobe", "-r", "overlay")
	contains(t, e.must("n", "sysctl", "-w", "net.bridge.bridge-nf-call-iptables=1", "net.ipv4.ip_forward=1"), "net.ipv4.ip_forward = 1")
	contains(t, e.runAs("n", "1000", "", "sysctl", "-w", "net.ipv4.ip_forward=0"), "permission denied")
	if r := e.must("n", "sysctl", "-n", "net.ipv4.ip_forward"); r.out != "1\n" {
		t.Fatalf("sysctl -n: %q", r.out)
	}
	if r := e.must("n", "sysctl", "net.ipv4.ip_forward"); r.out != "net.ipv4.ip_forward = 1\n" {
		t.Fatalf("sysctl KEY: %q", r.out)
	}
	e.fails("n", "not emulated: sysctl net.ipv4.ip_forward=1", "sysctl", "net.ipv4.ip_forward=1")
	e.fails("n", "not emulated: sysctl --system", "sysctl", "--system")
	e.fails("n", "not emulated: swapoff", "swapoff", "/dev/sda2")
	contains(t, e.runAs("n", "1000", "", "swapoff", "-a"), "Not superuser")
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
	contains(t, e.runAs("n", "0", "not a key\n", "wg", "pubkey"), "Key is not the correct length or format")
}

func TestInvocationLog(t *testing.T) {
	e := newEnv(t)
	e.run("h", "kubectl", "get", "--raw=/readyz")
	e.run("h", "systemctl", "is-active", "x")
	log := e.file("h", LogPath)
	lines := strings.Split(strings.TrimSpace(log), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "host=h uid=0 kubectl get --raw=/readyz") || !strings.Contains(lines[1], "systemctl is-active x") {
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
