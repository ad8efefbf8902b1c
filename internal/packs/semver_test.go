package packs

import (
	"strings"
	"testing"
)

func TestParseVersion(t *testing.T) {
	cases := []struct {
		in, want, err string
	}{
		{"1.0.0", "1.0.0", ""},
		{"v2.10.3", "2.10.3", ""},
		{"1.2.3-rc.1+build.5", "1.2.3-rc.1", ""},
		{"1.0", "", "MAJOR.MINOR.PATCH"},
		{"01.0.0", "", "leading zeros"},
		{"1.x.0", "", "non-negative number"},
		{"1.0.0-", "", "empty pre-release"},
		{"", "", "MAJOR.MINOR.PATCH"},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			v, err := ParseVersion(tc.in)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("got: %v, %v want: error containing %q", v, err, tc.err)
				}
				return
			}
			if err != nil || v.String() != tc.want {
				t.Fatalf("got: %v, %v want: %s", v, err, tc.want)
			}
		})
	}
}

func TestVersionCompare(t *testing.T) {
	ordered := []string{"0.9.9", "1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta.2", "1.0.0-beta.11", "1.0.0", "1.0.1", "1.2.0", "1.10.0", "2.0.0"}
	for i := 1; i < len(ordered); i++ {
		a, _ := ParseVersion(ordered[i-1])
		b, _ := ParseVersion(ordered[i])
		if a.Compare(b) >= 0 || b.Compare(a) <= 0 {
			t.Errorf("got: %s >= %s want: less", a, b)
		}
	}
}

func TestConstraint(t *testing.T) {
	cases := []struct {
		constraint string
		match      []string
		miss       []string
	}{
		{"", []string{"0.0.1", "9.9.9"}, nil},
		{"=1.0.0", []string{"1.0.0"}, []string{"1.0.1"}},
		{"1.0.0", []string{"1.0.0"}, []string{"1.1.0"}},
		{"!=1.0.0", []string{"1.0.1"}, []string{"1.0.0"}},
		{">=1.0.0", []string{"1.0.0", "3.0.0"}, []string{"0.9.0"}},
		{">1.0.0", []string{"1.0.1"}, []string{"1.0.0"}},
		{"<2.0.0", []string{"1.9.9"}, []string{"2.0.0"}},
		{"<=1.2", []string{"1.2.0"}, []string{"1.2.1"}},
		{"~>1.0", []string{"1.0.0", "1.9.0"}, []string{"2.0.0", "0.9.0"}},
		{"~>1.2.3", []string{"1.2.3", "1.2.9"}, []string{"1.3.0", "1.2.2"}},
		{"~>1", []string{"1.5.0"}, []string{"2.0.0"}},
		{"^1.2.0", []string{"1.2.0", "1.9.9"}, []string{"2.0.0", "1.1.9"}},
		{"^0.2.3", []string{"0.2.9"}, []string{"0.3.0"}},
		{"^0.0.3", []string{"0.0.3"}, []string{"0.0.4"}},
		{"~1.2.3", []string{"1.2.5"}, []string{"1.3.0"}},
		{">=1.0.0, <2.0.0", []string{"1.0.0", "1.99.0"}, []string{"2.0.0", "0.1.0"}},
		{" >= 1.1.0 ,<1.2.0,!=1.1.5", []string{"1.1.4"}, []string{"1.1.5", "1.2.0"}},
	}
	for _, tc := range cases {
		t.Run(tc.constraint, func(t *testing.T) {
			c, err := ParseConstraint(tc.constraint)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range tc.match {
				if v, _ := ParseVersion(s); !c.Check(v) {
					t.Errorf("got: %s does not satisfy %q want: satisfies", s, tc.constraint)
				}
			}
			for _, s := range tc.miss {
				if v, _ := ParseVersion(s); c.Check(v) {
					t.Errorf("got: %s satisfies %q want: does not", s, tc.constraint)
				}
			}
		})
	}
}

func TestConstraintErrors(t *testing.T) {
	for _, s := range []string{">=1.0.0,", "=1.0", "~>x", ">=1.0.0 <2.0.0"} {
		if _, err := ParseConstraint(s); err == nil {
			t.Errorf("got: %q parsed want: error", s)
		}
	}
}
