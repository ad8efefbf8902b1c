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

	"gopkg.in/yaml.v3"
)

var kubectlValued = []string{"kubeconfig", "n", "namespace", "o", "output", "l", "selector", "f", "filename",
	"for", "timeout", "raw", "context", "grace-period", "field-selector", "server", "s", "container", "c"}

// kubectl emulates the kubectl commands scripts use to build and check a
// cluster (see README.md for the list).
func (s *sim) kubectl(args []string) int {
	p := parseFlags(args, kubectlValued...)
	verb := p.arg(0)
	switch verb {
	case "version":
		return s.kubectlVersion(p)
	case "":
		return s.fail(1, "kubectl controls the Kubernetes cluster manager.\n\nUsage:\n  kubectl [flags] [options]")
	}
	// Read a manifest from stdin before taking the state lock: the
	// command writing it (kubectl create --dry-run=client -o yaml | ...)
	// may itself be waiting for the lock.
	if slices.Contains(p.all("f", "filename"), "-") {
		b, err := io.ReadAll(s.stdin)
		if err != nil {
			return s.fail(1, "error: read stdin: %v", err)
		}
		s.stdin = bytes.NewReader(b)
	}
	code := 0
	write := slices.Contains([]string{"apply", "create", "delete", "drain", "cordon", "uncordon", "label", "taint"}, verb)
	run := func(st *State) error {
		if msg := s.connect(st, p); msg != "" {
			code = s.fail(1, "%s", msg)
			return nil
		}
		code = s.kubectlVerb(st, verb, p)
		return nil
	}
	var err error
	if verb == "wait" || verb == "rollout" {
		code = s.kubectlWait(p, verb)
		return code
	}
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

func (s *sim) kubectlVersion(p flags) int {
	client := "v" + defaultKubeVersion
	server := ""
	_ = s.st.view(func(st *State) error {
		if v := kubeVersion(st.host(s.host.Host).Packages["kubectl"]); v != "" {
			client = v
		}
		if !p.has("client") && s.connect(st, p) == "" {
			server = st.API.Version
		}
		return nil
	})
	if o := firstNonEmpty(p.get("o"), p.get("output")); o == "json" {
		m := map[string]any{"clientVersion": map[string]any{"major": "1", "minor": fmt.Sprint(minor(client)), "gitVersion": client, "platform": "linux/amd64"}, "kustomizeVersion": "v5.4.2"}
		if server != "" {
			m["serverVersion"] = map[string]any{"major": "1", "minor": fmt.Sprint(minor(server)), "gitVersion": server, "platform": "linux/amd64"}
		}
		b, _ := json.MarshalIndent(m, "", "  ")
		s.printf("%s\n", b)
		return 0
	}
	s.printf("Client Version: %s\nKustomize Version: v5.4.2\n", client)
	if p.has("client") {
		return 0
	}
	if server == "" {
		var msg string
		_ = s.st.view(func(st *State) error { msg = s.connect(st, p); return nil })
		return s.fail(1, "%s", msg)
	}
	s.printf("Server Version: %s\n", server)
	return 0
}

func (s *sim) namespace(p flags) string {
	return firstNonEmpty(p.get("n"), p.get("namespace"), "default")
}

// resourceKind normalises a kubectl resource name.
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

func (s *sim) kubectlVerb(st *State, verb string, p flags) int {
	switch verb {
	case "get":
		return s.kubectlGet(st, p)
	case "cluster-info":
		s.printf("Kubernetes control plane is running at https://%s\nCoreDNS is running at https://%s/api/v1/namespaces/kube-system/services/kube-dns:dns/proxy\n\nTo further debug and diagnose cluster problems, use 'kubectl cluster-info dump'.\n", st.API.Endpoint, st.API.Endpoint)
		return 0
	case "create":
		return s.kubectlCreate(st, p)
	case "apply":
		return s.kubectlApply(st, p, verb)
	case "delete":
		return s.kubectlDelete(st, p)
	case "drain", "cordon", "uncordon":
		n, ok := st.Nodes[p.arg(1)]
		if !ok {
			return s.fail(1, "Error from server (NotFound): nodes %q not found", p.arg(1))
		}
		n.Unschedulable = verb != "uncordon"
		if verb == "uncordon" {
			s.printf("node/%s uncordoned\n", n.Name)
			return 0
		}
		s.printf("node/%s cordoned\n", n.Name)
		if verb == "drain" {
			s.printf("node/%s drained\n", n.Name)
		}
		return 0
	case "label", "taint":
		return s.kubectlLabelTaint(st, verb, p)
	}
	return s.fail(1, "cp-hostsim kubectl: %q is not simulated; see internal/hostsim/README.md", verb)
}

func (s *sim) kubectlLabelTaint(st *State, verb string, p flags) int {
	if resourceKind(p.arg(1)) != "nodes" {
		return s.fail(1, "cp-hostsim kubectl %s: only nodes are simulated", verb)
	}
	var targets []*Node
	rest := p.pos[2:]
	if p.has("all") {
		targets = sortedNodes(st)
	} else if len(rest) > 0 {
		n, ok := st.Nodes[rest[0]]
		if !ok {
			return s.fail(1, "Error from server (NotFound): nodes %q not found", rest[0])
		}
		targets, rest = []*Node{n}, rest[1:]
	}
	for _, n := range targets {
		for _, kv := range rest {
			if verb == "label" {
				if k, ok := strings.CutSuffix(kv, "-"); ok {
					delete(n.Labels, k)
					continue
				}
				k, v, _ := strings.Cut(kv, "=")
				if old, ok := n.Labels[k]; ok && old != v && !p.has("overwrite") {
					return s.fail(1, "error: 'overwrite' is false, and label %q has value %q", k, old)
				}
				n.Labels[k] = v
				continue
			}
			// A taint is identified by its key and effect (kubectl taint):
			// "key:Effect-" removes that one, "key-" every taint of key.
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
		if verb == "label" {
			s.printf("node/%s labeled\n", n.Name)
		} else if strings.HasSuffix(strings.Join(rest, " "), "-") {
			s.printf("node/%s untainted\n", n.Name)
		} else {
			s.printf("node/%s tainted\n", n.Name)
		}
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
	case strings.Contains(l, "weave"):
		return "weave"
	}
	return ""
}

func (s *sim) kubectlDelete(st *State, p flags) int {
	if files := p.all("f", "filename"); len(files) > 0 {
		for _, f := range files {
			var docs []map[string]any
			if strings.HasPrefix(f, "http://") || strings.HasPrefix(f, "https://") {
				docs = knownManifest(cniOf(f))
			} else if b, err := s.readHostFile(f); err == nil {
				docs, _ = decodeManifests(b)
			} else {
				return s.fail(1, "error: the path %q does not exist", f)
			}
			for _, doc := range docs {
				meta, _ := doc["metadata"].(map[string]any)
				name, _ := meta["name"].(string)
				ns := firstNonEmpty(fmt.Sprint(meta["namespace"]), s.namespace(p))
				if meta["namespace"] == nil {
					ns = s.namespace(p)
				}
				api, _ := doc["apiVersion"].(string)
				kind, _ := doc["kind"].(string)
				r := resForKind(api, kind)
				if kind == "Namespace" {
					if slices.Contains(st.Namespaces, name) {
						st.Namespaces = slices.DeleteFunc(st.Namespaces, func(n string) bool { return n == name })
						st.deleteNamespaceObjects(name)
						s.printf("namespace %q deleted\n", name)
					}
					continue
				}
				if o := st.Objects[objKey(r, ns, name)]; o != nil {
					delete(st.Objects, objKey(r, ns, name))
					s.printf("%s %q deleted\n", r.ref(), name)
				} else if !p.has("ignore-not-found") {
					s.fail(0, "Error from server (NotFound): error when deleting %q: %s %q not found", f, r.qualified(), name)
				}
			}
			for i, m := range st.Manifests {
				if m.Source == f {
					if m.CNI != "" && m.CNI == st.CNI {
						st.CNI = ""
					}
					st.Manifests = slices.Delete(st.Manifests, i, i+1)
					break
				}
			}
		}
		return 0
	}
	kindArg, nameArg, _ := strings.Cut(p.arg(1), "/")
	kind := resourceKind(kindArg)
	names := p.pos[2:]
	if nameArg != "" {
		names = []string{nameArg}
	}
	for _, name := range names {
		switch kind {
		case "nodes":
			if _, ok := st.Nodes[name]; !ok {
				if p.has("ignore-not-found") {
					continue
				}
				return s.fail(1, "Error from server (NotFound): nodes %q not found", name)
			}
			delete(st.Nodes, name)
			s.printf("node %q deleted\n", name)
		case "namespaces":
			if !slices.Contains(st.Namespaces, name) {
				if p.has("ignore-not-found") {
					continue
				}
				return s.fail(1, "Error from server (NotFound): namespaces %q not found", name)
			}
			st.Namespaces = slices.DeleteFunc(st.Namespaces, func(n string) bool { return n == name })
			st.deleteNamespaceObjects(name)
			s.printf("namespace %q deleted\n", name)
		case "pods":
			return s.fail(1, "cp-hostsim kubectl delete: pods are derived from nodes and workloads; deleting them is not simulated")
		default:
			return s.kubectlDeleteObjects(st, p, kindArg, names)
		}
	}
	return 0
}

func (s *sim) kubectlGet(st *State, p flags) int {
	if raw := p.get("raw"); raw != "" {
		switch strings.Split(raw, "?")[0] {
		case "/readyz", "/healthz", "/livez":
			s.printf("ok")
			return 0
		case "/version":
			s.printf("{\n  \"major\": \"1\",\n  \"minor\": \"%d\",\n  \"gitVersion\": \"%s\"\n}", minor(st.API.Version), st.API.Version)
			return 0
		}
		return s.fail(1, "Error from server (NotFound): the server could not find the requested resource")
	}
	target := p.arg(1)
	kind, name, _ := strings.Cut(target, "/")
	kind = resourceKind(kind)
	names := p.pos[2:]
	if name != "" {
		names = []string{name}
	}
	var items []map[string]any
	var rows [][]string
	var header []string
	wide := firstNonEmpty(p.get("o"), p.get("output")) == "wide"
	allNS := p.has("A", "all-namespaces")
	switch kind {
	case "nodes":
		header = []string{"NAME", "STATUS", "ROLES", "AGE", "VERSION"}
		if wide {
			header = append(header, "INTERNAL-IP", "EXTERNAL-IP", "OS-IMAGE", "KERNEL-VERSION", "CONTAINER-RUNTIME")
		}
		for _, n := range sortedNodes(st) {
			if len(names) > 0 && !slices.Contains(names, n.Name) {
				continue
			}
			if sel := p.get("l", "selector"); sel != "" && !labelsMatch(n.Labels, sel) {
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
		for _, want := range names {
			if _, ok := st.Nodes[want]; !ok {
				return s.fail(1, "Error from server (NotFound): nodes %q not found", want)
			}
		}
	case "pods":
		ns := s.namespace(p)
		header = []string{"NAME", "READY", "STATUS", "RESTARTS", "AGE"}
		if allNS {
			header = append([]string{"NAMESPACE"}, header...)
		}
		if wide {
			header = append(header, "IP", "NODE", "NOMINATED NODE", "READINESS GATES")
		}
		for _, pd := range s.pods(st) {
			if !allNS && pd.Namespace != ns {
				continue
			}
			if len(names) > 0 && !slices.Contains(names, pd.Name) {
				continue
			}
			row := []string{pd.Name, readyString(pd), pd.Phase, "0", age(s.now(), pd.Created)}
			if allNS {
				row = append([]string{pd.Namespace}, row...)
			}
			if wide {
				row = append(row, "10.244.0.10", firstNonEmpty(pd.Node, "<none>"), "<none>", "<none>")
			}
			rows = append(rows, row)
			items = append(items, pd.object())
		}
	case "namespaces":
		header = []string{"NAME", "STATUS", "AGE"}
		for _, n := range st.Namespaces {
			if len(names) > 0 && !slices.Contains(names, n) {
				continue
			}
			rows = append(rows, []string{n, "Active", age(s.now(), st.API.Since)})
			items = append(items, map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": n}, "status": map[string]any{"phase": "Active"}})
		}
		for _, want := range names {
			if !slices.Contains(st.Namespaces, want) {
				return s.fail(1, "Error from server (NotFound): namespaces %q not found", want)
			}
		}
	default:
		kindArg, _, _ := strings.Cut(target, "/")
		return s.kubectlGetObjects(st, p, kindArg, names)
	}
	return s.printObjects(p, kind, header, rows, items, len(names) == 1)
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

func (s *sim) printObjects(p flags, kind string, header []string, rows [][]string, items []map[string]any, single bool) int {
	out := firstNonEmpty(p.get("o"), p.get("output"))
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
	case out == "json":
		b, _ := json.MarshalIndent(data, "", "    ")
		s.printf("%s\n", b)
	case out == "yaml":
		b, _ := yaml.Marshal(data)
		s.printf("%s", b)
	case out == "name":
		singular := strings.TrimSuffix(kind, "s")
		if kind == "namespaces" {
			singular = "namespace"
		}
		if r, ok := lookupRes(kind); ok {
			singular = r.ref()
		}
		for _, it := range items {
			s.printf("%s/%s\n", singular, str(it, "metadata", "name"))
		}
	case strings.HasPrefix(out, "jsonpath="), strings.HasPrefix(out, "jsonpath-as-json="):
		_, tmpl, _ := strings.Cut(out, "=")
		tmpl = strings.Trim(tmpl, "'")
		res, err := jsonpath(tmpl, toJSONValue(data))
		if err != nil {
			return s.fail(1, "error: %v", err)
		}
		s.printf("%s", res)
	case out == "" || out == "wide":
		if len(rows) == 0 {
			ns := s.namespace(p)
			if kind == "pods" && !p.has("A", "all-namespaces") {
				return s.fail(0, "No resources found in %s namespace.", ns)
			}
			return s.fail(0, "No resources found")
		}
		s.printf("%s", table(header, rows, p.has("no-headers")))
	default:
		return s.fail(1, "error: unable to match a printer suitable for the output format %q, allowed formats are: json,jsonpath,name,wide,yaml", out)
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

func table(header []string, rows [][]string, noHeaders bool) string {
	all := rows
	if !noHeaders {
		all = append([][]string{header}, rows...)
	}
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

// kubectlWait polls the state until a condition holds or the timeout
// passes (wait --for=condition=Ready|--for=delete, rollout status).
func (s *sim) kubectlWait(p flags, verb string) int {
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
			if verb == "rollout" {
				done, msg, fail = s.rolloutDone(st, p)
			} else {
				done, msg, fail = s.waitDone(st, p)
			}
			return nil
		})
		if err != nil {
			return s.fail(1, "cp-hostsim kubectl %s: %v", verb, err)
		}
		if fail != "" {
			return s.fail(1, "%s", fail)
		}
		if done {
			s.printf("%s", msg)
			return 0
		}
		if !s.now().Before(deadline) {
			if verb == "rollout" {
				return s.fail(1, "error: timed out waiting for the condition")
			}
			return s.fail(1, "error: timed out waiting for the condition on %s", msg)
		}
		time.Sleep(min(500*time.Millisecond, time.Until(deadline)+time.Millisecond))
	}
}

func (s *sim) waitDone(st *State, p flags) (bool, string, string) {
	cond := p.get("for")
	target := p.arg(1)
	kind, name, _ := strings.Cut(target, "/")
	kind = resourceKind(kind)
	names := p.pos[2:]
	if name != "" {
		names = []string{name}
	}
	if kind != "nodes" && kind != "pods" {
		kindArg, _, _ := strings.Cut(target, "/")
		return s.waitObjects(st, p, kindArg, names)
	}
	if !strings.EqualFold(cond, "condition=Ready") && cond != "delete" {
		return false, "", fmt.Sprintf("cp-hostsim kubectl wait: --for=%s is not simulated (condition=Ready, delete)", cond)
	}
	var ok strings.Builder
	var pending []string
	if kind == "nodes" {
		if !p.has("all") && len(names) == 0 {
			return false, "", "error: resource(s) were provided, but no name was specified"
		}
		targets := names
		if p.has("all") || p.has("l", "selector") {
			targets = nil
			for _, n := range sortedNodes(st) {
				if sel := p.get("l", "selector"); sel == "" || labelsMatch(n.Labels, sel) {
					targets = append(targets, n.Name)
				}
			}
		}
		for _, t := range targets {
			n, exists := st.Nodes[t]
			if cond == "delete" {
				if exists {
					pending = append(pending, "nodes/"+t)
				} else {
					fmt.Fprintf(&ok, "node/%s condition met\n", t)
				}
				continue
			}
			if !exists {
				return false, "", fmt.Sprintf("Error from server (NotFound): nodes %q not found", t)
			}
			if s.nodeReady(st, n) {
				fmt.Fprintf(&ok, "node/%s condition met\n", t)
			} else {
				pending = append(pending, "nodes/"+t)
			}
		}
	} else {
		ns := s.namespace(p)
		for _, pd := range s.pods(st) {
			if pd.Namespace != ns && !p.has("A", "all-namespaces") || (len(names) > 0 && !slices.Contains(names, pd.Name)) {
				continue
			}
			if pd.Ready {
				fmt.Fprintf(&ok, "pod/%s condition met\n", pd.Name)
			} else {
				pending = append(pending, "pods/"+pd.Name)
			}
		}
	}
	if len(pending) > 0 {
		return false, pending[0], ""
	}
	return true, ok.String(), ""
}

func (s *sim) rolloutDone(st *State, p flags) (bool, string, string) {
	if p.arg(1) != "status" {
		return false, "", fmt.Sprintf("cp-hostsim kubectl rollout %s: only status is simulated", p.arg(1))
	}
	return s.rolloutObject(st, p, p.arg(2))
}
