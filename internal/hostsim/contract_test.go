package hostsim

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/packs"
)

// The contract between the simulator and the packs: every invocation of
// an emulated tool that the builtin packs' scripts and evidence commands
// make resolves in the simulator's table (scope), and every entry of the
// table is used by them (or by a test of another package, listed in
// otherUses) and exercised by this package's tests.

// otherUses are the invocations other packages make on test hosts
// directly, not through a pack: the provider's health read of the nodes,
// and tests that check or change a host, as the file writes them.
var otherUses = []struct{ file, command string }{
	{"internal/operation/nodes.go", "kubectl --kubeconfig /etc/kubernetes/admin.conf get nodes -o json"},
	{"internal/testhosts/simulator_test.go", "apt-get install -y containerd kubeadm kubelet kubectl"},
	{"internal/testhosts/simulator_test.go", "sysctl -w net.ipv4.ip_forward=1"},
	{"internal/testhosts/simulator_test.go", "systemctl is-active containerd"},
	{"internal/testhosts/simulator_test.go", "kubeadm init"},
	{"internal/testhosts/simulator_test.go", "kubeadm join 10.0.0.1:6443 --token abcdef.0123456789abcdef --discovery-token-ca-cert-hash sha256:00"},
	{"internal/testhosts/simulator_test.go", "kubectl --kubeconfig /etc/kubernetes/admin.conf get nodes -o name"},
	{"internal/testhosts/simulator_test.go", "kubectl --kubeconfig /etc/kubernetes/admin.conf get nodes"},
	{"internal/testhosts/simulator_test.go", "crictl pull nginx"},
	{"internal/provider/acc_relabel_test.go", "kubectl --kubeconfig /etc/kubernetes/admin.conf get node worker-1 -o jsonpath={.metadata.labels.tier}"},
	{"internal/provider/acc_relabel_test.go", "kubectl --kubeconfig /etc/kubernetes/admin.conf label node worker-1 --overwrite tier=drifted"},
	{"internal/provider/acc_relabel_test.go", "kubectl --kubeconfig /etc/kubernetes/admin.conf taint node worker-1 gpu:NoExecute-"},
	{"internal/e2e/wireguard_keys_test.go", "wg show wg0 peers"},
	{"internal/e2e/wireguard_keys_test.go", "wg show wg0 latest-handshakes"},
}

func toolSet() map[string]bool {
	tools := map[string]bool{}
	for _, n := range ToolNames() {
		tools[n] = true
	}
	return tools
}

// packInvocations finds every call of an emulated tool in the builtin
// packs: their scripts and their evidence commands.
func packInvocations(t *testing.T) []invocation {
	t.Helper()
	cat, err := packs.LoadBuiltin()
	if err != nil {
		t.Fatal(err)
	}
	tools := toolSet()
	var out []invocation
	for _, p := range cat.List() {
		for _, path := range sortedKeys(p.Scripts) {
			invs, err := findInvocations(p.ID+"/"+path, string(p.Scripts[path]), tools)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, invs...)
		}
		for _, id := range sortedKeys(p.Jobs) {
			for _, ev := range p.Jobs[id].Outputs.Evidence {
				invs, err := findInvocations(p.ID+"/jobs/"+id+".yaml evidence "+ev.ID, ev.Command, tools)
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, invs...)
			}
		}
	}
	if len(out) < 200 {
		t.Fatalf("found %d invocations of emulated tools in the builtin packs; the scan misses some", len(out))
	}
	return out
}

// otherInvocations are otherUses as invocations; each file must exist
// and name the tool.
func otherInvocations(t *testing.T) []invocation {
	t.Helper()
	var out []invocation
	for _, u := range otherUses {
		words := strings.Fields(u.command)
		b, err := os.ReadFile(filepath.Join("..", "..", u.file))
		if err != nil || !strings.Contains(string(b), words[0]) {
			t.Fatalf("otherUses: %s does not run %s (%v); update the list", u.file, words[0], err)
		}
		out = append(out, invocation{where: u.file, tool: words[0], args: words[1:]})
	}
	return out
}

// unemulated checks invocations against the table and returns one line
// per invocation it refuses, sorted.
func unemulated(invs []invocation) []string {
	var bad []string
	for _, inv := range invs {
		if err := checkInvocation(inv.tool, inv.args); err != nil {
			bad = append(bad, fmt.Sprintf("%s: %s: %v", inv.where, inv, err))
		}
	}
	sort.Strings(bad)
	return bad
}

func TestContractPacksUseOnlyWhatIsEmulated(t *testing.T) {
	invs := append(packInvocations(t), otherInvocations(t)...)
	if bad := unemulated(invs); len(bad) > 0 {
		t.Errorf("the simulator does not emulate %d invocation(s); emulate them (scope.go and a test) or change the caller:\n%s", len(bad), strings.Join(bad, "\n"))
	}
}

