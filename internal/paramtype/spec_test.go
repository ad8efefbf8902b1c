package paramtype

import (
	"strings"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

func TestValidateSpec(t *testing.T) {
	cases := []struct {
		name string
		spec protocol.ParamSpec
		want string // "" for a valid spec, else "field: part of the message"
	}{
		{"string", protocol.ParamSpec{Type: String, Default: "x", MaxLength: 10, Pattern: "[a-z]+"}, ""},
		{"port", protocol.ParamSpec{Type: Integer, Default: "51820", Min: f(1), Max: f(65535)}, ""},
		{"list of url", protocol.ParamSpec{Type: List, Items: &protocol.ParamSpec{Type: URL}, Default: "https://a.example"}, ""},
		{"map of enum", protocol.ParamSpec{Type: Map, Items: &protocol.ParamSpec{Type: Enum, Enum: []string{"a"}}, Default: "k=a"}, ""},
		{"semver range", protocol.ParamSpec{Type: Semver, Versions: ">= 1.30.0, < 1.36.0", Default: "1.31.2"}, ""},
		{"required", protocol.ParamSpec{Type: DNSLabel, Required: true}, ""},
		{"no type", protocol.ParamSpec{Default: "x"}, "type: missing; declare one of bool, cidr"},
		{"unknown type", protocol.ParamSpec{Type: "colour"}, `type: unknown type "colour"`},
		{"enum without values", protocol.ParamSpec{Type: Enum}, "enum: type enum needs the list"},
		{"enum on map", protocol.ParamSpec{Type: Map, Enum: []string{"a=b"}}, "enum: a map's values are narrowed in items"},
		{"bad pattern", protocol.ParamSpec{Type: String, Pattern: "(a"}, "pattern: error parsing regexp: missing closing )"},
		{"pattern on list", protocol.ParamSpec{Type: List, Pattern: "a"}, "pattern: a list's items are narrowed in items"},
		{"pattern on bool", protocol.ParamSpec{Type: Bool, Pattern: "true"}, "pattern: type bool has a fixed set"},
		{"pattern on enum", protocol.ParamSpec{Type: Enum, Enum: []string{"a"}, Pattern: "a"}, "pattern: type enum has a fixed set"},
		{"min on string", protocol.ParamSpec{Type: String, Min: f(1)}, "min: type string has no range"},
		{"min above max", protocol.ParamSpec{Type: Integer, Min: f(5), Max: f(1)}, "min: min 5 is above max 1"},
		{"fractional integer bound", protocol.ParamSpec{Type: Integer, Max: f(1.5)}, "max: 1.5 is not a whole number"},
		{"ipv4 prefix above 32", protocol.ParamSpec{Type: IPv4CIDR, Max: f(33)}, "max: 33 is not a prefix length; write a whole number between 0 and 32"},
		{"cidr prefix below 0", protocol.ParamSpec{Type: CIDR, Min: f(-1)}, "min: -1 is not a prefix length; write a whole number between 0 and 128"},
		{"max_length on integer", protocol.ParamSpec{Type: Integer, MaxLength: 3}, "max_length: only a string"},
		{"negative max_length", protocol.ParamSpec{Type: String, MaxLength: -1}, "max_length: only a string has a length bound, and it must be positive"},
		{"versions on string", protocol.ParamSpec{Type: String, Versions: ">= 1.0.0"}, "versions: only a semver"},
		{"bad versions", protocol.ParamSpec{Type: Semver, Versions: "newest"}, "versions: malformed constraint: newest"},
		{"items on string", protocol.ParamSpec{Type: String, Items: &protocol.ParamSpec{Type: URL}}, "items: only a list or a map has items"},
		{"list of lists", protocol.ParamSpec{Type: List, Items: &protocol.ParamSpec{Type: List}}, "items.type: a list of lists cannot be written"},
		{"untyped items", protocol.ParamSpec{Type: List, Items: &protocol.ParamSpec{}}, "items.type: missing"},
		{"bad item pattern", protocol.ParamSpec{Type: List, Items: &protocol.ParamSpec{Type: String, Pattern: "["}}, "items.pattern: error parsing regexp"},
		{"item default", protocol.ParamSpec{Type: List, Items: &protocol.ParamSpec{Type: String, Default: "x"}}, "items: an item has no default"},
		{"required with default", protocol.ParamSpec{Type: String, Required: true, Default: "x"}, "required: a parameter with a default is never missing"},
		{"default not of its type", protocol.ParamSpec{Type: Integer, Default: "lots"}, `default: "lots" is not a whole number`},
		{"default outside range", protocol.ParamSpec{Type: Integer, Min: f(1), Default: "0"}, `default: "0" is below the smallest allowed 1`},
		{"default not in enum", protocol.ParamSpec{Type: Enum, Enum: []string{"a", "b"}, Default: "c"}, `default: "c" is not one of a, b`},
		{"default outside versions", protocol.ParamSpec{Type: Semver, Versions: ">= 1.30.0", Default: "1.29.0"}, `default: "1.29.0" is outside the supported versions`},
		{"default list item", protocol.ParamSpec{Type: List, Items: &protocol.ParamSpec{Type: DNSSubdomain}, Default: "docker.io,../x"}, `default: "docker.io,../x" item 2`},
		{"enum value not of type", protocol.ParamSpec{Type: Integer, Enum: []string{"1", "two"}}, `enum[1]: "two" is not a whole number`},
		{"list enum value not of item type", protocol.ParamSpec{Type: List, Items: &protocol.ParamSpec{Type: Integer}, Enum: []string{"x"}}, `enum[0]: "x" is not a whole number`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ps := ValidateSpec(c.spec)
			var got []string
			for _, p := range ps {
				got = append(got, p.String())
			}
			joined := strings.Join(got, "\n")
			switch {
			case c.want == "" && len(ps) > 0:
				t.Errorf("got: %s want: a valid spec", joined)
			case c.want != "" && !strings.Contains(joined, c.want):
				t.Errorf("got: %q want: a problem containing %q", joined, c.want)
			}
		})
	}
}

