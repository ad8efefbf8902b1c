package hostsim

import (
	"encoding/json"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

func (s *sim) helmVersion(p flags) int {
	if p.has("short") {
		s.printf("v%s+g13654a5\n", helmVersion)
		return 0
	}
	s.printf("version.BuildInfo{Version:\"v%s\", GitCommit:\"13654a52f7c70a143b1dd51416d633e1071faffb\", GitTreeState:\"clean\", GoVersion:\"go1.22.7\"}\n", helmVersion)
	return 0
}

// helmCluster wraps a helm command that talks to the cluster: its
// kubeconfig must reach the simulated API server.
func helmCluster(fn func(*sim, *State, flags) int) func(*sim, flags) int {
	return func(s *sim, p flags) int {
		code := 0
		err := s.st.update(func(st *State) error {
			if msg := s.connect(st, p); msg != "" {
				code = s.fail(1, "Error: Kubernetes cluster unreachable: %s", strings.TrimPrefix(msg, "error: "))
				return nil
			}
			if st.Releases == nil {
				st.Releases = map[string]*Release{}
			}
			code = fn(s, st, p)
			return nil
		})
		if err != nil {
			return s.fail(1, "cp-hostsim helm: %v", err)
		}
		return code
	}
}

func helmNamespace(p flags) string { return firstNonEmpty(p.get("namespace"), "default") }

// helmUpgrade is helm upgrade [--install] RELEASE CHART: CHART is a name
// in the --repo URL, an oci:// reference or the absolute path of a chart
// archive on the host (whose Chart.yaml gives the chart and version); --values files must be YAML
// maps and --set items key=value; --wait fails with "context deadline
// exceeded" unless the release's workloads are ready.
func (s *sim) helmUpgrade(st *State, p flags) int {
	name, chart := p.arg(1), p.arg(2)
	if name == "" || chart == "" {
		return s.fail(1, "Error: \"helm upgrade\" requires 2 arguments")
	}
	version := p.get("version")
	if strings.HasPrefix(chart, "/") {
		// A chart archive on the host: its Chart.yaml names the chart and
		// its version.
		b, err := s.readHostFile(chart)
		if err != nil {
			return s.fail(1, "Error: path %q not found", chart)
		}
		n, v, err := chartMeta(b)
		if err != nil {
			return s.fail(1, "Error: INSTALLATION FAILED: %v", err)
		}
		chart, version = n, v
	} else {
		if !strings.HasPrefix(chart, "oci://") && p.get("repo") == "" {
			return s.notEmulated("helm", "upgrade", chart, "(a chart without --repo URL or oci://, or an absolute path)")
		}
		if msg := s.chartError(st, firstNonEmpty(p.get("repo"), chart)); msg != "" {
			return s.fail(1, "Error: %s", msg)
		}
	}
	storageClass := ""
	var values map[string]any
	for _, f := range p.all("values") {
		b, err := s.readHostFile(f)
		if err != nil {
			return s.fail(1, "Error: open %s: no such file or directory", f)
		}
		var m map[string]any
		if err := yaml.Unmarshal(b, &m); err != nil {
			return s.fail(1, "Error: failed to parse %s: error converting YAML to JSON: %v", f, err)
		}
		if sc, ok := asMap(m["persistence"])["storageClass"].(string); ok {
			storageClass = sc
		}
		values = mergeValues(values, m)
	}
	for _, set := range p.all("set") {
		for _, kv := range strings.Split(set, ",") {
			if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
				return s.fail(1, "Error: failed parsing --set data: key %q has no value", kv)
			}
		}
	}
	if t := p.get("timeout"); t != "" {
		if _, err := time.ParseDuration(t); err != nil {
			return s.fail(1, "Error: invalid argument %q for \"--timeout\" flag: %v", t, err)
		}
	}
	ns := helmNamespace(p)
	key := ns + "/" + name
	r, exists := st.Releases[key]
	if !exists && !p.has("install") {
		return s.fail(1, "Error: UPGRADE FAILED: %q has no deployed releases", name)
	}
	if !slices.Contains(st.Namespaces, ns) {
		if !p.has("create-namespace") {
			return s.fail(1, "Error: INSTALLATION FAILED: create: failed to create: namespaces %q not found", ns)
		}
		st.Namespaces = append(st.Namespaces, ns)
		sort.Strings(st.Namespaces)
	}
	rel := &Release{Name: name, Namespace: ns, Chart: chart, Version: version, Revision: 1, Status: "deployed", Updated: s.now(),
		StorageClass: storageClass, Values: values}
	if exists {
		rel.Revision = r.Revision + 1
	}
	objs := releaseObjects(rel, s.now())
	if chartBase(chart) == "cilium" {
		// The agents run on the host network and make the nodes Ready.
		st.CNI = "cilium"
	}
	if p.has("wait") {
		for _, o := range objs {
			if !s.objectReady(st, o) {
				rel.Status = "failed"
				st.Releases[key] = rel
				if exists {
					return s.fail(1, "Error: UPGRADE FAILED: context deadline exceeded")
				}
				return s.fail(1, "Error: INSTALLATION FAILED: context deadline exceeded")
			}
		}
	}
	if exists {
		s.printf("Release %q has been upgraded. Happy Helming!\n", name)
	} else {
		s.printf("Release %q does not exist. Installing it now.\n", name)
	}
	st.Releases[key] = rel
	st.setReleaseObjects(key, objs)
	s.helmStatus(rel)
	return 0
}

