package hostsim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"time"
)

// kubeRead and kubeWrite wrap a kubectl command: the client must reach
// the simulated API server with its kubeconfig, and the command sees the
// state under a shared (read) or exclusive (write) lock.
func kubeRead(fn func(*sim, *State, flags) int) func(*sim, flags) int {
	return func(s *sim, p flags) int { return s.kubeClient(p, false, fn) }
}

func kubeWrite(fn func(*sim, *State, flags) int) func(*sim, flags) int {
	return func(s *sim, p flags) int { return s.kubeClient(p, true, fn) }
}

func (s *sim) kubeClient(p flags, write bool, fn func(*sim, *State, flags) int) int {
	// Read a manifest from stdin before taking the state lock: the
	// command writing it (kubectl create --dry-run=client -o yaml | ...)
	// may itself be waiting for the lock.
	if slices.Contains(p.all("f"), "-") {
		b, err := io.ReadAll(s.stdin)
		if err != nil {
			return s.fail(1, "error: read stdin: %v", err)
		}
		s.stdin = bytes.NewReader(b)
	}
	code := 0
	run := func(st *State) error {
		if msg := s.connect(st, p); msg != "" {
			code = s.fail(1, "%s", msg)
			return nil
		}
		code = fn(s, st, p)
		return nil
	}
	var err error
	if write {
		err = s.st.update(run)
	} else {
		err = s.st.view(run)
	}
	if err != nil {
		return s.fail(1, "cp-hostsim kubectl: %v", err)
	}
	return code
}

func (s *sim) namespace(p flags) string {
	return firstNonEmpty(p.get("n"), "default")
}

// resourceKind normalises the name of a kind kubectl models apart.
func resourceKind(r string) string {
	r = strings.ToLower(r)
	if i := strings.IndexByte(r, '.'); i > 0 {
		r = r[:i]
	}
	switch r {
	case "node", "nodes", "no":
		return "nodes"
	case "pod", "pods", "po":
		return "pods"
	case "namespace", "namespaces", "ns":
		return "namespaces"
	}
	return r
}

// target splits TYPE/NAME or TYPE NAME... into the type and the names.
func target(p flags) (string, []string) {
	kind, name, _ := strings.Cut(p.arg(1), "/")
	if name != "" {
		return kind, []string{name}
	}
	return kind, p.pos[2:]
}

func (s *sim) node(st *State, name string) (*Node, int) {
	n, ok := st.Nodes[name]
	if !ok {
		return nil, s.fail(1, "Error from server (NotFound): nodes %q not found", name)
	}
	return n, 0
}

func hasEmptyDir(spec map[string]any) bool {
	for _, v := range asList(spec["volumes"]) {
		if _, ok := asMap(v)["emptyDir"]; ok {
			return true
		}
	}
	return false
}

func (s *sim) kubectlUncordon(st *State, p flags) int {
	n, code := s.node(st, p.arg(1))
	if n == nil {
		return code
	}
	n.Unschedulable = false
	s.printf("node/%s uncordoned\n", n.Name)
	return 0
}

// nodeChanges returns the node of `kubectl label|taint node NAME ARGS...`
// and its ARGS.
func (s *sim) nodeChanges(st *State, p flags, verb string) (*Node, []string, int) {
	if resourceKind(p.arg(1)) != "nodes" {
		return nil, nil, s.notEmulated("kubectl", verb, p.arg(1))
	}
	n, code := s.node(st, p.arg(2))
	if n == nil {
		return nil, nil, code
	}
	return n, p.pos[min(3, len(p.pos)):], 0
}

// kubectlLabel sets (k=v) and removes (k-) labels of a node; changing a
// label's value needs --overwrite.
func (s *sim) kubectlLabel(st *State, p flags) int {
	n, changes, code := s.nodeChanges(st, p, "label")
	if n == nil {
		return code
	}
	for _, kv := range changes {
		if k, ok := strings.CutSuffix(kv, "-"); ok {
			delete(n.Labels, k)
			continue
		}
		k, v, _ := strings.Cut(kv, "=")
		if old, ok := n.Labels[k]; ok && old != v && !p.has("overwrite") {
			return s.fail(1, "error: 'overwrite' is false, and label %q has value %q", k, old)
		}
		n.Labels[k] = v
	}
	s.printf("node/%s labeled\n", n.Name)
	return 0
}

