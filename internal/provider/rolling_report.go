package provider

import (
	"fmt"
	"strings"

	"github.com/intentops/terraform-provider-cp/internal/engine"
)

// rollingStops says, for each serial job whose rolling stopped at a
// failed host, which hosts failed, the limit, and which instances were
// therefore not run.
func rollingStops(res *engine.Result) string {
	var b strings.Builder
	for _, rs := range res.RollingStops {
		fmt.Fprintf(&b, "Rolling job %s stopped after %d failed host(s) (%s), more than controls.max_failures %d; not run: %s.\n",
			rs.Job, len(rs.Failed), strings.Join(rs.Failed, ", "), rs.MaxFailures, orNoneList(firstN(rs.NotRun, 12)))
	}
	return b.String()
}
