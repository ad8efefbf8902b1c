package packs

import (
	"strings"
	"testing"
)

// TestValidateCredentialsRegistryPort: a registry_host with a port (an
// air-gapped mirror on registry.internal:5000) is resolved by its name and
// probed on that port (https://registry.internal:5000/v2/); without a port
// it is probed on 443 (https://registry.k8s.io/v2/). A port outside 1-65535
// is refused before anything is probed.
func TestValidateCredentialsRegistryPort(t *testing.T) {
	const script, file = "kubernetes/scripts/validate-credentials.sh", "kubernetes/jobs/validate-credentials.yaml"
	for _, c := range []struct{ host, resolved, probe string }{
		{"registry.internal:5000", "registry.internal", "https://registry.internal:5000/v2/"},
		{"registry.k8s.io", "registry.k8s.io", "https://registry.k8s.io/v2/"},
	} {
		t.Run(c.host, func(t *testing.T) {
			env := packEnv(t, "kubernetes", map[string]string{"registry_host": c.host})
			h := newScriptHost(t)
			succeeded(t, h.run(script, env, "/var/lib/cp"))
			if got := h.read("/var/lib/cp/kubernetes/registry-probes"); got != c.probe+"\n" {
				t.Errorf("registry-probes = %q, want %q", got, c.probe+"\n")
			}
			if got := h.read("/var/lib/cp/kubernetes/registries-checked"); got != c.resolved+"\n" {
				t.Errorf("registries-checked = %q, want %q", got, c.resolved+"\n")
			}
			calls := h.log(h.calls)
			if want := "curl -sS --max-time 10 -o /dev/null -w %{http_code} " + c.probe + "\n"; !strings.Contains(calls, want) {
				t.Errorf("no call %q:\n%s", want, calls)
			}
			if ok, got := h.evidence(file, "registries_reachable", env, "/var/lib/cp"); !ok {
				t.Errorf("registries_reachable fails (%q)", got)
			}
			// Only the registry on that port answers: a probe of 443
			// instead would fail.
			h.stub("curl", `case "$*" in *"`+c.probe+`"*) printf 401 ;; *) printf 000; exit 7 ;; esac`)
			succeeded(t, h.run(script, env, "/var/lib/cp"))
		})
	}
	for _, bad := range []string{"registry.internal:0", "registry.internal:65536", "registry.internal:5000:1"} {
		h := newScriptHost(t)
		env := packEnv(t, "kubernetes", nil)
		env["CP_PARAM_REGISTRY_HOST"] = bad
		refused(t, h, h.run(script, env, "/var/lib/cp"), `registry_host "`+bad+`" is not a registry host name with an optional port from 1 to 65535`)
		if strings.Contains(h.log(h.calls), "curl") {
			t.Errorf("%s: a registry was probed for a refused registry_host:\n%s", bad, h.log(h.calls))
		}
	}
}
