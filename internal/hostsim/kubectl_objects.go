package hostsim

import (
	"encoding/base64"
	"fmt"
	"io"
	"net/url"
	"path"
	"slices"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// dryRun reports --dry-run=client (or the old boolean --dry-run).
func dryRun(p flags) (bool, string) {
	if !p.has("dry-run") {
		return false, ""
	}
	switch v := p.get("dry-run"); v {
	case "client", "true", "":
		return true, ""
	case "none", "false":
		return false, ""
	case "server":
		return true, ""
	default:
		return false, fmt.Sprintf("error: Invalid dry-run value (%s). Must be \"none\", \"server\", or \"client\".", v)
	}
}

// printCreated prints an object created by kubectl create/apply, or the
// object itself when -o is given (as with --dry-run=client -o yaml).
func (s *sim) printCreated(p flags, r resType, obj map[string]any, name, action string, dry bool) int {
	switch out := firstNonEmpty(p.get("o"), p.get("output")); out {
	case "yaml":
		b, _ := yaml.Marshal(obj)
		s.printf("%s", b)
	case "json":
		return s.printObjects(p, r.Plural, nil, nil, []map[string]any{obj}, true)
	case "name":
		s.printf("%s/%s\n", r.ref(), name)
	case "":
		if dry {
			action += " (dry run)"
		}
		s.printf("%s/%s %s\n", r.ref(), name, action)
	default:
		return s.fail(1, "error: unable to match a printer suitable for the output format %q, allowed formats are: json,name,yaml", out)
	}
	return 0
}

// manifestMap is an object as kubectl sends it (no status, no server fields).
func manifestMap(o *Object) map[string]any {
	m := map[string]any{}
	for k, v := range o.body() {
		m[k] = v
	}
	meta := map[string]any{"name": o.Name, "creationTimestamp": nil}
	if o.Namespace != "" {
		meta["namespace"] = o.Namespace
	}
	if len(o.Labels) > 0 {
		meta["labels"] = o.Labels
	}
	m["apiVersion"], m["kind"], m["metadata"] = o.APIVersion, o.Kind, meta
	return m
}

// kubectlCreate handles kubectl create namespace|secret generic|configmap
// and create -f.
func (s *sim) kubectlCreate(st *State, p flags) int {
	dry, msg := dryRun(p)
	if msg != "" {
		return s.fail(1, "%s", msg)
	}
	what := resourceKind(p.arg(1))
	name := p.arg(2)
	ns := s.namespace(p)
	var o *Object
	switch {
	case len(p.all("f", "filename")) > 0:
		return s.kubectlApply(st, p, "create")
	case what == "namespaces":
		if name == "" {
			return s.fail(1, "error: exactly one NAME is required, got 0")
		}
		obj := map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": name, "creationTimestamp": nil}, "spec": map[string]any{}, "status": map[string]any{}}
		if !dry {
			if slices.Contains(st.Namespaces, name) {
				return s.fail(1, "Error from server (AlreadyExists): namespaces %q already exists", name)
			}
			st.Namespaces = append(st.Namespaces, name)
			sort.Strings(st.Namespaces)
		}
		return s.printCreated(p, resType{Plural: "namespaces", Singular: "namespace", Kind: "Namespace", Version: "v1"}, obj, name, "created", dry)
	case what == "secret" || what == "secrets":
		if p.arg(2) != "generic" {
			return s.fail(1, "cp-hostsim kubectl create secret: only generic is simulated")
		}
		name = p.arg(3)
		data, code := s.fromSources(p, true)
		if code != 0 {
			return code
		}
		o = &Object{APIVersion: "v1", Kind: "Secret", Namespace: ns, Name: name, Created: s.now(), Generation: 1,
			Body: map[string]any{"type": firstNonEmpty(p.get("type"), "Opaque")}}
		if len(data) > 0 {
			o.Body["data"] = data
		}
	case what == "configmap" || what == "configmaps" || what == "cm":
		data, code := s.fromSources(p, false)
		if code != 0 {
			return code
		}
		o = &Object{APIVersion: "v1", Kind: "ConfigMap", Namespace: ns, Name: name, Created: s.now(), Generation: 1, Body: map[string]any{}}
		if len(data) > 0 {
			o.Body["data"] = data
		}
	default:
		return s.fail(1, "cp-hostsim kubectl create %s: not simulated (namespace, secret generic, configmap, -f FILE); see internal/hostsim/README.md", p.arg(1))
	}
	if o.Name == "" {
		return s.fail(1, "error: exactly one NAME is required, got 0")
	}
	r := o.res()
	if !dry {
		if !slices.Contains(st.Namespaces, ns) {
			return s.fail(1, "error: failed to create %s: namespaces %q not found", r.Singular, ns)
		}
		if s.findObject(st, r, ns, o.Name) != nil {
			return s.fail(1, "error: failed to create %s: %s %q already exists", r.Singular, r.qualified(), o.Name)
		}
		st.putObject(o)
	}
	return s.printCreated(p, r, manifestMap(o), o.Name, "created", dry)
}

// fromSources reads --from-literal, --from-file and --from-env-file into
// data (base64 for secrets).
func (s *sim) fromSources(p flags, b64 bool) (map[string]any, int) {
	data := map[string]any{}
	put := func(k, v string) {
		if b64 {
			v = base64.StdEncoding.EncodeToString([]byte(v))
		}
		data[k] = v
	}
	for _, lit := range p.all("from-literal") {
		k, v, ok := strings.Cut(lit, "=")
		if !ok || k == "" {
			return nil, s.fail(1, "error: invalid literal source %s, expected key=value", lit)
		}
		put(k, v)
	}
	for _, f := range p.all("from-file") {
		k, file, ok := strings.Cut(f, "=")
		if !ok {
			file, k = f, path.Base(f)
		}
		b, err := s.readHostFile(file)
		if err != nil {
			return nil, s.fail(1, "error: error reading %s: no such file or directory", file)
		}
		put(k, string(b))
	}
	for _, f := range p.all("from-env-file") {
		b, err := s.readHostFile(f)
		if err != nil {
			return nil, s.fail(1, "error: open %s: no such file or directory", f)
		}
		for i, line := range strings.Split(string(b), "\n") {
			line = strings.TrimLeft(line, " \t")
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			k, v, ok := strings.Cut(line, "=")
			if !ok {
				// A bare key takes its value from the environment.
				k, v = line, s.getenv(line)
			}
			if k == "" || strings.ContainsAny(k, " \t") {
				return nil, s.fail(1, "error: %q is not a valid key name: a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.' (line %d of %s)", k, i+1, f)
			}
			put(k, v)
		}
	}
	return data, 0
}

// knownManifest returns the objects of the CNI manifests the simulator
// knows by URL (there is no internet to fetch them from).
func knownManifest(cni string) []map[string]any {
	ks := "kube-system"
	obj := func(api, kind, ns, name string, body map[string]any) map[string]any {
		m := map[string]any{"apiVersion": api, "kind": kind, "metadata": map[string]any{"name": name, "namespace": ns}}
		for k, v := range body {
			m[k] = v
		}
		return m
	}
	hostNet := map[string]any{"spec": map[string]any{"template": map[string]any{"spec": map[string]any{"hostNetwork": true}}}}
	deploy := map[string]any{"spec": map[string]any{"replicas": 1, "template": map[string]any{"spec": map[string]any{}}}}
	switch cni {
	case "calico":
		return []map[string]any{obj("v1", "ServiceAccount", ks, "calico-node", nil), obj("v1", "ConfigMap", ks, "calico-config", nil),
			obj("apps/v1", "DaemonSet", ks, "calico-node", hostNet), obj("apps/v1", "Deployment", ks, "calico-kube-controllers", deploy)}
	case "cilium":
		return []map[string]any{obj("v1", "ServiceAccount", ks, "cilium", nil), obj("v1", "ConfigMap", ks, "cilium-config", nil),
			obj("apps/v1", "DaemonSet", ks, "cilium", hostNet), obj("apps/v1", "Deployment", ks, "cilium-operator", deploy)}
	case "flannel":
		fl := "kube-flannel"
		return []map[string]any{{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": fl}},
			obj("v1", "ServiceAccount", fl, "flannel", nil), obj("v1", "ConfigMap", fl, "kube-flannel-cfg", nil), obj("apps/v1", "DaemonSet", fl, "kube-flannel-ds", hostNet)}
	}
	return nil
}

// kubectlApply applies (or creates) the objects of -f FILE|URL|-.
func (s *sim) kubectlApply(st *State, p flags, verb string) int {
	files := p.all("f", "filename")
	if len(files) == 0 {
		return s.fail(1, "error: must specify one of -f and -k")
	}
	dry, msg := dryRun(p)
	if msg != "" {
		return s.fail(1, "%s", msg)
	}
	for _, f := range files {
		var data []byte
		source := f
		cni := ""
		var docs []map[string]any
		switch {
		case f == "-":
			b, err := io.ReadAll(s.stdin)
			if err != nil {
				return s.fail(1, "error: read stdin: %v", err)
			}
			data, source = b, "STDIN"
		case strings.HasPrefix(f, "http://") || strings.HasPrefix(f, "https://"):
			u, _ := url.Parse(f)
			_ = applyDNS(st, s.host.Host, s.root)
			if broken, ns := dnsBroken(st, s.host.Host, s.root); broken {
				return s.fail(1, "error: unable to read URL %q, server reported %s, status code=0: Get %q: dial tcp: lookup %s on %s:53: i/o timeout", f, "", f, u.Hostname(), ns)
			}
			cni = cniOf(f)
			if docs = knownManifest(cni); docs == nil {
				return s.fail(1, "error: unable to read URL %q: Get %q: dial tcp: lookup %s: no such host (cp-hostsim knows the calico, cilium and flannel manifests by URL; apply other manifests from a file)", f, f, u.Hostname())
			}
		default:
			b, err := s.readHostFile(f)
			if err != nil {
				return s.fail(1, "error: the path %q does not exist", f)
			}
			data = b
		}
		if docs == nil {
			var err error
			if docs, err = decodeManifests(data); err != nil {
				return s.fail(1, "error: error parsing %s: %v", source, err)
			}
			if len(docs) == 0 {
				return s.fail(1, "error: no objects passed to %s", verb)
			}
			cni = cniOf(f)
			if c := cniOf(string(data[:min(len(data), 4096)])); cni == "" && c != "" && strings.Contains(string(data), "DaemonSet") {
				cni = c
			}
		}
		var names []string
		for _, doc := range docs {
			line, code := s.applyDoc(st, p, verb, source, doc, dry)
			if code != 0 {
				return code
			}
			s.printf("%s\n", line)
			names = append(names, strings.Fields(line)[0])
		}
		if dry {
			continue
		}
		if cni != "" {
			st.CNI = cni
		}
		st.Manifests = append(st.Manifests, Manifest{Source: f, CNI: cni, Objects: names, At: s.now()})
	}
	return 0
}

// applyDoc applies one object and returns kubectl's line for it.
func (s *sim) applyDoc(st *State, p flags, verb, source string, doc map[string]any, dry bool) (string, int) {
	kind, _ := doc["kind"].(string)
	meta, _ := doc["metadata"].(map[string]any)
	metaNS, _ := meta["namespace"].(string)
	flagNS := firstNonEmpty(p.get("n"), p.get("namespace"))
	if metaNS != "" && flagNS != "" && metaNS != flagNS {
		return "", s.fail(1, "error: the namespace from the provided object %q does not match the namespace %q. You must pass '--namespace=%s' to perform this operation.", metaNS, flagNS, metaNS)
	}
	ns := firstNonEmpty(metaNS, flagNS, "default")
	if kind == "Namespace" {
		name, _ := meta["name"].(string)
		if name == "" {
			return "", s.fail(1, "error: error when creating %q: resource name may not be empty", source)
		}
		action := "created"
		if slices.Contains(st.Namespaces, name) {
			if verb == "create" {
				return "", s.fail(1, "Error from server (AlreadyExists): error when creating %q: namespaces %q already exists", source, name)
			}
			action = "unchanged"
		} else if !dry {
			st.Namespaces = append(st.Namespaces, name)
			sort.Strings(st.Namespaces)
		}
		return "namespace/" + name + " " + action + dryNote(dry), 0
	}
	o, err := newObject(doc, ns, s.now())
	if err != nil {
		return "", s.fail(1, "error: %s %q: %v", "error when creating", source, err)
	}
	r := o.res()
	if r.Namespaced && !slices.Contains(st.Namespaces, o.Namespace) {
		return "", s.fail(1, "Error from server (NotFound): error when creating %q: namespaces %q not found", source, o.Namespace)
	}
	old := s.findObject(st, r, o.Namespace, o.Name)
	action := "created"
	switch {
	case old != nil && verb == "create":
		return "", s.fail(1, "Error from server (AlreadyExists): error when creating %q: %s %q already exists", source, r.qualified(), o.Name)
	case old != nil && old.builtin:
		return r.ref() + "/" + o.Name + " unchanged", 0
	case old != nil && sameContent(old, o):
		action = "unchanged"
	case old != nil:
		if o.Kind == "Job" && fmt.Sprint(old.body()["spec"]) != fmt.Sprint(o.body()["spec"]) {
			return "", s.fail(1, "The Job %q is invalid: spec.template: Invalid value: core.PodTemplateSpec{...}: field is immutable", o.Name)
		}
		action = "configured"
		o.Created, o.Generation, o.Release = old.Created, old.Generation+1, old.Release
	}
	if !dry && action != "unchanged" {
		st.putObject(o)
	}
	return r.ref() + "/" + o.Name + " " + action + dryNote(dry), 0
}

func dryNote(dry bool) string {
	if dry {
		return " (dry run)"
	}
	return ""
}

// kubectlGetObjects lists stored objects of a resource type.
func (s *sim) kubectlGetObjects(st *State, p flags, kindArg string, names []string) int {
	r, ok := lookupRes(kindArg)
	if !ok {
		return s.fail(1, "error: the server doesn't have a resource type %q", kindArg)
	}
	ns := s.namespace(p)
	allNS := p.has("A", "all-namespaces")
	sel := p.get("l", "selector")
	var items []map[string]any
	var rows [][]string
	header := append([]string{"NAME"}, tableColumns(r)...)
	if allNS && r.Namespaced {
		header = append([]string{"NAMESPACE"}, header...)
	}
	for _, o := range s.objects(st) {
		if o.res().qualified() != r.qualified() || (r.Namespaced && !allNS && o.Namespace != ns) {
			continue
		}
		if len(names) > 0 && !slices.Contains(names, o.Name) {
			continue
		}
		if sel != "" && !labelsMatch(o.Labels, sel) {
			continue
		}
		m := s.objectMap(st, o)
		items = append(items, m)
		row := append([]string{o.Name}, s.tableRow(st, r, o, m)...)
		if allNS && r.Namespaced {
			row = append([]string{o.Namespace}, row...)
		}
		rows = append(rows, row)
	}
	for _, want := range names {
		found := false
		for _, it := range items {
			found = found || str(it, "metadata", "name") == want
		}
		if !found {
			return s.fail(1, "Error from server (NotFound): %s %q not found", r.qualified(), want)
		}
	}
	if len(items) == 0 && firstNonEmpty(p.get("o"), p.get("output")) == "" {
		if r.Namespaced && !allNS {
			return s.fail(0, "No resources found in %s namespace.", ns)
		}
		return s.fail(0, "No resources found")
	}
	return s.printObjects(p, r.Plural, header, rows, items, len(names) == 1)
}

func tableColumns(r resType) []string {
	switch r.Kind {
	case "Deployment":
		return []string{"READY", "UP-TO-DATE", "AVAILABLE", "AGE"}
	case "StatefulSet":
		return []string{"READY", "AGE"}
	case "DaemonSet":
		return []string{"DESIRED", "CURRENT", "READY", "UP-TO-DATE", "AVAILABLE", "NODE SELECTOR", "AGE"}
	case "Job":
		return []string{"STATUS", "COMPLETIONS", "DURATION", "AGE"}
	case "CronJob":
		return []string{"SCHEDULE", "TIMEZONE", "SUSPEND", "ACTIVE", "LAST SCHEDULE", "AGE"}
	case "Secret":
		return []string{"TYPE", "DATA", "AGE"}
	case "ConfigMap":
		return []string{"DATA", "AGE"}
	case "Service":
		return []string{"TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE"}
	case "StorageClass":
		return []string{"PROVISIONER", "RECLAIMPOLICY", "VOLUMEBINDINGMODE", "ALLOWVOLUMEEXPANSION", "AGE"}
	}
	return []string{"AGE"}
}

func (s *sim) tableRow(st *State, r resType, o *Object, m map[string]any) []string {
	a := age(s.now(), o.Created)
	status := asMap(m["status"])
	spec := asMap(m["spec"])
	n := func(v any) string { return fmt.Sprint(num(v, 0)) }
	switch r.Kind {
	case "Deployment":
		want := n(spec["replicas"])
		return []string{n(status["readyReplicas"]) + "/" + want, n(status["updatedReplicas"]), n(status["availableReplicas"]), a}
	case "StatefulSet":
		return []string{n(status["readyReplicas"]) + "/" + n(spec["replicas"]), a}
	case "DaemonSet":
		d := n(status["desiredNumberScheduled"])
		return []string{d, d, n(status["numberReady"]), d, n(status["numberAvailable"]), "<none>", a}
	case "Job":
		c := num(spec["completions"], 1)
		if num(status["succeeded"], 0) >= c {
			return []string{"Complete", fmt.Sprintf("%d/%d", c, c), "1s", a}
		}
		return []string{"Running", fmt.Sprintf("0/%d", c), a, a}
	case "CronJob":
		return []string{fmt.Sprint(spec["schedule"]), "<none>", "False", "0", "<none>", a}
	case "Secret":
		return []string{fmt.Sprint(m["type"]), fmt.Sprint(len(asMap(m["data"]))), a}
	case "ConfigMap":
		return []string{fmt.Sprint(len(asMap(m["data"]))), a}
	case "Service":
		ip := fmt.Sprint(spec["clusterIP"])
		if spec["clusterIP"] == nil {
			ip = "10.96." + fmt.Sprint(len(o.Name)%250) + "." + fmt.Sprint(10+len(o.Namespace)%240)
		}
		var ports []string
		for _, pt := range asList(spec["ports"]) {
			pm := asMap(pt)
			ports = append(ports, fmt.Sprintf("%d/%s", num(pm["port"], 0), firstNonEmpty(fmt.Sprint(pm["protocol"]), "TCP")))
		}
		return []string{firstNonEmpty(str(spec, "type"), "ClusterIP"), ip, "<none>", firstNonEmpty(strings.Join(ports, ","), "<none>"), a}
	case "StorageClass":
		return []string{str(m, "provisioner"), firstNonEmpty(str(m, "reclaimPolicy"), "Delete"), firstNonEmpty(str(m, "volumeBindingMode"), "Immediate"), fmt.Sprint(m["allowVolumeExpansion"] == true), a}
	}
	return []string{a}
}

// kubectlDeleteObjects deletes stored objects by name.
func (s *sim) kubectlDeleteObjects(st *State, p flags, kindArg string, names []string) int {
	r, ok := lookupRes(kindArg)
	if !ok {
		return s.fail(1, "error: the server doesn't have a resource type %q", kindArg)
	}
	if len(names) == 0 {
		return s.fail(1, "error: resource(s) were provided, but no name was specified")
	}
	ns := s.namespace(p)
	for _, name := range names {
		o := s.findObject(st, r, ns, name)
		if o == nil {
			if p.has("ignore-not-found") {
				continue
			}
			return s.fail(1, "Error from server (NotFound): %s %q not found", r.qualified(), name)
		}
		if o.builtin {
			return s.fail(1, "cp-hostsim kubectl delete: %s/%s is created by kubeadm; deleting it is not simulated", r.ref(), name)
		}
		delete(st.Objects, objKey(r, ns, name))
		s.printf("%s %q deleted\n", r.ref(), name)
	}
	return 0
}

// deleteNamespaceObjects removes what a deleted namespace held.
func (st *State) deleteNamespaceObjects(ns string) {
	for k, o := range st.Objects {
		if o.Namespace == ns {
			delete(st.Objects, k)
		}
	}
}

// waitObjects checks kubectl wait --for=condition=X|delete on stored objects.
func (s *sim) waitObjects(st *State, p flags, kindArg string, names []string) (bool, string, string) {
	r, ok := lookupRes(kindArg)
	if !ok {
		return false, "", fmt.Sprintf("error: the server doesn't have a resource type %q", kindArg)
	}
	cond := p.get("for")
	ns := s.namespace(p)
	if p.has("all") || p.has("l", "selector") {
		names = nil
		for _, o := range s.objects(st) {
			sel := p.get("l", "selector")
			if o.res().qualified() == r.qualified() && (!r.Namespaced || o.Namespace == ns) && (sel == "" || labelsMatch(o.Labels, sel)) {
				names = append(names, o.Name)
			}
		}
		if len(names) == 0 {
			return false, "", "error: no matching resources found"
		}
	}
	if len(names) == 0 {
		return false, "", "error: resource(s) were provided, but no name was specified"
	}
	var ok2 strings.Builder
	var pending []string
	for _, name := range names {
		o := s.findObject(st, r, ns, name)
		if cond == "delete" {
			if o != nil {
				pending = append(pending, r.qualified()+"/"+name)
			} else {
				fmt.Fprintf(&ok2, "%s/%s condition met\n", r.ref(), name)
			}
			continue
		}
		if o == nil {
			return false, "", fmt.Sprintf("Error from server (NotFound): %s %q not found", r.qualified(), name)
		}
		c, isCond := strings.CutPrefix(cond, "condition=")
		if !isCond {
			return false, "", fmt.Sprintf("cp-hostsim kubectl wait: --for=%s is not simulated (condition=TYPE[=STATUS], delete)", cond)
		}
		typ, want, hasWant := strings.Cut(c, "=")
		if !hasWant {
			want = "True"
		}
		if s.hasCondition(st, o, typ, want) {
			fmt.Fprintf(&ok2, "%s/%s condition met\n", r.ref(), name)
		} else {
			pending = append(pending, r.qualified()+"/"+name)
		}
	}
	if len(pending) > 0 {
		return false, pending[0], ""
	}
	return true, ok2.String(), ""
}

// rolloutObject checks kubectl rollout status TYPE/NAME on stored objects.
func (s *sim) rolloutObject(st *State, p flags, target string) (bool, string, string) {
	kind, name, ok := strings.Cut(target, "/")
	if !ok {
		kind, name = target, p.arg(3)
	}
	r, found := lookupRes(kind)
	if !found || (r.Kind != "Deployment" && r.Kind != "StatefulSet" && r.Kind != "DaemonSet") {
		return false, "", fmt.Sprintf("error: no status viewer has been implemented for %s", kind)
	}
	o := s.findObject(st, r, s.namespace(p), name)
	if o == nil {
		return false, "", fmt.Sprintf("Error from server (NotFound): %s %q not found", r.qualified(), name)
	}
	if !s.objectReady(st, o) {
		return false, "", ""
	}
	switch r.Kind {
	case "StatefulSet":
		return true, fmt.Sprintf("partitioned roll out complete: %d new pods have been updated...\n", num(mapAt(o.body(), "spec")["replicas"], 1)), ""
	case "DaemonSet":
		return true, fmt.Sprintf("daemon set %q successfully rolled out\n", name), ""
	}
	return true, fmt.Sprintf("deployment %q successfully rolled out\n", name), ""
}
