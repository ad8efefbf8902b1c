package protocol

import "testing"

func TestSplitRef(t *testing.T) {
	for ref, want := range map[string][3]string{
		HostRef("master-1", "/var/lib/cp/artifacts/x/admin.conf"): {"master-1", "/var/lib/cp/artifacts/x/admin.conf", "ok"},
		"master-1:/a:b": {"master-1", "/a:b", "ok"}, // the path keeps its colons
		":/a":           {"", "/a", ""},
		"master-1:":     {"master-1", "", ""},
		"no-colon":      {"no-colon", "", ""},
		"":              {"", "", ""},
	} {
		h, p, ok := SplitRef(ref)
		if h != want[0] || p != want[1] || ok != (want[2] == "ok") {
			t.Errorf("SplitRef(%q) = %q, %q, %v want %q, %q, %v", ref, h, p, ok, want[0], want[1], want[2] == "ok")
		}
	}
}
