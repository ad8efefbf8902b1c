package hostsim

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Object is a Kubernetes object kept by the simulated API server
// (everything but nodes, pods and namespaces, which are modelled apart).
// Its status is not stored: it is computed when read, from the nodes,
// the faults and the other objects (see objectStatus).
type Object struct {
	APIVersion string            `json:"apiVersion"`
	Kind       string            `json:"kind"`
	Namespace  string            `json:"namespace,omitempty"`
	Name       string            `json:"name"`
	Labels     map[string]string `json:"labels,omitempty"`
	// Body holds the manifest's other top-level fields (spec, data, type...).
	Body       map[string]any `json:"body,omitempty"`
	Created    time.Time      `json:"created"`
	Generation int            `json:"generation"`
	// Release is "namespace/name" of the Helm release that created it.
	Release string `json:"release,omitempty"`
	// Builtin objects are those kubeadm creates; they cannot be deleted.
	builtin bool
}

// resType is a resource type kubectl knows.
type resType struct {
	Plural, Singular, Kind, Group, Version string
	Namespaced                             bool
}

// resTypes are the kinds the builtin packs create, read or delete
// (their own manifests, Helm releases, kubeadm's and the CNIs' objects);
// other kinds get kubectl's default plural and are namespaced.
var resTypes = []resType{
	{"configmaps", "configmap", "ConfigMap", "", "v1", true},
	{"cronjobs", "cronjob", "CronJob", "batch", "v1", true},
	{"daemonsets", "daemonset", "DaemonSet", "apps", "v1", true},
	{"deployments", "deployment", "Deployment", "apps", "v1", true},
	{"jobs", "job", "Job", "batch", "v1", true},
	{"persistentvolumeclaims", "persistentvolumeclaim", "PersistentVolumeClaim", "", "v1", true},
	{"poddisruptionbudgets", "poddisruptionbudget", "PodDisruptionBudget", "policy", "v1", true},
	{"secrets", "secret", "Secret", "", "v1", true},
	{"serviceaccounts", "serviceaccount", "ServiceAccount", "", "v1", true},
	{"services", "service", "Service", "", "v1", true},
	{"statefulsets", "statefulset", "StatefulSet", "apps", "v1", true},
	{"storageclasses", "storageclass", "StorageClass", "storage.k8s.io", "v1", false},
}

// lookupRes finds a resource type by the names kubectl accepts: plural,
// singular or kind, optionally qualified by group (deployments.apps).
func lookupRes(name string) (resType, bool) {
	name = strings.ToLower(name)
	base, group, _ := strings.Cut(name, ".")
	if base == "pdb" { // kubectl's short name
		base = "poddisruptionbudgets"
	}
	for _, r := range resTypes {
		if group != "" && group != r.Group {
			continue
		}
		if base == r.Plural || base == r.Singular {
			return r, true
		}
	}
	return resType{}, false
}

// resForKind is the resource type of a manifest's apiVersion and kind;
// unknown kinds (custom resources) get kubectl's default plural.
func resForKind(apiVersion, kind string) resType {
	group, version, ok := strings.Cut(apiVersion, "/")
	if !ok {
		group, version = "", apiVersion
	}
	for _, r := range resTypes {
		if r.Kind == kind && r.Group == group {
			return r
		}
	}
	singular := strings.ToLower(kind)
	plural := singular + "s"
	if strings.HasSuffix(singular, "s") {
		plural = singular + "es"
	} else if strings.HasSuffix(singular, "y") {
		plural = strings.TrimSuffix(singular, "y") + "ies"
	}
	return resType{Plural: plural, Singular: singular, Kind: kind, Group: group, Version: version, Namespaced: true}
}

// qualified is the name kubectl uses in errors: deployments.apps, secrets.
func (r resType) qualified() string {
	if r.Group == "" {
		return r.Plural
	}
	return r.Plural + "." + r.Group
}

// ref is the prefix of -o name: deployment.apps, secret.
func (r resType) ref() string {
	if r.Group == "" {
		return r.Singular
	}
	return r.Singular + "." + r.Group
}

func objKey(r resType, ns, name string) string {
	if !r.Namespaced {
		ns = ""
	}
	return r.qualified() + "/" + ns + "/" + name
}

func (o *Object) res() resType { return resForKind(o.APIVersion, o.Kind) }