// kubectlTaint adds and removes taints of a node. A taint is its key and
// effect: "key:Effect-" removes that one, "key-" every taint of key, and
// a taint the node has with another value needs --overwrite.
func (s *sim) kubectlTaint(st *State, p flags) int {
	n, changes, code := s.nodeChanges(st, p, "taint")
	if n == nil {
		return code
	}
	removed := false
	for _, kv := range changes {
		if t, ok := strings.CutSuffix(kv, "-"); ok {
			key, effect, _ := strings.Cut(t, ":")
			before := len(n.Taints)
			n.Taints = slices.DeleteFunc(n.Taints, func(x string) bool {
				k, e := taintID(x)
				return k == key && (effect == "" || e == effect)
			})
			if len(n.Taints) == before {
				return s.fail(1, "error: taint %q not found", t)
			}
			removed = true
			continue
		}
		key, effect := taintID(kv)
		if !slices.Contains([]string{"NoSchedule", "PreferNoSchedule", "NoExecute"}, effect) {
			return s.fail(1, "error: invalid taint spec: %s, unknown taint effect", kv)
		}
		same := func(x string) bool { k, e := taintID(x); return k == key && e == effect }
		if slices.ContainsFunc(n.Taints, same) && !p.has("overwrite") {
			return s.fail(1, "error: node %s already has %s taint(s) with same effect(s) and --overwrite is false", n.Name, key)
		}
		n.Taints = append(slices.DeleteFunc(n.Taints, same), kv)
	}
	if removed {
		s.printf("node/%s untainted\n", n.Name)
	} else {
		s.printf("node/%s tainted\n", n.Name)
	}
	return 0
}

// taintID returns the key and effect of a key[=value]:Effect taint.
func taintID(t string) (key, effect string) {
	kv, effect, _ := strings.Cut(t, ":")
	key, _, _ = strings.Cut(kv, "=")
	return key, effect
}

// cniOf recognises a CNI manifest by file name or URL.
func cniOf(source string) string {
	l := strings.ToLower(source)
	switch {
	case strings.Contains(l, "calico") || strings.Contains(l, "tigera"):
		return "calico"
	case strings.Contains(l, "cilium"):
		return "cilium"
	case strings.Contains(l, "flannel"):
		return "flannel"
	}
	return ""
}

// kubectlDelete deletes nodes and stored objects by name.
func (s *sim) kubectlDelete(st *State, p flags) int {
	kind, names := target(p)
	switch resourceKind(kind) {
	case "nodes":
		for _, name := range names {
			if _, ok := st.Nodes[name]; !ok {
				if p.has("ignore-not-found") {
					continue
				}
				return s.fail(1, "Error from server (NotFound): nodes %q not found", name)
			}
			delete(st.Nodes, name)
			s.printf("node %q deleted\n", name)
		}
		return 0
	case "pods", "namespaces":
		return s.notEmulated("kubectl", "delete", kind)
	}
	return s.kubectlDeleteObjects(st, p, kind, names)
}

// kubectlGet prints nodes or stored objects, or answers --raw.
func (s *sim) kubectlGet(st *State, p flags) int {
	if raw := p.get("raw"); raw == "/readyz" {
		s.printf("ok")
		return 0
	} else if raw != "" {
		return s.kubectlRawProxy(st, raw)
	}
	kind, names := target(p)
	switch resourceKind(kind) {
	case "nodes":
	case "pods", "namespaces":
		return s.notEmulated("kubectl", "get", kind)
	default:
		return s.kubectlGetObjects(st, p, kind, names)
	}
	for _, want := range names {
		if _, ok := st.Nodes[want]; !ok {
			return s.fail(1, "Error from server (NotFound): nodes %q not found", want)
		}
	}
	header := []string{"NAME", "STATUS", "ROLES", "AGE", "VERSION"}
	wide := p.get("o") == "wide"
	if wide {
		header = append(header, "INTERNAL-IP", "EXTERNAL-IP", "OS-IMAGE", "KERNEL-VERSION", "CONTAINER-RUNTIME")
	}
	var items []map[string]any
	var rows [][]string
	for _, n := range sortedNodes(st) {
		if (len(names) > 0 && !slices.Contains(names, n.Name)) || (p.get("l") != "" && !labelsMatch(n.Labels, p.get("l"))) {
			continue
		}
		status := "NotReady"
		if s.nodeReady(st, n) {
			status = "Ready"
		}
		if n.Unschedulable {
			status += ",SchedulingDisabled"
		}
		row := []string{n.Name, status, nodeRoles(n), age(s.now(), n.Joined), nodeVersion(st, n)}
		if wide {
			row = append(row, n.Address, "<none>", "Debian GNU/Linux 12 (bookworm)", kernelVersion(), "containerd://"+containerdVersion)
		}
		rows = append(rows, row)
		items = append(items, s.nodeObject(st, n))
	}
	return s.printObjects(p, "node", header, rows, items, len(names) == 1)
}

func labelsMatch(labels map[string]string, sel string) bool {
	for _, term := range strings.Split(sel, ",") {
		k, v, hasV := strings.Cut(term, "=")
		got, ok := labels[strings.TrimSpace(k)]
		if !ok || (hasV && got != strings.TrimSpace(v)) {
			return false
		}
	}
	return true
}

