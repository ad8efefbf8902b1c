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

// printCreated prints an object created by kubectl create, or the object
// itself with -o yaml (as with --dry-run=client -o yaml).
func (s *sim) printCreated(p flags, r resType, obj map[string]any, name string, dry bool) int {
	if p.get("o") == "yaml" {
		b, _ := yaml.Marshal(obj)
		s.printf("%s", b)
		return 0
	}
	s.printf("%s/%s created%s\n", r.ref(), name, dryNote(dry))
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
	m["apiVersion"], m["kind"], m["metadata"] = o.APIVersion, o.Kind, meta
	return m
}

// kubectlCreate handles kubectl create namespace|secret generic|configmap;
// --dry-run=client prints the object without storing it.
func (s *sim) kubectlCreate(st *State, p flags) int {
	dry := p.has("dry-run")
	ns := s.namespace(p)
	var o *Object
	switch p.arg(1) {
	case "namespace":
		name := p.arg(2)
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
		return s.printCreated(p, resType{Plural: "namespaces", Singular: "namespace", Kind: "Namespace", Version: "v1"}, obj, name, dry)
	case "secret":
		data, code := s.fromSources(p, true)
		if code != 0 {
			return code
		}
		o = &Object{APIVersion: "v1", Kind: "Secret", Namespace: ns, Name: p.arg(3), Created: s.now(), Generation: 1,
			Body: map[string]any{"type": "Opaque"}}
		if len(data) > 0 {
			o.Body["data"] = data
		}
	default: // configmap
		data, code := s.fromSources(p, false)
		if code != 0 {
			return code
		}
		o = &Object{APIVersion: "v1", Kind: "ConfigMap", Namespace: ns, Name: p.arg(2), Created: s.now(), Generation: 1, Body: map[string]any{}}
		if len(data) > 0 {
			o.Body["data"] = data
		}
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
	return s.printCreated(p, r, manifestMap(o), o.Name, dry)
}

// fromSources reads --from-file=[KEY=]FILE and --from-env-file=FILE into
// data (base64 for secrets).
func (s *sim) fromSources(p flags, b64 bool) (map[string]any, int) {
	data := map[string]any{}
	put := func(k, v string) {
		if b64 {
			v = base64.StdEncoding.EncodeToString([]byte(v))
		}
		data[k] = v
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
	case "flannel":
		fl := "kube-flannel"
		return []map[string]any{{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": fl}},
			obj("v1", "ServiceAccount", fl, "flannel", nil), obj("v1", "ConfigMap", fl, "kube-flannel-cfg", nil), obj("apps/v1", "DaemonSet", fl, "kube-flannel-ds", hostNet)}
	}
	return nil
}

// kubectlApply applies the objects of -f FILE|URL|-.
func (s *sim) kubectlApply(st *State, p flags) int {
	files := p.all("f")
	if len(files) == 0 {
		return s.fail(1, "error: must specify one of -f and -k")
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
				return s.fail(1, "error: unable to read URL %q: Get %q: dial tcp: lookup %s: no such host (cp-hostsim knows the calico and flannel manifests by URL; apply other manifests from a file)", f, f, u.Hostname())
			}
		default:
			b, err := s.readHostFile(f)
			if err != nil {
				return s.fail(1, "error: the path %q does not exist", f)
			}
			data = b
			cni = cniOf(f)
		}
		if docs == nil {
			var err error
			if docs, err = decodeManifests(data); err != nil {
				return s.fail(1, "error: error parsing %s: %v", source, err)
			}
			if len(docs) == 0 {
				return s.fail(1, "error: no objects passed to apply")
			}
		}
		for _, doc := range docs {
			line, code := s.applyDoc(st, p, source, doc)
			if code != 0 {
				return code
			}
			s.printf("%s\n", line)
		}
		if cni != "" {
			st.CNI = cni
		}
	}
	return 0
}

