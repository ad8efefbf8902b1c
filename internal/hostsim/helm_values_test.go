package hostsim

import (
	"reflect"
	"testing"
)

// A release keeps its --values files merged in order, maps key by key,
// as `helm get values` would show them.
func TestHelmValuesKept(t *testing.T) {
	e := newEnv(t)
	initCluster(t, e, true)
	e.write("master-1", "/root/a.yaml", "tempo:\n  retention: 24h\n  storage:\n    trace:\n      s3: {bucket: a, endpoint: \"127.0.0.1:1\"}\n")
	e.write("master-1", "/root/b.yaml", "tempo:\n  storage:\n    trace:\n      s3: {bucket: b}\n")
	e.must("master-1", "helm", "upgrade", "--install", "tempo", "tempo", "--repo", "https://grafana.github.io/helm-charts", "--namespace", "tracing",
		"--create-namespace", "--values", "/root/a.yaml", "--values", "/root/b.yaml", "--kubeconfig=/etc/kubernetes/admin.conf")
	st, err := ReadState(e.state)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"tempo": map[string]any{"retention": "24h", "storage": map[string]any{"trace": map[string]any{
		"s3": map[string]any{"bucket": "b", "endpoint": "127.0.0.1:1"}}}}}
	if got := st.Releases["tracing/tempo"].Values; !reflect.DeepEqual(got, want) {
		t.Fatalf("got: %v want: %v", got, want)
	}
}

// helm get values prints the user-supplied values of a release, as JSON
// with -o json (null without --values) or as YAML; an unknown release is
// not found.
func TestHelmGetValues(t *testing.T) {
	e := newEnv(t)
	initCluster(t, e, true)
	e.write("master-1", "/root/v.yaml", "defaultSettings:\n  taintToleration: \"node-role.kubernetes.io/control-plane:NoSchedule\"\n")
	up := func(name string, extra ...string) {
		e.must("master-1", append([]string{"helm", "upgrade", "--install", name, "longhorn", "--repo", "https://charts.longhorn.io", "--namespace", "longhorn-system",
			"--create-namespace", "--kubeconfig=/etc/kubernetes/admin.conf"}, extra...)...)
	}
	up("longhorn", "--values", "/root/v.yaml")
	up("bare")
	get := func(name string, extra ...string) result {
		return e.run("master-1", append([]string{"helm", "get", "values", name, "--namespace", "longhorn-system", "--kubeconfig", "/etc/kubernetes/admin.conf"}, extra...)...)
	}
	if r := get("longhorn", "-o", "json"); r.code != 0 || r.out != `{"defaultSettings":{"taintToleration":"node-role.kubernetes.io/control-plane:NoSchedule"}}`+"\n" {
		t.Errorf("get values -o json: exit %d %q", r.code, r.out)
	}
	if r := get("longhorn"); r.code != 0 || r.out != "USER-SUPPLIED VALUES:\ndefaultSettings:\n    taintToleration: node-role.kubernetes.io/control-plane:NoSchedule\n" {
		t.Errorf("get values: exit %d %q", r.code, r.out)
	}
	if r := get("bare", "-o", "json"); r.code != 0 || r.out != "null\n" {
		t.Errorf("get values -o json of a release without values: exit %d %q", r.code, r.out)
	}
	if r := get("missing", "-o", "json"); r.code != 1 || r.err != "Error: release: not found\n" {
		t.Errorf("get values of a missing release: exit %d %q", r.code, r.err)
	}
}
