package planner

import (
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/packs"
)

// benchInput is the builtin kubernetes create plan for masters+workers
// hosts, or the fixture pack of the same shape when the builtin one cannot
// load.
func benchInput(tb testing.TB, hosts int) Input {
	in := createInput(fixtureKubernetes())
	in.Intent = clusterIntent(3, hosts-3)
	if cat, err := packs.LoadBuiltin(); err == nil {
		if k, err := cat.Get("kubernetes", ""); err == nil {
			in.Pack = k
			in.Intent.Parameters = map[string]string{"cluster_name": "bench", "cni": "calico", "storage": "longhorn"}
			return in
		}
	}
	tb.Logf("builtin kubernetes pack unavailable; benchmarking the fixture pack")
	return in
}