// applyDoc applies one object and returns kubectl's line for it.
func (s *sim) applyDoc(st *State, p flags, source string, doc map[string]any) (string, int) {
	kind, _ := doc["kind"].(string)
	meta, _ := doc["metadata"].(map[string]any)
	metaNS, _ := meta["namespace"].(string)
	flagNS := p.get("n")
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
			action = "unchanged"
		} else {
			st.Namespaces = append(st.Namespaces, name)
			sort.Strings(st.Namespaces)
		}
		return "namespace/" + name + " " + action, 0
	}
	o, err := newObject(doc, ns, s.now())
	if err != nil {
		return "", s.fail(1, "error: error when creating %q: %v", source, err)
	}
	r := o.res()
	if r.Namespaced && !slices.Contains(st.Namespaces, o.Namespace) {
		return "", s.fail(1, "Error from server (NotFound): error when creating %q: namespaces %q not found", source, o.Namespace)
	}
	old := s.findObject(st, r, o.Namespace, o.Name)
	action := "created"
	switch {
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
	if action != "unchanged" {
		st.putObject(o)
		if o.Kind == "Job" {
			s.tempoIngest(st, o)
		}
	}
	return r.ref() + "/" + o.Name + " " + action, 0
}

func dryNote(dry bool) string {
	if dry {
		return " (dry run)"
	}
	return ""
}

// kubectlGetObjects prints stored objects of a resource type.
func (s *sim) kubectlGetObjects(st *State, p flags, kindArg string, names []string) int {
	r, ok := lookupRes(kindArg)
	if !ok {
		return s.fail(1, "error: the server doesn't have a resource type %q", kindArg)
	}
	ns := s.namespace(p)
	sel := p.get("l")
	var items []map[string]any
	for _, o := range s.objects(st) {
		if o.res().qualified() != r.qualified() || (r.Namespaced && o.Namespace != ns) {
			continue
		}
		if (len(names) > 0 && !slices.Contains(names, o.Name)) || (sel != "" && !labelsMatch(o.Labels, sel)) {
			continue
		}
		items = append(items, s.objectMap(st, o))
	}
	for _, want := range names {
		if !slices.ContainsFunc(items, func(it map[string]any) bool { return str(it, "metadata", "name") == want }) {
			return s.fail(1, "Error from server (NotFound): %s %q not found", r.qualified(), want)
		}
	}
	return s.printObjects(p, r.ref(), nil, nil, items, len(names) == 1)
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
			return s.notEmulated("kubectl", "delete", r.ref()+"/"+name, "(created by kubeadm)")
		}
		delete(st.Objects, objKey(r, ns, name))
		s.printf("%s %q deleted\n", r.ref(), name)
	}
	return 0
}

// waitObjects checks kubectl wait --for=condition=TYPE[=STATUS] on
// stored objects (or every object of the type in the namespace with --all).
func (s *sim) waitObjects(st *State, p flags, kindArg string, names []string) (bool, string, string) {
	r, ok := lookupRes(kindArg)
	if !ok {
		return false, "", fmt.Sprintf("error: the server doesn't have a resource type %q", kindArg)
	}
	ns := s.namespace(p)
	if p.has("all") {
		names = nil
		for _, o := range s.objects(st) {
			if o.res().qualified() == r.qualified() && (!r.Namespaced || o.Namespace == ns) {
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
	typ, want, hasWant := strings.Cut(strings.TrimPrefix(p.get("for"), "condition="), "=")
	if !hasWant {
		want = "True"
	}
	var met strings.Builder
	for _, name := range names {
		o := s.findObject(st, r, ns, name)
		if o == nil {
			return false, "", fmt.Sprintf("Error from server (NotFound): %s %q not found", r.qualified(), name)
		}
		if !s.hasCondition(st, o, typ, want) {
			return false, r.qualified() + "/" + name, ""
		}
		fmt.Fprintf(&met, "%s/%s condition met\n", r.ref(), name)
	}
	return true, met.String(), ""
}