// The check finds a flag, a command and a flag value the simulator lacks
// in a script, through arrays, line continuations, command substitutions,
// pipes and evidence one-liners.
func TestContractReportsWhatIsNotEmulated(t *testing.T) {
	cases := []struct{ script, want string }{
		{"kc=(--kubeconfig /etc/kubernetes/admin.conf)\nnodes=$(kubectl \"${kc[@]}\" get nodes \\\n  --show-labels -o name | wc -l)\n", "not emulated: kubectl get --show-labels"},
		{"if ! helm rollback \"$release\" 1 --namespace \"$ns\"; then exit 1; fi\n", "not emulated: helm rollback"},
		{"systemctl is-active --wait containerd", "not emulated: systemctl is-active --wait"},
		{"[ \"$CP_HOST_ROLE\" != master ] || kubectl get node \"$CP_HOST\" -o yaml", "not emulated: kubectl get -o=yaml"},
		{"sudo apt-get install -y --no-install-recommends kubeadm", "not emulated: apt-get install --no-install-recommends"},
		{"cat <<EOF | kubectl apply -f -\nkubectl: rollout\nEOF\nkubeadm token generate\n", "not emulated: kubeadm token"},
		{"e=(etcdctl --endpoints=https://127.0.0.1:2379)\ncommand -v etcdutl && e=(etcdctl --debug)\n\"${e[@]}\" endpoint health\n", "not emulated: etcdctl endpoint health --debug"},
	}
	for _, c := range cases {
		invs, err := findInvocations("snippet", c.script, toolSet())
		if err != nil {
			t.Fatalf("%q: %v", c.script, err)
		}
		bad := unemulated(invs)
		if len(bad) != 1 || !strings.Contains(bad[0], c.want) {
			t.Errorf("%q: got %q, want one report with %q", c.script, bad, c.want)
		}
	}
	// What is emulated passes, $var arguments included.
	invs, err := findInvocations("snippet", "kubectl --kubeconfig \"$k\" -n \"$ns\" wait --for=condition=complete \"job/$j\" --timeout=\"$t\"\n", toolSet())
	if err != nil || len(invs) != 1 || len(unemulated(invs)) != 0 {
		t.Errorf("an emulated invocation: %v %v %q", invs, err, unemulated(invs))
	}
}

// scopeEntries lists what the table accepts: "tool command", "tool
// command --flag", "tool --flag" for a global flag, and "tool command
// --flag=value" for each value of a flag that lists them.
func scopeEntries() []string {
	var out []string
	for name, t := range scope() {
		for _, g := range t.global {
			out = append(out, name+" "+flagWord(parseFlagSpec(g).name))
		}
		for _, c := range t.cmds {
			cmd := strings.TrimSpace(name + " " + c.path)
			out = append(out, cmd)
			for _, f := range c.flags {
				fs := parseFlagSpec(f)
				if len(fs.values) == 0 {
					out = append(out, cmd+" "+flagWord(fs.name))
				}
				for _, v := range fs.values {
					out = append(out, cmd+" "+flagWord(fs.name)+"="+v)
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

// entriesOf lists the scope entries an invocation uses.
func entriesOf(tool string, args []string) []string {
	cmd, p, err := resolve(tool, args)
	if err != nil {
		return nil
	}
	name := strings.TrimSpace(tool + " " + cmd.path)
	out := []string{name}
	for _, n := range p.order {
		if slices.ContainsFunc(scope()[tool].global, func(g string) bool { return parseFlagSpec(g).name == n }) {
			out = append(out, tool+" "+flagWord(n))
			continue
		}
		for _, f := range cmd.flags {
			fs := parseFlagSpec(f)
			if fs.name != n {
				continue
			}
			if len(fs.values) == 0 {
				out = append(out, name+" "+flagWord(n))
			}
			for _, v := range fs.values {
				for _, got := range p.vals[n] {
					if (flagSpec{values: []string{v}}).allows(got) && !strings.Contains(got, opaqueValue) {
						out = append(out, name+" "+flagWord(n)+"="+v)
					}
				}
			}
		}
	}
	return out
}

func TestContractEveryEmulationIsUsed(t *testing.T) {
	used := map[string]bool{}
	for _, inv := range append(packInvocations(t), otherInvocations(t)...) {
		for _, e := range entriesOf(inv.tool, inv.args) {
			used[e] = true
		}
	}
	var unused []string
	for _, e := range scopeEntries() {
		if !used[e] {
			unused = append(unused, e)
		}
	}
	if len(unused) > 0 {
		t.Errorf("the simulator emulates what no builtin pack (nor a test in otherUses) runs; delete it:\n%s", strings.Join(unused, "\n"))
	}
}

// exercised records the scope entries this package's tests ran (env.runAs).
var exercised = struct {
	sync.Mutex
	m map[string]bool
}{m: map[string]bool{}}

func recordExercised(args []string) {
	if len(args) == 0 {
		return
	}
	tool, rest := filepath.Base(args[0]), args[1:]
	if tool == "cp-hostsim" && len(rest) > 0 {
		tool, rest = rest[0], rest[1:]
	}
	exercised.Lock()
	defer exercised.Unlock()
	for _, e := range entriesOf(tool, rest) {
		exercised.m[e] = true
	}
}

// TestMain checks, after a run of every test, that each entry of the
// table was exercised by one: everything emulated has a unit test.
func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	if code == 0 && flag.Lookup("test.run").Value.String() == "" && flag.Lookup("test.skip").Value.String() == "" {
		var missing []string
		for _, e := range scopeEntries() {
			if !exercised.m[e] {
				missing = append(missing, e)
			}
		}
		if len(missing) > 0 {
			fmt.Fprintf(os.Stderr, "FAIL: no test of internal/hostsim runs these emulated forms; test them:\n%s\n", strings.Join(missing, "\n"))
			code = 1
		}
	}
	os.Exit(code)
}

// README.md describes every emulated tool.
func TestReadmeDescribesEveryTool(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range ToolNames() {
		if !strings.Contains(string(b), "**"+name+"**") {
			t.Errorf("README.md has no **%s** section", name)
		}
	}
}
