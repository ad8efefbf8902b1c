package hostsim

import (
	"fmt"
	"sort"
	"strings"
)

// The simulator's scope as data: for each emulated tool, the commands it
// emulates (the words naming them) and the flags each accepts. Main
// resolves every invocation through this table before anything runs, so
// what the table lists is exactly what dispatch accepts: any other
// command or flag exits 2 with "not emulated: TOOL COMMAND FLAG". The
// contract test ties the table to what the builtin packs run.

// command is one emulated command of a tool.
type command struct {
	// path is the words naming it ("get", "token create"); "" for a tool
	// without subcommands (sysctl, modprobe).
	path string
	// flags it accepts besides the tool's global ones: "name" is a
	// boolean, "name=" takes a value, "name=a|b|c*" takes one of the
	// values listed (a trailing * matches any rest). One letter is a
	// short flag (-n), more a long one (--namespace).
	flags []string
	run   func(s *sim, p flags) int
}

// tool is one emulated program.
type tool struct {
	global []string // flags every command accepts, as in command.flags
	cmds   []command
	// bundles: single-dash words are bundles of short flags (-fsSL).
	bundles bool
	// real, when set, hands invocations the simulator does not stand
	// in for to the real program (reported true), before resolution.
	real func(s *sim, args []string) (int, bool)
}

