package hostsim

import (
	"strings"
	"testing"
)

// Outside the table, every tool exits 2 and names what it lacks, before
// it touches the state.
func TestNotEmulatedExitsTwo(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"kubectl", "rollout", "status", "deployment/x"}, "not emulated: kubectl rollout"},
		{[]string{"kubectl", "get", "nodes", "--show-labels"}, "not emulated: kubectl get --show-labels"},
		{[]string{"kubectl", "get", "nodes", "-o", "yaml"}, "not emulated: kubectl get -o=yaml"},
		{[]string{"kubectl", "--namespace", "x", "get", "nodes"}, "not emulated: kubectl --namespace"},
		{[]string{"kubectl", "wait", "--for=delete", "node/x"}, "not emulated: kubectl wait --for=delete"},
		{[]string{"kubectl"}, "not emulated: kubectl (no command)"},
		{[]string{"kubeadm", "token", "generate"}, "not emulated: kubeadm token"},
		{[]string{"kubeadm", "init", "--upload-certs"}, "not emulated: kubeadm init --upload-certs"},
		{[]string{"kubeadm", "version", "-o", "json"}, "not emulated: kubeadm version -o=json"},
		{[]string{"helm", "repo", "add", "x", "https://x"}, "not emulated: helm repo"},
		{[]string{"helm", "upgrade", "--install", "r", "c", "--atomic"}, "not emulated: helm upgrade --atomic"},
		{[]string{"systemctl", "status", "containerd"}, "not emulated: systemctl status"},
		{[]string{"systemctl", "is-active", "-q", "containerd"}, "not emulated: systemctl is-active -q"},
		{[]string{"crictl", "ps"}, "not emulated: crictl ps"},
		{[]string{"apt-get", "install", "--no-install-recommends", "x"}, "not emulated: apt-get install --no-install-recommends"},
		{[]string{"apt-get", "-v"}, "not emulated: apt-get -v"},
		{[]string{"wg", "genpsk"}, "not emulated: wg genpsk"},
		{[]string{"sysctl", "-p"}, "not emulated: sysctl -p"},
		{[]string{"curl", "-fsSLo", "/tmp/k", "https://pkgs.k8s.io/core:/stable:/v1.31/deb/Release.key"}, "not emulated: curl -o"},
		{[]string{"kubelet", "--version"}, "not emulated: kubelet"},
		{[]string{"wg-quick", "up", "wg0"}, "not emulated: wg-quick"},
		{[]string{"cp-hostsim", "nosuchtool"}, "not emulated: nosuchtool"},
	}
	for _, c := range cases {
		e := newEnv(t)
		r := e.run("h", c.args...)
		if r.code != 2 || !strings.Contains(r.err, c.want) || r.out != "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 2 with %q", strings.Join(c.args, " "), r.code, r.out, r.err, c.want)
		}
		if st, err := ReadState(e.state); err != nil || len(st.Hosts) != 0 {
			t.Errorf("%s changed the state: %+v %v", strings.Join(c.args, " "), st, err)
		}
	}
	// A valued flag without its value is refused like the real tool.
	if r := newEnv(t).run("h", "kubectl", "get", "nodes", "-o"); r.code != 1 || !strings.Contains(r.err, "flag needs an argument: -o") {
		t.Errorf("kubectl get nodes -o: exit %d %q", r.code, r.err)
	}
}
