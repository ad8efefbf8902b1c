package hostsim

import (
	"encoding/json"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// helm emulates helm repo add/update/list, upgrade --install, install,
// uninstall, status, list and version.
func (s *sim) helm(args []string) int {
	p := parseFlags(args, "n", "namespace", "kubeconfig", "version", "f", "values", "set", "set-string", "timeout", "o", "output", "kube-context", "repo")
	switch p.arg(0) {
	case "version":
		if p.has("short") {
			s.printf("v%s+g13654a5\n", helmVersion)
			return 0
		}
		s.printf("version.BuildInfo{Version:\"v%s\", GitCommit:\"13654a52f7c70a143b1dd51416d633e1071faffb\", GitTreeState:\"clean\", GoVersion:\"go1.22.7\"}\n", helmVersion)
		return 0
	case "repo":
		return s.helmRepo(p)
	case "upgrade", "install", "uninstall", "delete", "status", "list", "ls":
	default:
		return s.fail(1, "cp-hostsim helm: %q is not simulated; see internal/hostsim/README.md", p.arg(0))
	}
	code := 0
	err := s.st.update(func(st *State) error {
		if msg := s.connect(st, p); msg != "" {
			code = s.fail(1, "Error: Kubernetes cluster unreachable: %s", strings.TrimPrefix(msg, "error: "))
			return nil
		}
		code = s.helmVerb(st, p)
		return nil
	})
	if err != nil {
		return s.fail(1, "cp-hostsim helm: %v", err)
	}
	return code
}

func (s *sim) helmRepo(p flags) int {
	code := 0
	err := s.st.update(func(st *State) error {
		hs := st.host(s.host.Host)
		switch p.arg(1) {
		case "add":
			name, u := p.arg(2), p.arg(3)
			_ = applyDNS(st, s.host.Host, s.root)
			if broken, ns := dnsBroken(st, s.host.Host, s.root); broken {
				code = s.fail(1, "Error: looks like %q is not a valid chart repository or cannot be reached: Get \"%s/index.yaml\": dial tcp: lookup %s on %s:53: i/o timeout", u, u, repoHost(u), ns)
				return nil
			}
			for _, r := range hs.HelmRepos {
				if n, old, _ := strings.Cut(r, "="); n == name {
					if old == u {
						s.printf("%q already exists with the same configuration, skipping\n", name)
						return nil
					}
					if !p.has("force-update") {
						code = s.fail(1, "Error: repository name (%s) already exists, please specify a different name", name)
						return nil
					}
				}
			}
			hs.HelmRepos = append(slices.DeleteFunc(hs.HelmRepos, func(r string) bool { return strings.HasPrefix(r, name+"=") }), name+"="+u)
			sort.Strings(hs.HelmRepos)
			s.printf("%q has been added to your repositories\n", name)
		case "update":
			if len(hs.HelmRepos) == 0 {
				code = s.fail(1, "Error: no repositories found. You must add one before updating")
				return nil
			}
			s.printf("Hang tight while we grab the latest from your chart repositories...\n")
			for _, r := range hs.HelmRepos {
				n, _, _ := strings.Cut(r, "=")
				s.printf("...Successfully got an update from the %q chart repository\n", n)
			}
			s.printf("Update Complete. ⎈Happy Helming!⎈\n")
		case "list", "ls":
			if len(hs.HelmRepos) == 0 {
				code = s.fail(1, "Error: no repositories to show")
				return nil
			}
			rows := [][]string{}
			for _, r := range hs.HelmRepos {
				n, u, _ := strings.Cut(r, "=")
				rows = append(rows, []string{n, u})
			}
			s.printf("%s", table([]string{"NAME", "URL"}, rows, false))
		default:
			code = s.fail(1, "cp-hostsim helm repo: %q is not simulated (add, update, list)", p.arg(1))
		}
		return nil
	})
	if err != nil {
		return s.fail(1, "cp-hostsim helm repo: %v", err)
	}
	return code
}

func (s *sim) helmVerb(st *State, p flags) int {
	ns := firstNonEmpty(p.get("n"), p.get("namespace"), "default")
	if st.Releases == nil {
		st.Releases = map[string]*Release{}
	}
	switch p.arg(0) {
	case "upgrade", "install":
		name, chart := p.arg(1), p.arg(2)
		if name == "" || chart == "" {
			return s.fail(1, "Error: \"helm %s\" requires 2 arguments", p.arg(0))
		}
		if msg := s.chartError(st, chart, p.get("repo")); msg != "" {
			return s.fail(1, "Error: %s", msg)
		}
		key := ns + "/" + name
		r, exists := st.Releases[key]
		if p.arg(0) == "install" && exists {
			return s.fail(1, "Error: INSTALLATION FAILED: cannot re-use a name that is still in use")
		}
		if p.arg(0) == "upgrade" && !exists && !p.has("install", "i") {
			return s.fail(1, "Error: UPGRADE FAILED: %q has no deployed releases", name)
		}
		if !slices.Contains(st.Namespaces, ns) {
			if !p.has("create-namespace") {
				return s.fail(1, "Error: INSTALLATION FAILED: create: failed to create: namespaces %q not found", ns)
			}
			st.Namespaces = append(st.Namespaces, ns)
			sort.Strings(st.Namespaces)
		}
		rel := &Release{Name: name, Namespace: ns, Chart: chart, Version: p.get("version"), Revision: 1}
		if exists {
			rel.Revision = r.Revision + 1
		}
		objs := releaseObjects(rel, s.now())
		if chartBase(chart) == "cilium" {
			// The agents run on the host network and make the nodes Ready.
			st.CNI = "cilium"
		}
		if p.has("wait") || p.has("atomic") {
			ready := true
			for _, o := range objs {
				ready = ready && s.objectReady(st, o)
			}
			if !ready {
				if exists {
					return s.fail(1, "Error: UPGRADE FAILED: context deadline exceeded")
				}
				st.Releases[key] = &Release{Name: name, Namespace: ns, Chart: chart, Version: p.get("version"), Revision: 1, Status: "failed", Updated: s.now()}
				return s.fail(1, "Error: INSTALLATION FAILED: context deadline exceeded")
			}
		}
		if exists && r.Status != "failed" {
			r.Revision++
			r.Chart, r.Version, r.Status, r.Updated = chart, p.get("version"), "deployed", s.now()
			s.printf("Release %q has been upgraded. Happy Helming!\n", name)
		} else {
			rev := 1
			if exists {
				rev = r.Revision + 1
			}
			r = &Release{Name: name, Namespace: ns, Chart: chart, Version: p.get("version"), Revision: rev, Status: "deployed", Updated: s.now()}
			st.Releases[key] = r
			if p.arg(0) == "upgrade" {
				s.printf("Release %q does not exist. Installing it now.\n", name)
			}
		}
		st.setReleaseObjects(key, objs)
		s.helmStatus(r)
		return 0
	case "uninstall", "delete":
		for _, name := range p.pos[1:] {
			if _, ok := st.Releases[ns+"/"+name]; !ok {
				return s.fail(1, "Error: uninstall: Release not loaded: %s: release: not found", name)
			}
			delete(st.Releases, ns+"/"+name)
			st.setReleaseObjects(ns+"/"+name, nil)
			s.printf("release %q uninstalled\n", name)
		}
		return 0
	case "status":
		r, ok := st.Releases[ns+"/"+p.arg(1)]
		if !ok {
			return s.fail(1, "Error: release: not found")
		}
		if firstNonEmpty(p.get("o"), p.get("output")) == "json" {
			b, _ := json.Marshal(map[string]any{"name": r.Name, "namespace": r.Namespace, "version": r.Revision, "info": map[string]any{"status": r.Status, "last_deployed": r.Updated}})
			s.printf("%s\n", b)
			return 0
		}
		s.helmStatus(r)
		return 0
	}
	// list
	var rels []*Release
	for _, r := range sortedReleases(st) {
		if p.has("A", "all-namespaces") || r.Namespace == ns {
			rels = append(rels, r)
		}
	}
	switch firstNonEmpty(p.get("o"), p.get("output")) {
	case "json":
		var out []map[string]any
		for _, r := range rels {
			out = append(out, map[string]any{"name": r.Name, "namespace": r.Namespace, "revision": r.Revision, "updated": r.Updated.UTC().Format("2006-01-02 15:04:05.000000000 -0700 MST"), "status": r.Status, "chart": chartName(r), "app_version": ""})
		}
		if out == nil {
			out = []map[string]any{}
		}
		b, _ := json.Marshal(out)
		s.printf("%s\n", b)
		return 0
	}
	if p.has("q", "short") {
		for _, r := range rels {
			s.printf("%s\n", r.Name)
		}
		return 0
	}
	rows := [][]string{}
	for _, r := range rels {
		rows = append(rows, []string{r.Name, r.Namespace, itoa(r.Revision), r.Updated.UTC().Format("2006-01-02 15:04:05.000000000 +0000 UTC"), r.Status, chartName(r), ""})
	}
	s.printf("%s", table([]string{"NAME", "NAMESPACE", "REVISION", "UPDATED", "STATUS", "CHART", "APP VERSION"}, rows, false))
	return 0
}

func itoa(n int) string { return strconv.Itoa(n) }

func chartName(r *Release) string {
	c := r.Chart[strings.LastIndex(r.Chart, "/")+1:]
	if r.Version != "" {
		return c + "-" + r.Version
	}
	return c
}

// chartError says why a chart reference cannot be resolved ("" if it can).
func (s *sim) chartError(st *State, chart, repoURL string) string {
	if repoURL != "" {
		chart = repoURL
	}
	switch {
	case strings.HasPrefix(chart, "oci://"), strings.HasPrefix(chart, "https://"), strings.HasPrefix(chart, "http://"):
		_ = applyDNS(st, s.host.Host, s.root)
		if broken, ns := dnsBroken(st, s.host.Host, s.root); broken {
			return "failed to do request: dial tcp: lookup " + repoHost(strings.TrimPrefix(chart, "oci://")) + " on " + ns + ":53: i/o timeout"
		}
		return ""
	case strings.HasPrefix(chart, "/") || strings.HasPrefix(chart, "./") || strings.HasPrefix(chart, "../"):
		if _, err := s.readHostFile(chart + "/Chart.yaml"); err != nil {
			if _, err2 := s.readHostFile(chart); err2 != nil {
				return "path \"" + chart + "\" not found"
			}
		}
		return ""
	}
	repo, _, ok := strings.Cut(chart, "/")
	if !ok {
		return "non-absolute URLs should be in form of repo_name/path_to_chart, got: " + chart
	}
	for _, r := range st.host(s.host.Host).HelmRepos {
		if strings.HasPrefix(r, repo+"=") {
			return ""
		}
	}
	return "repo " + repo + " not found"
}

func (s *sim) helmStatus(r *Release) {
	s.printf("NAME: %s\nLAST DEPLOYED: %s\nNAMESPACE: %s\nSTATUS: %s\nREVISION: %d\nTEST SUITE: None\n", r.Name, r.Updated.UTC().Format(time.ANSIC), r.Namespace, r.Status, r.Revision)
}
