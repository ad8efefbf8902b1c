package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"
)

// The masters keep the cluster when only labels or taints change or
// masters other than the first leave; another change (the first master
// removed or changed, a master added or moved, an address changed)
// replaces it.
func TestMastersKept(t *testing.T) {
	n := func(name, addr string, labels map[string]string) nodeModel {
		return nodeModel{Name: types.StringValue(name), Address: types.StringValue(addr), Labels: labels}
	}
	m1, m2, m3 := n("master-1", "10.0.0.1", nil), n("master-2", "10.0.0.2", nil), n("master-3", "10.0.0.3", nil)
	old := []nodeModel{m1, m2, m3}
	for _, c := range []struct {
		name string
		next []nodeModel
		kept bool
	}{
		{"same", []nodeModel{m1, m2, m3}, true},
		{"labels", []nodeModel{n("master-1", "10.0.0.1", map[string]string{"a": "b"}), m2, m3}, true},
		{"master-3 leaves", []nodeModel{m1, m2}, true},
		{"master-2 leaves", []nodeModel{m1, m3}, true},
		{"only the first stays", []nodeModel{m1}, true},
		{"the first leaves", []nodeModel{m2, m3}, false},
		{"a master added", []nodeModel{m1, m2, m3, n("master-4", "10.0.0.4", nil)}, false},
		{"reordered", []nodeModel{m1, m3, m2}, false},
		{"an address changed", []nodeModel{m1, n("master-2", "10.0.0.9", nil)}, false},
		{"none", nil, false},
	} {
		if got := mastersKept(old, c.next); got != c.kept {
			t.Errorf("%s: kept %v, want %v", c.name, got, c.kept)
		}
	}
}