// body is a JSON-typed copy of the object's body (never nil).
func (o *Object) body() map[string]any {
	if m := asMap(toJSONValue(o.Body)); m != nil {
		return m
	}
	return map[string]any{}
}

// objects lists the builtin objects of a cluster and the stored ones,
// sorted by resource, namespace and name.
func (s *sim) objects(st *State) []*Object {
	var out []*Object
	if st.API != nil {
		out = append(out, builtinObjects(st)...)
	}
	for _, o := range st.Objects {
		out = append(out, o)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		if a.Namespace != b.Namespace {
			return a.Namespace < b.Namespace
		}
		return a.Name < b.Name
	})
	return out
}

// builtinObjects are what kubeadm init creates besides nodes and pods.
func builtinObjects(st *State) []*Object {
	at := st.API.Since
	ks := "kube-system"
	lbl := func(k, v string) map[string]string { return map[string]string{k: v} }
	return []*Object{
		{APIVersion: "apps/v1", Kind: "Deployment", Namespace: ks, Name: "coredns", Labels: lbl("k8s-app", "kube-dns"), Created: at, Generation: 1, builtin: true,
			Body: map[string]any{"spec": map[string]any{"replicas": 2.0, "selector": map[string]any{"matchLabels": map[string]any{"k8s-app": "kube-dns"}},
				"template": map[string]any{"spec": map[string]any{"containers": []any{map[string]any{"name": "coredns", "image": "registry.k8s.io/coredns/coredns:v1.11.3"}}}}}}},
		{APIVersion: "apps/v1", Kind: "DaemonSet", Namespace: ks, Name: "kube-proxy", Labels: lbl("k8s-app", "kube-proxy"), Created: at, Generation: 1, builtin: true,
			Body: map[string]any{"spec": map[string]any{"template": map[string]any{"spec": map[string]any{"hostNetwork": true}}}}},
		{APIVersion: "v1", Kind: "Service", Namespace: ks, Name: "kube-dns", Labels: lbl("k8s-app", "kube-dns"), Created: at, Generation: 1, builtin: true,
			Body: map[string]any{"spec": map[string]any{"clusterIP": "10.96.0.10", "type": "ClusterIP", "ports": []any{map[string]any{"name": "dns", "port": 53.0, "protocol": "UDP"}}}}},
		{APIVersion: "v1", Kind: "Service", Namespace: "default", Name: "kubernetes", Created: at, Generation: 1, builtin: true,
			Body: map[string]any{"spec": map[string]any{"clusterIP": "10.96.0.1", "type": "ClusterIP", "ports": []any{map[string]any{"name": "https", "port": 443.0, "protocol": "TCP"}}}}},
		{APIVersion: "v1", Kind: "ConfigMap", Namespace: ks, Name: "kubeadm-config", Created: at, Generation: 1, builtin: true,
			Body: map[string]any{"data": map[string]any{"ClusterConfiguration": "apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\nkubernetesVersion: " + st.API.Version + "\ncontrolPlaneEndpoint: " + st.API.Endpoint + "\n"}}},
		{APIVersion: "v1", Kind: "ConfigMap", Namespace: ks, Name: "coredns", Created: at, Generation: 1, builtin: true,
			Body: map[string]any{"data": map[string]any{"Corefile": ".:53 {\n    errors\n    health\n    kubernetes cluster.local in-addr.arpa ip6.arpa\n    forward . /etc/resolv.conf\n    cache 30\n}\n"}}},
	}
}

// findObject returns the object of type r named name in ns.
func (s *sim) findObject(st *State, r resType, ns, name string) *Object {
	if o := st.Objects[objKey(r, ns, name)]; o != nil {
		return o
	}
	if st.API != nil {
		for _, o := range builtinObjects(st) {
			if o.res().qualified() == r.qualified() && o.Name == name && (!r.Namespaced || o.Namespace == ns) {
				return o
			}
		}
	}
	return nil
}

func (st *State) putObject(o *Object) {
	if st.Objects == nil {
		st.Objects = map[string]*Object{}
	}
	st.Objects[objKey(o.res(), o.Namespace, o.Name)] = o
}