// scope is the table of every emulated tool.
func scope() map[string]tool {
	kube := []string{"kubeconfig=", "n="}
	return map[string]tool{
		"apt-get": {cmds: []command{
			{path: "install", flags: []string{"y", "allow-change-held-packages"}, run: (*sim).aptInstall},
			{path: "update", run: (*sim).aptUpdate},
		}},
		"apt-cache": {cmds: []command{
			{path: "madison", run: (*sim).aptCacheMadison},
			{path: "show", run: (*sim).aptCacheShow},
		}},
		"crictl": {cmds: []command{
			{path: "inspecti", run: (*sim).crictlInspecti},
			{path: "pull", run: (*sim).crictlPull},
		}},
		"curl": {bundles: true, real: (*sim).curlReal, cmds: []command{
			{path: "", flags: []string{"f", "s", "S", "L", "o=/dev/null|/*", "w=%{http_code}", "max-time="}, run: (*sim).curl},
		}},
		"etcdctl": {global: []string{"endpoints=", "cacert=", "cert=", "key="}, cmds: []command{
			{path: "endpoint health", run: (*sim).etcdctlEndpointHealth},
			{path: "member list", flags: []string{"w=simple"}, run: (*sim).etcdctlMemberList},
			{path: "member remove", run: (*sim).etcdctlMemberRemove},
			{path: "snapshot restore", flags: []string{"data-dir=", "name=", "initial-cluster=", "initial-advertise-peer-urls="}, run: (*sim).etcdctlSnapshotRestore},
			{path: "snapshot save", run: (*sim).etcdctlSnapshotSave},
			{path: "snapshot status", flags: []string{"w=json"}, run: (*sim).etcdctlSnapshotStatus},
		}},
		"getent": {real: (*sim).getentReal, cmds: []command{
			{path: "hosts", run: (*sim).getentHosts},
		}},
		"helm": {global: []string{"kubeconfig=", "namespace="}, cmds: []command{
			{path: "get values", flags: []string{"o=json"}, run: helmCluster((*sim).helmGetValues)},
			{path: "pull", flags: []string{"repo=", "version=", "destination="}, run: (*sim).helmPull},
			{path: "status", flags: []string{"o=json"}, run: helmCluster((*sim).helmStatusCmd)},
			{path: "uninstall", flags: []string{"wait"}, run: helmCluster((*sim).helmUninstall)},
			{path: "upgrade", flags: []string{"install", "repo=", "version=", "create-namespace", "values=", "set=", "wait", "timeout="},
				run: helmCluster((*sim).helmUpgrade)},
			{path: "version", flags: []string{"short"}, run: (*sim).helmVersion},
		}},
		"kubeadm": {cmds: []command{
			{path: "certs check-expiration", run: (*sim).kubeadmCertsCheckExpiration},
			{path: "certs renew all", run: (*sim).kubeadmCertsRenewAll},
			{path: "config images list", flags: []string{"kubernetes-version=", "image-repository="}, run: (*sim).kubeadmImagesList},
			{path: "init", flags: []string{"config=", "skip-token-print"}, run: (*sim).kubeadmInit},
			{path: "init phase upload-certs", flags: []string{"upload-certs"}, run: (*sim).kubeadmUploadCerts},
			{path: "join", flags: []string{"config=", "token=", "discovery-token-ca-cert-hash="}, run: (*sim).kubeadmJoin},
			{path: "reset", flags: []string{"f"}, run: (*sim).kubeadmReset},
			{path: "token create", flags: []string{"ttl=", "print-join-command"}, run: (*sim).kubeadmTokenCreate},
			{path: "token list", flags: []string{"kubeconfig="}, run: (*sim).kubeadmTokenList},
			{path: "upgrade apply", flags: []string{"y"}, run: (*sim).kubeadmUpgradeApply},
			{path: "upgrade node", run: (*sim).kubeadmUpgradeNode},
			{path: "version", flags: []string{"o=short"}, run: (*sim).kubeadmVersion},
		}},
		"kubectl": {global: kube, cmds: []command{
			{path: "apply", flags: []string{"f="}, run: kubeWrite((*sim).kubectlApply)},
			{path: "cordon", run: kubeWrite((*sim).kubectlCordon)},
			{path: "create configmap", flags: []string{"from-file=", "dry-run=client", "o=yaml"}, run: kubeWrite((*sim).kubectlCreate)},
			{path: "create namespace", flags: []string{"dry-run=client", "o=yaml"}, run: kubeWrite((*sim).kubectlCreate)},
			{path: "create secret generic", flags: []string{"from-file=", "from-env-file=", "dry-run=client", "o=yaml"}, run: kubeWrite((*sim).kubectlCreate)},
			{path: "delete", flags: []string{"ignore-not-found"}, run: kubeWrite((*sim).kubectlDelete)},
			{path: "drain", flags: []string{"ignore-daemonsets", "delete-emptydir-data", "timeout="}, run: kubeWrite((*sim).kubectlDrain)},
			{path: "get", flags: []string{"o=json|name|wide|jsonpath=*", "l=", "raw="}, run: kubeRead((*sim).kubectlGet)},
			{path: "label", flags: []string{"overwrite"}, run: kubeWrite((*sim).kubectlLabel)},
			{path: "taint", flags: []string{"overwrite"}, run: kubeWrite((*sim).kubectlTaint)},
			{path: "uncordon", run: kubeWrite((*sim).kubectlUncordon)},
			{path: "wait", flags: []string{"for=condition=*", "timeout=", "all"}, run: (*sim).kubectlWait},
		}},
		"modprobe":    {cmds: []command{{path: "", run: (*sim).modprobe}}},
		"swapoff":     {cmds: []command{{path: "", flags: []string{"a"}, run: (*sim).swapoff}}},
		"timedatectl": {cmds: []command{{path: "show", flags: []string{"p=NTPSynchronized", "value"}, run: (*sim).timedatectlShow}}},
		"sysctl":      {cmds: []command{{path: "", flags: []string{"n", "w"}, run: (*sim).sysctl}}},
		"systemctl": {cmds: []command{
			{path: "daemon-reload", run: (*sim).systemctlDaemonReload},
			{path: "disable", flags: []string{"now"}, run: (*sim).systemctlChange},
			{path: "enable", flags: []string{"now"}, run: (*sim).systemctlChange},
			{path: "is-active", flags: []string{"quiet"}, run: (*sim).systemctlIsActive},
			{path: "is-enabled", run: (*sim).systemctlIsEnabled},
			{path: "restart", run: (*sim).systemctlChange},
		}},
		"wg": {real: (*sim).wgReal, cmds: []command{
			{path: "genkey", run: (*sim).wgGenkey},
			{path: "pubkey", run: (*sim).wgPubkey},
			{path: "show", run: (*sim).wgShow},
		}},
	}
}

