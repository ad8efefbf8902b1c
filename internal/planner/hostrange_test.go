package planner

import (
	"slices"
	"testing"
)

func TestHostRanges(t *testing.T) {
	cases := []struct {
		in   []string
		want string
	}{
		{nil, ""},
		{[]string{"master-1"}, "master-1"},
		{[]string{"worker-2", "worker-1"}, "worker-1, worker-2"},
		{[]string{"worker-3", "master-2", "worker-1", "master-1", "worker-2", "master-3"}, "master-1..3, worker-1..3"},
		{[]string{"w-10", "w-9", "w-2", "w-1", "w-3", "w-11", "w-12"}, "w-1..3, w-9..12"},
		{[]string{"w-1", "w-1", "w-2", "w-3"}, "w-1..3"},
		{[]string{"node-01", "node-02", "node-03", "node-1"}, "node-1, node-01..03"},
		{[]string{"node-08", "node-09", "node-10"}, "node-08..10"},
		{[]string{"db", "api", "w-1", "w-2", "w-3"}, "api, db, w-1..3"},
		{[]string{"a1", "a2", "a3", "b4"}, "a1..3, b4"},
	}
	for _, c := range cases {
		if got := HostRanges(c.in); got != c.want {
			t.Errorf("HostRanges(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestParseHostRangesReadsHostRangesBack(t *testing.T) {
	cases := map[string][]string{
		"":                                nil,
		"master-1":                        {"master-1"},
		"master-1..3, worker-1..3":        {"master-1", "master-2", "master-3", "worker-1", "worker-2", "worker-3"},
		"w-1..3, w-9..12":                 {"w-1", "w-2", "w-3", "w-9", "w-10", "w-11", "w-12"},
		"node-1, node-01..03":             {"node-1", "node-01", "node-02", "node-03"},
		"node-08..10":                     {"node-08", "node-09", "node-10"},
		"api, db, w-1..3":                 {"api", "db", "w-1", "w-2", "w-3"},
		"master-1..3, worker-1, worker-3": {"master-1", "master-2", "master-3", "worker-1", "worker-3"},
	}
	for in, want := range cases {
		got, ok := ParseHostRanges(in)
		if !ok || !slices.Equal(got, want) {
			t.Errorf("ParseHostRanges(%q) = %q, %v; want %q", in, got, ok, want)
		}
		if HostRanges(got) != in {
			t.Errorf("HostRanges(ParseHostRanges(%q)) = %q", in, HostRanges(got))
		}
	}
	for _, bad := range []string{"w-1..", "w..3", "w-3..2", "w-1..2", ", w-1", "node-098..1000"} {
		if got, ok := ParseHostRanges(bad); ok {
			t.Errorf("ParseHostRanges(%q) = %q, want it refused", bad, got)
		}
	}
}