// objectMap renders an object as the API server returns it.
func (s *sim) objectMap(st *State, o *Object) map[string]any {
	m := map[string]any{}
	for k, v := range o.body() {
		m[k] = v
	}
	meta := map[string]any{"name": o.Name, "creationTimestamp": o.Created.UTC().Format(time.RFC3339),
		"uid": uid(o.Kind + "/" + o.Namespace + "/" + o.Name + o.Created.String()), "generation": o.Generation, "resourceVersion": fmt.Sprint(1000 + o.Generation)}
	if o.Namespace != "" {
		meta["namespace"] = o.Namespace
	}
	if len(o.Labels) > 0 {
		l := map[string]any{}
		for k, v := range o.Labels {
			l[k] = v
		}
		meta["labels"] = l
	}
	if o.Release != "" {
		_, rel, _ := strings.Cut(o.Release, "/")
		ns, _, _ := strings.Cut(o.Release, "/")
		meta["annotations"] = map[string]any{"meta.helm.sh/release-name": rel, "meta.helm.sh/release-namespace": ns}
	}
	m["apiVersion"], m["kind"], m["metadata"] = o.APIVersion, o.Kind, meta
	if status := s.objectStatus(st, o); status != nil {
		m["status"] = status
	}
	return m
}

// uid is a stable UUID-shaped id.
func uid(s string) string {
	h := shortHash(s) + shortHash(s+"1") + shortHash(s+"2") + shortHash(s+"3") + shortHash(s+"4") + shortHash(s+"5") + shortHash(s+"6")
	var b strings.Builder
	for i, c := range []byte(h)[:32] {
		if i == 8 || i == 12 || i == 16 || i == 20 {
			b.WriteByte('-')
		}
		b.WriteByte("0123456789abcdef"[int(c)%16])
	}
	return b.String()
}

func num(v any, def int) int {
	switch n := v.(type) {
	case float64:
		return int(n)
	case int:
		return n
	}
	return def
}

func mapAt(m map[string]any, path ...string) map[string]any {
	cur := m
	for _, p := range path {
		next, ok := cur[p].(map[string]any)
		if !ok {
			return nil
		}
		cur = next
	}
	return cur
}

// podTemplate is the pod spec a workload runs.
func podTemplate(o *Object) map[string]any {
	body := o.body()
	switch o.Kind {
	case "CronJob":
		return mapAt(body, "spec", "jobTemplate", "spec", "template", "spec")
	}
	return mapAt(body, "spec", "template", "spec")
}

// podBlocker says why a workload's pods cannot run ("" when they can): no
// Ready node to schedule on, a Secret or ConfigMap it references missing
// from its namespace (CreateContainerConfigError), or images that cannot
// be pulled on any Ready node (ImagePullBackOff).
func (s *sim) podBlocker(st *State, o *Object) string {
	spec := podTemplate(o)
	hostNet := spec != nil && spec["hostNetwork"] == true
	var ready []*Node
	for _, n := range sortedNodes(st) {
		if s.nodeReady(st, n) || (hostNet && st.host(n.Host).Services["kubelet.service"] != nil && st.host(n.Host).Services["kubelet.service"].Active) {
			ready = append(ready, n)
		}
	}
	if len(ready) == 0 {
		return "Unschedulable: 0/" + itoa(len(st.Nodes)) + " nodes are available"
	}
	if spec == nil {
		return ""
	}
	for _, ref := range podRefs(spec) {
		kind, name, _ := strings.Cut(ref, "/")
		r, _ := lookupRes(kind)
		if s.findObject(st, r, o.Namespace, name) == nil {
			return fmt.Sprintf("CreateContainerConfigError: %s %q not found", kind, name)
		}
	}
	pull := false
	for _, n := range ready {
		if _, faulty := st.fault(FaultImagePull, n.Host); !faulty || st.host(n.Host).MirrorConfigured {
			pull = true
		}
	}
	if !pull {
		return "ImagePullBackOff: failed to pull image: dial tcp: i/o timeout"
	}
	return ""
}