// printObjects prints what kubectl get found: -o name (ref/NAME lines),
// -o json, -o jsonpath=TEMPLATE, or a table (rows; nil rows for kinds
// without one). One object asked for by name is itself, else a List.
func (s *sim) printObjects(p flags, ref string, header []string, rows [][]string, items []map[string]any, single bool) int {
	out := p.get("o")
	var data any
	if single && len(items) == 1 {
		data = items[0]
	} else {
		list := make([]any, len(items))
		for i, it := range items {
			list[i] = it
		}
		data = map[string]any{"apiVersion": "v1", "kind": "List", "items": list, "metadata": map[string]any{"resourceVersion": ""}}
	}
	switch {
	case out == "name":
		for _, it := range items {
			s.printf("%s/%s\n", ref, str(it, "metadata", "name"))
		}
	case out == "json":
		b, _ := json.MarshalIndent(data, "", "    ")
		s.printf("%s\n", b)
	case strings.HasPrefix(out, "jsonpath="):
		res, err := jsonpath(strings.TrimPrefix(out, "jsonpath="), toJSONValue(data))
		if err != nil {
			return s.fail(1, "error: %v", err)
		}
		s.printf("%s", res)
	default:
		if header == nil {
			return s.notEmulated("kubectl", "get", ref, "(a table: give -o name or -o jsonpath=)")
		}
		if len(rows) == 0 {
			return s.fail(0, "No resources found")
		}
		s.printf("%s", table(header, rows))
	}
	return 0
}

// toJSONValue round-trips through JSON so jsonpath sees plain types.
func toJSONValue(v any) any {
	b, _ := json.Marshal(v)
	var out any
	_ = json.Unmarshal(b, &out)
	return out
}

func table(header []string, rows [][]string) string {
	all := append([][]string{header}, rows...)
	widths := make([]int, len(header))
	for _, r := range all {
		for i, c := range r {
			widths[i] = max(widths[i], len(c))
		}
	}
	var b strings.Builder
	for _, r := range all {
		for i, c := range r {
			if i == len(r)-1 {
				b.WriteString(c)
			} else {
				b.WriteString(c + strings.Repeat(" ", widths[i]-len(c)+3))
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// kubectlWait polls the state until --for=condition=TYPE holds for the
// targets or --timeout (default 30s) passes.
func (s *sim) kubectlWait(p flags) int {
	timeout := 30 * time.Second
	if t := p.get("timeout"); t != "" {
		d, err := time.ParseDuration(t)
		if err != nil {
			return s.fail(1, "error: invalid argument %q for \"--timeout\" flag: %v", t, err)
		}
		timeout = d
	}
	deadline := s.now().Add(timeout)
	for {
		var done bool
		var msg, fail string
		err := s.st.view(func(st *State) error {
			if m := s.connect(st, p); m != "" {
				fail = m
				return nil
			}
			done, msg, fail = s.waitDone(st, p)
			return nil
		})
		if err != nil {
			return s.fail(1, "cp-hostsim kubectl wait: %v", err)
		}
		if fail == notEmulatedMarker {
			return s.notEmulated("kubectl", "wait", p.arg(1))
		}
		if fail != "" {
			return s.fail(1, "%s", fail)
		}
		if done {
			s.printf("%s", msg)
			return 0
		}
		if !s.now().Before(deadline) {
			return s.fail(1, "error: timed out waiting for the condition on %s", msg)
		}
		time.Sleep(min(500*time.Millisecond, time.Until(deadline)+time.Millisecond))
	}
}

// notEmulatedMarker is what waitDone returns as its failure for a
// target kind the simulator does not model.
const notEmulatedMarker = "\x00not emulated"

// waitDone checks the wait condition once: done, the output (or the
// first pending target), and a failure.
func (s *sim) waitDone(st *State, p flags) (bool, string, string) {
	kind, names := target(p)
	switch resourceKind(kind) {
	case "nodes":
	case "pods", "namespaces":
		return false, "", notEmulatedMarker
	default:
		return s.waitObjects(st, p, kind, names)
	}
	if !strings.EqualFold(p.get("for"), "condition=Ready") {
		return false, "", fmt.Sprintf("cp-hostsim: not emulated: kubectl wait --for=%s nodes (nodes have condition Ready)", p.get("for"))
	}
	if p.has("all") {
		names = sortedKeys(st.Nodes)
	}
	if len(names) == 0 {
		return false, "", "error: resource(s) were provided, but no name was specified"
	}
	var ok strings.Builder
	for _, t := range names {
		n, exists := st.Nodes[t]
		if !exists {
			return false, "", fmt.Sprintf("Error from server (NotFound): nodes %q not found", t)
		}
		if !s.nodeReady(st, n) {
			return false, "nodes/" + t, ""
		}
		fmt.Fprintf(&ok, "node/%s condition met\n", t)
	}
	return true, ok.String(), ""
}
