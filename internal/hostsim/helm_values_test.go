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
