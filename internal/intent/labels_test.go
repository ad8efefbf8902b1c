package intent

import (
	"reflect"
	"slices"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

func TestNodeChangesSetsAndRemovesExactlyTheChange(t *testing.T) {
	oldH := []protocol.Host{
		{Name: "master-1", Labels: map[string]string{"a": "1"}},
		{Name: "worker-1", Labels: map[string]string{"tier": "app", "zone": "a", "same": "x"},
			Taints: []string{"dedicated=db:NoSchedule", "gpu:NoExecute", "keep:NoSchedule", "old=1:PreferNoSchedule"}},
		{Name: "worker-2", Labels: map[string]string{"tier": "app"}},
		{Name: "worker-gone", Labels: map[string]string{"x": "y"}},
	}
	newH := []protocol.Host{
		{Name: "master-1", Labels: map[string]string{"a": "2"}},
		{Name: "worker-1", Labels: map[string]string{"tier": "db", "same": "x", "example.com/new": ""},
			Taints: []string{"dedicated=web:NoSchedule", "keep=:NoSchedule", "gpu:NoSchedule"}},
		{Name: "worker-2", Labels: map[string]string{"tier": "app"}},
		{Name: "worker-new", Labels: map[string]string{"x": "y"}},
	}
	targets, changes := NodeChanges(oldH, newH)
	if want := []string{"master-1", "worker-1"}; !slices.Equal(targets, want) {
		t.Errorf("targets = %v, want %v", targets, want)
	}
	want := []string{
		"master-1/a=2",
		"worker-1/example.com/new=", "worker-1/tier=db", "worker-1/zone-",
		"worker-1/dedicated=web:NoSchedule", "worker-1/gpu:NoSchedule", "worker-1/gpu:NoExecute-", "worker-1/old:PreferNoSchedule-",
	}
	if !slices.Equal(changes, want) {
		t.Errorf("changes =\n%q\nwant\n%q", changes, want)
	}
	if targets, changes := NodeChanges(newH, newH); targets != nil || changes != nil {
		t.Errorf("no change gives %v %v", targets, changes)
	}
}

func TestObservedLabelsAndTaintsOnlyLookAtManagedOnes(t *testing.T) {
	api := map[string]string{"tier": "web", "kubernetes.io/hostname": "worker-1", "zone": "a"}
	got, drift := ObservedLabels(map[string]string{"tier": "app", "zone": "a", "gone": "x"}, api)
	if !drift || !reflect.DeepEqual(got, map[string]string{"tier": "web", "zone": "a"}) {
		t.Errorf("observedLabels = %v, %v", got, drift)
	}
	if _, drift := ObservedLabels(map[string]string{"zone": "a"}, api); drift {
		t.Error("a label Kubernetes added (kubernetes.io/hostname) is reported as drift")
	}
	apiT := []string{"dedicated=web:NoSchedule", "gpu:NoExecute", "node-role.kubernetes.io/control-plane:NoSchedule"}
	gotT, drift := ObservedTaints([]string{"gpu=:NoExecute", "dedicated=db:NoSchedule", "gone:NoSchedule"}, apiT)
	if !drift || !slices.Equal(gotT, []string{"gpu=:NoExecute", "dedicated=web:NoSchedule"}) {
		t.Errorf("observedTaints = %q, %v", gotT, drift)
	}
	if _, drift := ObservedTaints([]string{"gpu:NoExecute"}, apiT); drift {
		t.Error("a taint the configuration does not set is reported as drift")
	}
}
