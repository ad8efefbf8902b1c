package provider

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/intentops/terraform-provider-cp/internal/operation"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// targets: each must be a host of the intent, listed once; a refusal is on
// its element of targets and names the hosts.
func TestCheckTargets(t *testing.T) {
	hosts := []operation.HostAccess{{Host: protocol.Host{Name: "master-1"}}, {Host: protocol.Host{Name: "worker-1"}}}
	var ok diag.Diagnostics
	checkTargets([]string{"worker-1", "master-1"}, hosts, &ok)
	checkTargets(nil, hosts, &ok)
	if ok.HasError() {
		t.Fatalf("hosts of the intent refused: %v", ok)
	}
	var bad diag.Diagnostics
	checkTargets([]string{"worker-1", "worker-9", "worker-1"}, hosts, &bad)
	if len(bad) != 2 {
		t.Fatalf("got %d diagnostics, want 2: %v", len(bad), bad)
	}
	for i, want := range []struct {
		p      path.Path
		detail string
	}{
		{path.Root("targets").AtListIndex(1), `target "worker-9" is not a host of the intent (master-1, worker-1)`},
		{path.Root("targets").AtListIndex(2), `target "worker-1" is listed twice`},
	} {
		d, ok := bad[i].(diag.DiagnosticWithPath)
		if !ok || !d.Path().Equal(want.p) || !strings.Contains(d.Detail(), want.detail) {
			t.Errorf("diagnostic %d = %v, want on %s saying %q", i, bad[i], want.p, want.detail)
		}
	}
}