// ToolNames lists the emulated programs, sorted.
func ToolNames() []string {
	var out []string
	for n := range scope() {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// flagSpec is one parsed entry of command.flags.
type flagSpec struct {
	name   string
	valued bool
	values []string // allowed values; a trailing * matches any rest
}

func parseFlagSpec(s string) flagSpec {
	name, vals, valued := strings.Cut(s, "=")
	f := flagSpec{name: name, valued: valued}
	if vals != "" {
		f.values = strings.Split(vals, "|")
	}
	return f
}

// allows reports whether v is one of the flag's values (any when none
// are listed; opaque, a value decided at run time, always).
func (f flagSpec) allows(v string) bool {
	if len(f.values) == 0 || strings.Contains(v, opaqueValue) {
		return true
	}
	for _, a := range f.values {
		if pre, glob := strings.CutSuffix(a, "*"); (glob && strings.HasPrefix(v, pre)) || v == a {
			return true
		}
	}
	return false
}

// opaqueValue marks a word whose value only a running script knows (the
// contract test passes it for "$var" arguments).
const opaqueValue = "\x00opaque"

// flagWord is how a flag is written: -n, --namespace.
func flagWord(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// notEmulated is an invocation outside the simulator's scope.
type notEmulated struct{ words []string }

func (e *notEmulated) Error() string {
	return "not emulated: " + strings.Join(e.words, " ")
}

// resolve finds the command an invocation of the tool names and parses
// its flags, or says what in it is not emulated.
func resolve(name string, args []string) (command, flags, error) {
	t, ok := scope()[name]
	if !ok {
		return command{}, flags{}, &notEmulated{[]string{name}}
	}
	specs := map[string]flagSpec{}
	for _, c := range t.cmds {
		for _, f := range append(c.flags, t.global...) {
			fs := parseFlagSpec(f)
			specs[fs.name] = fs
		}
	}
	var valued []string
	for n, fs := range specs {
		if fs.valued {
			valued = append(valued, n)
		}
	}
	if t.bundles {
		args = splitBundles(args)
	}
	p, err := parseFlags(args, valued...)
	if err != nil {
		return command{}, flags{}, err
	}
	cmd, found := command{}, false
	for _, c := range t.cmds {
		words := strings.Fields(c.path)
		if len(words) > len(p.pos) || (found && len(words) <= len(strings.Fields(cmd.path))) {
			continue
		}
		match := true
		for i, w := range words {
			match = match && p.pos[i] == w
		}
		if match {
			cmd, found = c, true
		}
	}
	if !found {
		// An unknown flag may have taken the command's place (--namespace x).
		for _, n := range p.order {
			if _, known := specs[n]; !known {
				return command{}, flags{}, &notEmulated{[]string{name, flagWord(n)}}
			}
		}
		what := "(no command)"
		if len(p.pos) > 0 {
			what = strings.ReplaceAll(p.pos[0], opaqueValue, "$…")
		}
		return command{}, flags{}, &notEmulated{[]string{name, what}}
	}
	accepted := map[string]flagSpec{}
	for _, f := range append(cmd.flags, t.global...) {
		fs := parseFlagSpec(f)
		accepted[fs.name] = fs
	}
	for _, n := range p.order {
		fs, ok := accepted[n]
		words := append([]string{name}, strings.Fields(cmd.path)...)
		if !ok {
			return command{}, flags{}, &notEmulated{append(words, flagWord(n))}
		}
		for _, v := range p.vals[n] {
			if fs.valued && !fs.allows(v) {
				return command{}, flags{}, &notEmulated{append(words, flagWord(n)+"="+v)}
			}
		}
	}
	return cmd, p, nil
}

// splitBundles turns -fsSL into -f -s -S -L.
func splitBundles(args []string) []string {
	var out []string
	for _, a := range args {
		if len(a) > 2 && a[0] == '-' && a[1] != '-' {
			for _, c := range a[1:] {
				out = append(out, "-"+string(c))
			}
			continue
		}
		out = append(out, a)
	}
	return out
}

// checkInvocation reports whether the simulator emulates an invocation,
// without running it: nil, a *notEmulated, or a usage error.
func checkInvocation(tool string, args []string) error {
	_, _, err := resolve(tool, args)
	return err
}

// run resolves and runs one invocation of a tool.
func (s *sim) run(name string, args []string) int {
	t := scope()[name]
	if t.real != nil {
		if code, done := t.real(s, args); done {
			return code
		}
	}
	cmd, p, err := resolve(name, args)
	if err != nil {
		if ne, ok := err.(*notEmulated); ok {
			return s.fail(2, "cp-hostsim: %v (see internal/hostsim/README.md)", ne)
		}
		return s.fail(1, "%s: %v", name, err)
	}
	return cmd.run(s, p)
}

func (s *sim) notEmulated(words ...string) int {
	return s.fail(2, "cp-hostsim: %v (see internal/hostsim/README.md)", &notEmulated{words})
}

// usageError is a flag without its value, which the real tools refuse too.
type usageError struct{ flag string }

func (e usageError) Error() string {
	return fmt.Sprintf("flag needs an argument: %s", flagWord(e.flag))
}