func (s *sim) helmUninstall(st *State, p flags) int {
	ns := helmNamespace(p)
	for _, name := range p.pos[1:] {
		if _, ok := st.Releases[ns+"/"+name]; !ok {
			return s.fail(1, "Error: uninstall: Release not loaded: %s: release: not found", name)
		}
		delete(st.Releases, ns+"/"+name)
		st.setReleaseObjects(ns+"/"+name, nil)
		s.printf("release %q uninstalled\n", name)
	}
	return 0
}

func (s *sim) helmStatusCmd(st *State, p flags) int {
	r, ok := st.Releases[helmNamespace(p)+"/"+p.arg(1)]
	if !ok {
		return s.fail(1, "Error: release: not found")
	}
	if p.get("o") == "json" {
		b, _ := json.Marshal(map[string]any{"name": r.Name, "namespace": r.Namespace, "version": r.Revision,
			"info":  map[string]any{"status": r.Status, "last_deployed": r.Updated},
			"chart": map[string]any{"metadata": map[string]any{"name": chartBase(r.Chart), "version": r.Version}}})
		s.printf("%s\n", b)
		return 0
	}
	s.helmStatus(r)
	return 0
}

func itoa(n int) string { return strconv.Itoa(n) }

// chartError says why a chart repository (an http(s) or oci:// URL)
// cannot be reached ("" when it can).
func (s *sim) chartError(st *State, ref string) string {
	_ = applyDNS(st, s.host.Host, s.root)
	if broken, ns := dnsBroken(st, s.host.Host, s.root); broken {
		return "failed to do request: dial tcp: lookup " + repoHost(strings.TrimPrefix(ref, "oci://")) + " on " + ns + ":53: i/o timeout"
	}
	return ""
}

func (s *sim) helmStatus(r *Release) {
	s.printf("NAME: %s\nLAST DEPLOYED: %s\nNAMESPACE: %s\nSTATUS: %s\nREVISION: %d\nTEST SUITE: None\n", r.Name, r.Updated.UTC().Format(time.ANSIC), r.Namespace, r.Status, r.Revision)
}

// mergeValues merges a later --values file over the earlier ones as Helm
// does: maps key by key, any other value replaced.
func mergeValues(dst, src map[string]any) map[string]any {
	if dst == nil {
		dst = map[string]any{}
	}
	for k, v := range src {
		if sm, ok := v.(map[string]any); ok {
			if dm, ok := dst[k].(map[string]any); ok {
				dst[k] = mergeValues(dm, sm)
				continue
			}
		}
		dst[k] = v
	}
	return dst
}

// helmGetValues is helm get values RELEASE [-o json]: the user-supplied
// values (the --values files merged), as YAML under "USER-SUPPLIED
// VALUES:" or as JSON (null when none were given).
func (s *sim) helmGetValues(st *State, p flags) int {
	r, ok := st.Releases[helmNamespace(p)+"/"+p.arg(2)]
	if !ok {
		return s.fail(1, "Error: release: not found")
	}
	if p.get("o") == "json" {
		b, err := json.Marshal(r.Values)
		if err != nil {
			return s.fail(1, "Error: %v", err)
		}
		s.printf("%s\n", b)
		return 0
	}
	b, err := yaml.Marshal(r.Values)
	if err != nil {
		return s.fail(1, "Error: %v", err)
	}
	s.printf("USER-SUPPLIED VALUES:\n%s", b)
	return 0
}