// podRefs lists the non-optional Secrets and ConfigMaps a pod spec uses,
// as "secret/NAME" or "configmap/NAME".
func podRefs(spec map[string]any) []string {
	var out []string
	add := func(kind string, m map[string]any, key string) {
		if m == nil || m["optional"] == true {
			return
		}
		if n, _ := m[key].(string); n != "" {
			out = append(out, kind+"/"+n)
		}
	}
	for _, v := range asList(spec["volumes"]) {
		vm, _ := v.(map[string]any)
		add("secret", mapAt(vm, "secret"), "secretName")
		add("configmap", mapAt(vm, "configMap"), "name")
	}
	for _, key := range []string{"initContainers", "containers"} {
		for _, c := range asList(spec[key]) {
			cm, _ := c.(map[string]any)
			for _, e := range asList(cm["env"]) {
				em, _ := e.(map[string]any)
				add("secret", mapAt(em, "valueFrom", "secretKeyRef"), "name")
				add("configmap", mapAt(em, "valueFrom", "configMapKeyRef"), "name")
			}
			for _, e := range asList(cm["envFrom"]) {
				em, _ := e.(map[string]any)
				add("secret", mapAt(em, "secretRef"), "name")
				add("configmap", mapAt(em, "configMapRef"), "name")
			}
		}
	}
	return out
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

// objectStatus computes the status the controllers would have written.
// Workloads become ready at once when their pods can run (podBlocker).
func (s *sim) objectStatus(st *State, o *Object) map[string]any {
	body := o.body()
	spec, _ := body["spec"].(map[string]any)
	since := o.Created.UTC().Format(time.RFC3339)
	cond := func(typ, status, reason, msg string) map[string]any {
		return map[string]any{"type": typ, "status": status, "reason": reason, "message": msg, "lastTransitionTime": since, "lastUpdateTime": since}
	}
	switch o.Kind {
	case "Deployment", "StatefulSet":
		replicas := num(spec["replicas"], 1)
		st2 := map[string]any{"observedGeneration": o.Generation, "replicas": replicas, "updatedReplicas": replicas}
		blocked := s.podBlocker(st, o)
		if blocked == "" {
			st2["readyReplicas"], st2["availableReplicas"] = replicas, replicas
			if o.Kind == "StatefulSet" {
				st2["currentReplicas"] = replicas
			}
		} else if o.Kind == "Deployment" {
			st2["unavailableReplicas"] = replicas
		}
		if o.Kind == "Deployment" {
			if blocked == "" {
				st2["conditions"] = []any{cond("Available", "True", "MinimumReplicasAvailable", "Deployment has minimum availability."),
					cond("Progressing", "True", "NewReplicaSetAvailable", "ReplicaSet has successfully progressed.")}
			} else {
				st2["conditions"] = []any{cond("Available", "False", "MinimumReplicasUnavailable", "Deployment does not have minimum availability: "+blocked),
					cond("Progressing", "True", "ReplicaSetUpdated", "ReplicaSet is progressing.")}
			}
		}
		return st2
	case "DaemonSet":
		desired, ready := len(st.Nodes), 0
		if s.podBlocker(st, o) == "" {
			for _, n := range st.Nodes {
				if s.nodeReady(st, n) || (podTemplate(o) != nil && podTemplate(o)["hostNetwork"] == true) {
					ready++
				}
			}
		}
		return map[string]any{"observedGeneration": o.Generation, "desiredNumberScheduled": desired, "currentNumberScheduled": desired,
			"numberReady": ready, "numberAvailable": ready, "updatedNumberScheduled": desired}
	case "Job":
		completions := num(spec["completions"], 1)
		if blocked := s.podBlocker(st, o); blocked != "" {
			return map[string]any{"active": 1, "ready": 0, "startTime": since, "uncountedTerminatedPods": map[string]any{}}
		}
		return map[string]any{"succeeded": completions, "ready": 0, "startTime": since, "completionTime": since, "uncountedTerminatedPods": map[string]any{},
			"conditions": []any{cond("SuccessCriteriaMet", "True", "CompletionsReached", "Reached expected number of succeeded pods"),
				cond("Complete", "True", "CompletionsReached", "Reached expected number of succeeded pods")}}
	case "CronJob":
		return map[string]any{}
	case "PodDisruptionBudget":
		return s.pdbStatus(st, o)
	case "PersistentVolumeClaim":
		// Bound when the StorageClass it names exists or, naming none,
		// when the cluster has a StorageClass (the simulated Longhorn is
		// the default, as its chart makes it); Pending otherwise.
		want, _ := spec["storageClassName"].(string)
		for _, c := range s.objects(st) {
			if c.Kind == "StorageClass" && (want == "" || c.Name == want) {
				return map[string]any{"phase": "Bound", "accessModes": spec["accessModes"]}
			}
		}
		return map[string]any{"phase": "Pending"}
	}
	return nil
}

// objectReady reports whether a workload finished rolling out.
func (s *sim) objectReady(st *State, o *Object) bool {
	switch o.Kind {
	case "Deployment", "StatefulSet", "DaemonSet", "Job":
		return s.podBlocker(st, o) == ""
	}
	return true
}

// hasCondition reports whether the object's status has condition typ with
// status want (case-insensitive, like kubectl wait).
func (s *sim) hasCondition(st *State, o *Object, typ, want string) bool {
	status := s.objectStatus(st, o)
	for _, c := range asList(asMap(toJSONValue(status))["conditions"]) {
		cm, _ := c.(map[string]any)
		if strings.EqualFold(fmt.Sprint(cm["type"]), typ) && strings.EqualFold(fmt.Sprint(cm["status"]), want) {
			return true
		}
	}
	return false
}

// decodeManifests reads a YAML (multi-document) or JSON stream into
// objects, expanding kind: List.
func decodeManifests(data []byte) ([]map[string]any, error) {
	var docs []map[string]any
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	for {
		var doc map[string]any
		err := dec.Decode(&doc)
		if err != nil {
			if err.Error() == "EOF" {
				break
			}
			return nil, fmt.Errorf("error converting YAML to JSON: %v", err)
		}
		if doc == nil {
			continue
		}
		doc = toJSONValue(doc).(map[string]any)
		if kind, _ := doc["kind"].(string); strings.HasSuffix(kind, "List") && doc["items"] != nil {
			for _, it := range asList(doc["items"]) {
				if m, ok := it.(map[string]any); ok {
					docs = append(docs, m)
				}
			}
			continue
		}
		docs = append(docs, doc)
	}
	return docs, nil
}

// newObject builds an object from a manifest; ns is the namespace kubectl
// would use. Secrets get stringData folded into data, as the API does.
func newObject(doc map[string]any, ns string, now time.Time) (*Object, error) {
	api, _ := doc["apiVersion"].(string)
	kind, _ := doc["kind"].(string)
	meta, _ := doc["metadata"].(map[string]any)
	name, _ := meta["name"].(string)
	if api == "" || kind == "" {
		return nil, fmt.Errorf("error validating data: [apiVersion not set, kind not set]")
	}
	if name == "" {
		return nil, fmt.Errorf("error when creating: resource name may not be empty")
	}
	r := resForKind(api, kind)
	o := &Object{APIVersion: api, Kind: kind, Name: name, Created: now, Generation: 1, Body: map[string]any{}}
	if r.Namespaced {
		o.Namespace = ns
	}
	for k, v := range asMap(meta["labels"]) {
		if o.Labels == nil {
			o.Labels = map[string]string{}
		}
		o.Labels[k] = fmt.Sprint(v)
	}
	for k, v := range doc {
		switch k {
		case "apiVersion", "kind", "metadata", "status":
			continue
		}
		o.Body[k] = v
	}
	if kind == "Secret" {
		data, _ := o.Body["data"].(map[string]any)
		if data == nil {
			data = map[string]any{}
		}
		for k, v := range asMap(o.Body["stringData"]) {
			data[k] = base64.StdEncoding.EncodeToString([]byte(fmt.Sprint(v)))
		}
		delete(o.Body, "stringData")
		if len(data) > 0 {
			o.Body["data"] = data
		}
		if o.Body["type"] == nil {
			o.Body["type"] = "Opaque"
		}
	}
	return o, nil
}

func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// sameContent reports whether two objects have the same labels and body.
func sameContent(a, b *Object) bool {
	lab := func(m map[string]string) map[string]string {
		if len(m) == 0 {
			return nil
		}
		return m
	}
	ja, _ := json.Marshal([]any{lab(a.Labels), a.body()})
	jb, _ := json.Marshal([]any{lab(b.Labels), b.body()})
	return string(ja) == string(jb)
}

// helmFullname is the usual chart fullname: the release name when it
// contains the chart name, else release-chart.
func helmFullname(release, chart string) string {
	if strings.Contains(release, chart) {
		return release
	}
	return release + "-" + chart
}

// releaseFullname is the release's fullname for chart: the values'
// fullnameOverride when set, as the charts' fullname helpers take it,
// else helmFullname.
func releaseFullname(r *Release, chart string) string {
	if o, ok := r.Values["fullnameOverride"].(string); ok && o != "" {
		return strings.TrimSuffix(o[:min(len(o), 63)], "-")
	}
	return helmFullname(r.Name, chart)
}

// chartBase is the chart's name from a reference (repo/name, oci://.../name, path).
func chartBase(chart string) string {
	chart = strings.TrimSuffix(chart, "/")
	if i := strings.LastIndex(chart, "/"); i >= 0 {
		chart = chart[i+1:]
	}
	chart = strings.TrimSuffix(chart, ".tgz")
	return chart
}

// releaseObjects are the objects a chart's templates would create; charts
// the builtin packs install get their main objects, others a Deployment
// and a Service named after the release.
func releaseObjects(r *Release, now time.Time) []*Object {
	name := chartBase(r.Chart)
	full := releaseFullname(r, name)
	labels := func(component string) map[string]string {
		l := map[string]string{"app.kubernetes.io/instance": r.Name, "app.kubernetes.io/managed-by": "Helm", "app.kubernetes.io/name": name}
		if r.Version != "" {
			l["helm.sh/chart"] = name + "-" + r.Version
		}
		if component != "" {
			l["app.kubernetes.io/component"] = component
		}
		return l
	}
	workload := func(kind, n, component string, hostNet bool) *Object {
		api := "apps/v1"
		spec := map[string]any{"template": map[string]any{"spec": map[string]any{"hostNetwork": hostNet, "containers": []any{map[string]any{"name": name}}}}}
		if kind != "DaemonSet" {
			spec["replicas"] = 1.0
		}
		return &Object{APIVersion: api, Kind: kind, Namespace: r.Namespace, Name: n, Labels: labels(component), Body: map[string]any{"spec": spec}}
	}
	service := func(n string, port float64) *Object {
		return &Object{APIVersion: "v1", Kind: "Service", Namespace: r.Namespace, Name: n, Labels: labels(""),
			Body: map[string]any{"spec": map[string]any{"type": "ClusterIP", "ports": []any{map[string]any{"port": port, "protocol": "TCP"}}}}}
	}
	var out []*Object
	switch name {
	case "longhorn":
		out = []*Object{
			{APIVersion: "storage.k8s.io/v1", Kind: "StorageClass", Name: "longhorn", Labels: labels(""),
				Body: map[string]any{"provisioner": "driver.longhorn.io", "reclaimPolicy": "Delete", "volumeBindingMode": "Immediate", "allowVolumeExpansion": true}},
			workload("DaemonSet", "longhorn-manager", "", false),
			workload("Deployment", "longhorn-driver-deployer", "", false),
			workload("Deployment", "longhorn-ui", "", false),
			service("longhorn-frontend", 80),
		}
	case "cilium":
		out = []*Object{workload("DaemonSet", "cilium", "agent", true), workload("Deployment", "cilium-operator", "operator", true)}
	case "tempo":
		out = []*Object{workload("StatefulSet", full, "", false), service(full, 3100)}
	case "postgresql":
		out = []*Object{workload("StatefulSet", full, "primary", false), service(full, 5432), service(full+"-hl", 5432)}
	case "minio":
		claim := map[string]any{"accessModes": []any{"ReadWriteOnce"}}
		if r.StorageClass != "" {
			claim["storageClassName"] = r.StorageClass
		}
		out = []*Object{workload("Deployment", full, "", false), service(full, 9000), service(full+"-console", 9001),
			{APIVersion: "v1", Kind: "PersistentVolumeClaim", Namespace: r.Namespace, Name: full, Labels: labels(""), Body: map[string]any{"spec": claim}}}
	default:
		out = []*Object{workload("Deployment", full, "", false), service(full, 80)}
	}
	for _, o := range out {
		o.Created, o.Generation, o.Release = now, r.Revision, r.Namespace+"/"+r.Name
		if o.res().Namespaced && o.Namespace == "" {
			o.Namespace = r.Namespace
		}
	}
	return out
}

// setReleaseObjects replaces the objects of a release (nil objects: removes them).
func (st *State) setReleaseObjects(key string, objs []*Object) {
	for k, o := range st.Objects {
		if o.Release == key {
			delete(st.Objects, k)
		}
	}
	for _, o := range objs {
		if old := st.Objects[objKey(o.res(), o.Namespace, o.Name)]; old != nil {
			o.Created = old.Created
		}
		st.putObject(o)
	}
}
