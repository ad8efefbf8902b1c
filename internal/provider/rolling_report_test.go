package provider

import (
	"strings"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/engine"
)

// A failed operation whose rolling stopped names the failed host, the
// limit and the hosts not run.
func TestFailureDetailNamesRollingStop(t *testing.T) {
	res := &engine.Result{
		Instances: []engine.InstanceResult{
			{ID: "upgrade-node[worker-1]", Job: "upgrade-node", Host: "worker-1", Status: engine.StatusFailed, Reason: "exited 1"},
			{ID: "upgrade-node[worker-2]", Job: "upgrade-node", Host: "worker-2", Status: engine.StatusSkipped, Reason: "not run: rolling job upgrade-node stopped"},
		},
		RollingStops: []engine.RollingStop{{Job: "upgrade-node", Failed: []string{"upgrade-node[worker-1]"}, NotRun: []string{"upgrade-node[worker-2]"}}},
	}
	want := "Rolling job upgrade-node stopped after 1 failed host(s) (upgrade-node[worker-1]), more than controls.max_failures 0; not run: upgrade-node[worker-2].\n"
	if got := rollingStops(res); got != want {
		t.Errorf("got: %q want: %q", got, want)
	}
	if d := failureDetail(res); !strings.Contains(d, want) {
		t.Errorf("failure detail lacks the rolling stop:\n%s", d)
	}
	if got := rollingStops(&engine.Result{}); got != "" {
		t.Errorf("no stop got: %q want: nothing", got)
	}
}