// TestValidateSpecEveryTypeDeclarable: each type alone is a valid spec,
// except enum, which needs its values.
func TestValidateSpecEveryTypeDeclarable(t *testing.T) {
	for _, typ := range Types {
		ps := ValidateSpec(protocol.ParamSpec{Type: typ})
		if (typ == Enum) != (len(ps) > 0) {
			t.Errorf("type %s: got: %v", typ, ps)
		}
	}
}

func TestQuote(t *testing.T) {
	big := strings.Repeat("x", 100*1024)
	q := Quote(big)
	if !strings.HasPrefix(q, `"`+strings.Repeat("x", MaxQuoted)+`"… (`) || !strings.Contains(q, "(102200 more characters)") {
		t.Errorf("got: %.300s want: 200 characters and the count left out", q)
	}
	if len(q) > MaxQuoted+40 {
		t.Errorf("got: %d bytes want: about %d", len(q), MaxQuoted)
	}
	if got := Quote(strings.Repeat("ü", 201)); !strings.HasPrefix(got, `"`+strings.Repeat("ü", 200)+`"`) || !strings.HasSuffix(got, "(1 more characters)") {
		t.Errorf("got: %s want: cut at 200 characters, not bytes", got)
	}
	if got := Quote("a\nb"); got != `"a\nb"` {
		t.Errorf("got: %s want: the newline escaped", got)
	}
	if got := Quote(strings.Repeat("y", MaxQuoted)); got != `"`+strings.Repeat("y", MaxQuoted)+`"` {
		t.Errorf("got: %s want: 200 characters whole", got)
	}
	// A refused 100 KB value is quoted to 200 characters in the error.
	err := Check(protocol.ParamSpec{Type: DNSLabel}, big)
	if err == nil || len(err.Error()) > 600 || !strings.Contains(err.Error(), "more characters") {
		t.Errorf("got: %d bytes: %.300v want: the value cut to 200 characters", len(err.Error()), err)
	}
	err = Check(protocol.ParamSpec{Type: List, Items: &protocol.ParamSpec{Type: DNSLabel}}, "a,"+big)
	if err == nil || len(err.Error()) > 1000 {
		t.Errorf("got: %d bytes want: a list item's error quoted short as well", len(err.Error()))
	}
}

func TestInherit(t *testing.T) {
	pack := protocol.ParamSpec{Type: Integer, Min: f(1), Max: f(65535), Default: "51820", Description: "port", Required: true}
	got := Inherit(protocol.ParamSpec{}, &pack)
	if got.Type != Integer || got.Max == nil || *got.Max != 65535 || got.Default != "51820" || got.Required {
		t.Errorf("got: %+v want: the pack's spec, not required", got)
	}
	got = Inherit(protocol.ParamSpec{Required: true, Default: "1", Description: "job"}, &pack)
	if !got.Required || got.Default != "1" || got.Description != "job" || got.Type != Integer {
		t.Errorf("got: %+v want: the job's required, default and description on the pack's type", got)
	}
	own := protocol.ParamSpec{Type: Integer, Max: f(10)}
	if got := Inherit(own, &pack); got.Max == nil || *got.Max != 10 {
		t.Errorf("got: %+v want: a typed declaration kept", got)
	}
	if got := Inherit(protocol.ParamSpec{Default: "x"}, nil); got.Type != String || got.Default != "x" {
		t.Errorf("got: %+v want: an undeclared untyped parameter checked as a string", got)
	}
	if Narrows(protocol.ParamSpec{Required: true, Default: "x", Description: "d"}) {
		t.Error("got: required/default/description narrowing want: not")
	}
	for _, s := range []protocol.ParamSpec{{Enum: []string{"a"}}, {Min: f(1)}, {Max: f(1)}, {Pattern: "a"}, {MaxLength: 1}, {Versions: ">1.0.0"}, {Items: &protocol.ParamSpec{}}} {
		if !Narrows(s) {
			t.Errorf("got: %+v not narrowing want: narrowing", s)
		}
	}
}
