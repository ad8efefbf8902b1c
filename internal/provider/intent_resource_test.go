package provider

import (
	"strings"
	"testing"
)

// A one-action resource runs its action on create, and again only when
// its intent changed or its last operation did not complete.
func TestSingleActionRunsOnlyWhenNeeded(t *testing.T) {
	for _, c := range []struct {
		name                   string
		prior, completed, same bool
		runs                   bool
	}{
		{"create", false, false, false, true},
		{"unchanged and completed", true, true, true, false},
		{"intent changed", true, true, false, true},
		{"last run failed", true, false, true, true},
	} {
		got := singleAction("install", c.prior, c.completed, c.same, "tempo")
		if (len(got) == 1) != c.runs || (c.runs && (got[0].Action != "install" || len(got[0].IDParts) != 1 || got[0].IDParts[0] != "tempo")) {
			t.Errorf("%s got: %+v want: runs=%v", c.name, got, c.runs)
		}
	}
}

func TestParseImportID(t *testing.T) {
	for in, want := range map[string]importTarget{
		"10.0.0.26":                       {Address: "10.0.0.26"},
		"10.0.0.26:2222":                  {Address: "10.0.0.26", Port: 2222},
		"prod/worker-6@10.0.0.26":         {ID: "prod/worker-6", Address: "10.0.0.26"},
		"postgresql/orders@db.example:22": {ID: "postgresql/orders", Address: "db.example", Port: 22},
		"[fd00::1]:2200":                  {Address: "fd00::1", Port: 2200},
	} {
		got, err := parseImportID(in, "<id>")
		if err != nil || got != want {
			t.Errorf("%s got: %+v, %v want: %+v", in, got, err, want)
		}
	}
	for in, want := range map[string]string{
		"":               "use the address of a host",
		"x@":             "use the address of a host",
		"10.0.0.1:0":     `port "0" is not a number from 1 to 65535`,
		"10.0.0.1:ssh":   `port "ssh" is not a number`,
		"a@b@c":          "use the address of a host",
		"id@10.0.0.1/24": "use the address of a host",
	} {
		if _, err := parseImportID(in, "<id>"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q got: %v want: %q", in, err, want)
		}
	}
}

// Record names keep any id a safe file name and apart from cluster
// records (DNS labels, no dot).
func TestRecordName(t *testing.T) {
	a, b := recordName("scenario", "postgresql/orders"), recordName("scenario", "../../etc/passwd")
	for _, n := range []string{a, b} {
		if !strings.HasPrefix(n, "scenario.") || len(n) != len("scenario.")+16 || strings.ContainsAny(n, "/ ") {
			t.Errorf("got: %q want: scenario.<16 hex>", n)
		}
	}
	if a == b || recordName("tempo", "postgresql/orders") == a {
		t.Error("different kinds or ids share a record name")
	}
}
