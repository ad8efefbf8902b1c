package packs

import (
	"strings"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

func testCatalog(t *testing.T, source string, refs ...string) *Catalog {
	t.Helper()
	c := NewCatalog()
	for _, r := range refs {
		id, v, _ := strings.Cut(r, "@")
		if err := c.Add(&protocol.ScenarioPack{ID: id, Version: v, Source: source}); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

func TestCatalogGet(t *testing.T) {
	c := testCatalog(t, "builtin", "tempo@1.0.0", "tempo@1.2.0", "tempo@2.0.0", "tempo@2.1.0-rc.1", "minio@1.0.0")
	cases := []struct {
		id, constraint, want, err string
	}{
		{"tempo", "", "2.1.0-rc.1", ""},
		{"tempo", "~>1.0", "1.2.0", ""},
		{"tempo", "=1.0.0", "1.0.0", ""},
		{"tempo", "^1.0.0", "1.2.0", ""},
		{"tempo", ">=1.0.0, <2.0.0", "1.2.0", ""},
		{"tempo", "<2.0.0, !=1.2.0", "1.0.0", ""},
		{"tempo", ">=3.0.0", "", `no version satisfies ">=3.0.0" (available: 1.0.0, 1.2.0, 2.0.0, 2.1.0-rc.1)`},
		{"tempo", ">=banana", "", "version constraint"},
		{"loki", "", "", `no scenario pack "loki" in the catalog (packs: minio, tempo)`},
	}
	for _, tc := range cases {
		t.Run(tc.id+tc.constraint, func(t *testing.T) {
			p, err := c.Get(tc.id, tc.constraint)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("got: %v want: error containing %q", err, tc.err)
				}
				return
			}
			if err != nil || p.Version != tc.want {
				t.Fatalf("got: %v, %v want: %s", p, err, tc.want)
			}
		})
	}
}

func TestCatalogListSorted(t *testing.T) {
	c := testCatalog(t, "builtin", "tempo@1.10.0", "minio@1.0.0", "tempo@1.9.0", "tempo@1.0.0")
	var got []string
	for _, p := range c.List() {
		got = append(got, p.Ref())
	}
	want := "minio@1.0.0 tempo@1.0.0 tempo@1.9.0 tempo@1.10.0"
	if strings.Join(got, " ") != want {
		t.Fatalf("got: %v want: %s", got, want)
	}
}

func TestCatalogMerge(t *testing.T) {
	builtin := testCatalog(t, "builtin", "tempo@1.0.0", "minio@1.0.0")
	user := testCatalog(t, "/srv/packs", "tempo@1.1.0", "minio@1.0.0", "redis@0.1.0")
	err := builtin.Merge(user)
	if err == nil || !strings.Contains(err.Error(), "pack minio@1.0.0 from /srv/packs is already in the catalog from builtin") {
		t.Fatalf("got: %v want: clash of minio@1.0.0 naming both sources", err)
	}
	if p, err := builtin.Get("tempo", ">1.0.0"); err != nil || p.Source != "/srv/packs" {
		t.Fatalf("got: %v, %v want: user tempo@1.1.0 merged", p, err)
	}
	if _, err := builtin.Get("redis", ""); err != nil {
		t.Fatalf("got: %v want: redis merged despite the minio clash", err)
	}
}

func TestCatalogAddRejectsBadVersion(t *testing.T) {
	err := NewCatalog().Add(&protocol.ScenarioPack{ID: "x", Version: "one", Source: "dir"})
	if err == nil || !strings.Contains(err.Error(), "add pack x@one from dir") {
		t.Fatalf("got: %v want: error naming the pack", err)
	}
}
