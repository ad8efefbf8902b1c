package paramtype

import (
	"errors"
	"strings"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

func f(v float64) *float64 { return &v }

// typeCase is one spec with values it must accept and values it must
// refuse, each refusal with a piece of the message it must carry.
type typeCase struct {
	name string
	spec protocol.ParamSpec
	ok   []string
	bad  map[string]string // value -> part of the error
}

var typeCases = []typeCase{
	{"string", protocol.ParamSpec{Type: String}, []string{"", "hello world", "ünïcode", strings.Repeat("x", DefaultMaxLength)},
		map[string]string{"a\nb": "control character", "tab\there": "control character", "\x00": "control character",
			"\x7f": "control character", "\xff": "not valid UTF-8", strings.Repeat("x", DefaultMaxLength+1): "at most 1024"}},
	{"string max_length", protocol.ParamSpec{Type: String, MaxLength: 3}, []string{"abc", "äöü"}, map[string]string{"abcd": "4 characters long; at most 3"}},
	{"untyped is string", protocol.ParamSpec{}, []string{"anything"}, map[string]string{"x\ny": "control character"}},
	{"string pattern", protocol.ParamSpec{Type: String, Pattern: `[a-z]{1,3}`}, []string{"a", "abc"},
		map[string]string{"abcd": "does not match the pattern", "Ab": "pattern", "": "pattern", "ab\n": "control character"}},
	{"enum", protocol.ParamSpec{Type: Enum, Enum: []string{"calico", "cilium"}}, []string{"calico", "cilium"},
		map[string]string{"flannel": "is not one of calico, cilium", "": "not one of", "Calico": "not one of"}},
	{"string with enum", protocol.ParamSpec{Type: String, Enum: []string{"a", "b"}}, []string{"a"}, map[string]string{"c": "not one of a, b"}},
	{"number", protocol.ParamSpec{Type: Number}, []string{"0", "-12", "3.5", "999999999999999"},
		map[string]string{"lots": "not a decimal number", "1e3": "not a decimal", "010": "not a decimal", "": "not a decimal",
			"1.": "not a decimal", ".5": "not a decimal", "+1": "not a decimal", "1 ": "not a decimal", "1000000000000000": "not a decimal"}},
	{"integer", protocol.ParamSpec{Type: Integer}, []string{"0", "7", "-3"},
		map[string]string{"1.5": "not a whole number", "08": "not a whole number", "BASH_VERSINFO[$(touch /tmp/x)]*0": "not a whole number", "0x10": "not a whole"}},
	{"integer min max", protocol.ParamSpec{Type: Integer, Min: f(1), Max: f(64)}, []string{"1", "64", "32"},
		map[string]string{"0": "below the smallest allowed 1", "65": "above the largest allowed 64", "-1": "below"}},
	{"number min max", protocol.ParamSpec{Type: Number, Min: f(0.5), Max: f(2.5)}, []string{"0.5", "2.5", "1"},
		map[string]string{"0.49": "below the smallest allowed 0.5", "2.51": "above the largest allowed 2.5"}},
	{"port", protocol.ParamSpec{Type: Integer, Min: f(1), Max: f(65535)}, []string{"1", "65535", "51820"},
		map[string]string{"0": "below the smallest allowed 1", "65536": "above the largest allowed 65535", "70000": "above", "51820\nPostUp = touch /tmp/x": "control character"}},
	{"bool", protocol.ParamSpec{Type: Bool}, []string{"true", "false"}, map[string]string{"True": "true or false", "1": "true or false", "yes": "true or false", "": "true or false"}},
	{"cidr", protocol.ParamSpec{Type: CIDR}, []string{"10.244.0.0/16", "fd00::/8", "0.0.0.0/0"},
		map[string]string{"10.244.0.1/16": "host bits set; write the network 10.244.0.0/16", "10.244.0.0": "not a network", "10.244.0.0/33": "not a network",
			"010.0.0.0/8": "not a network", "fe80::%eth0/64": "not a network", "10.0.0.0/8 ": "not a network"}},
	{"ipv4_cidr max 30", protocol.ParamSpec{Type: IPv4CIDR, Min: f(8), Max: f(30)}, []string{"10.0.0.0/8", "10.0.0.0/30", "10.96.0.0/12"},
		map[string]string{"10.0.0.0/31": "above the largest allowed a prefix length 30", "10.0.0.0/7": "below the smallest allowed a prefix length 8",
			"fd00::/64": "not an IPv4 network", "::ffff:10.0.0.0/104": "not an IPv4 network"}},
	{"ipv4_cidr exactly /24", protocol.ParamSpec{Type: IPv4CIDR, Min: f(24), Max: f(24)}, []string{"10.200.0.0/24"},
		map[string]string{"10.200.0.0/23": "below", "10.200.0.0/25": "above", "10.200.0.5/24": "host bits"}},
	{"ip", protocol.ParamSpec{Type: IP}, []string{"10.0.0.11", "::1", "fd00::1"},
		map[string]string{"10.0.0.256": "not an IP address", "fe80::1%eth0": "not an IP address", "host": "not an IP", "10.0.0.1/32": "not an IP"}},
	{"ipv4", protocol.ParamSpec{Type: IPv4}, []string{"10.0.0.11"}, map[string]string{"::1": "not an IPv4 address", "1.2.3": "not an IPv4"}},
	{"host_port", protocol.ParamSpec{Type: HostPort}, []string{"lb.internal:6443", "10.0.0.10:6443", "[fd00::1]:6443", "master-1:1", "a:65535"},
		map[string]string{"lb.internal": "not host:port", "lb.internal:0": "port between 1 and 65535", "lb.internal:65536": "port between 1 and 65535",
			"LB.internal:6443": "not a host name", "lb internal:6443": "not a host name", "fd00::1:6443": "not host:port", "[fd00::1]": "not host:port",
			"10.0.0.300:6443": "not a host name", ":6443": "not a host name", "lb:6443/x": "port", "lb:+1": "port", "lb:0080": "port"}},
	{"url", protocol.ParamSpec{Type: URL}, []string{"https://mirror.internal:5000", "http://10.0.0.5/v2/", "https://[fd00::1]:5000/x?y=1#z", "https://a.example/%22x"},
		map[string]string{"https://a.example/\"x": `holds '"'`, "https://a.example/'x": `holds '\''`, "https://a.example/ x": `holds ' '`,
			"https://a.example/\nx": "control character", "ftp://a.example": "not an http(s) URL", "https://": "not an http(s) URL", "mirror.internal": "not an http(s)",
			"https://user:pw@a.example": "credentials", "https://a.example:99999": "port", "https://A_B.example": "not a host name", "https:a.example": "not an http(s)",
			"https://a.example/\\x": `holds '\\'`, "https://a.example/`x`": "holds '`'", "https://a.example/{x}": "holds '{'"}},
	{"duration", protocol.ParamSpec{Type: Duration}, []string{"30s", "5m", "1h30m", "336h", "1.5h"},
		map[string]string{"-5m": "not a positive duration", "0": "positive duration", "0s": "positive", "5 minutes": "positive duration", "": "positive duration", "10": "positive duration"}},
	{"semver", protocol.ParamSpec{Type: Semver}, []string{"1.31.2", "0.0.1", "1.32.0-rc.1"},
		map[string]string{"v1.31.2": "no leading v", "1.31": "major.minor.patch", "latest": "major.minor.patch", "01.2.3": "major.minor.patch", "1.31.2+build": "major.minor"}},
	{"semver versions", protocol.ParamSpec{Type: Semver, Versions: ">= 1.30.0, < 1.36.0"}, []string{"1.30.0", "1.31.2", "1.35.99"},
		map[string]string{"1.29.9": "outside the supported versions >= 1.30.0, < 1.36.0", "1.36.0": "outside the supported versions", "2.0.0": "outside"}},
	{"dns_label", protocol.ParamSpec{Type: DNSLabel}, []string{"a", "prod-k8s", "0abc", strings.Repeat("a", 63)},
		map[string]string{strings.Repeat("a", 64): "at most 63", "Prod": "DNS label", "-a": "DNS label", "a-": "DNS label", "a.b": "DNS label", "": "DNS label", "a b": "DNS label", "a_b": "DNS label"}},
	{"dns_subdomain", protocol.ParamSpec{Type: DNSSubdomain}, []string{"registry.k8s.io", "docker.io", "a", strings.Repeat("a", 63) + ".b"},
		map[string]string{strings.Repeat("a", 64) + ".b": "DNS name", "a..b": "DNS name", ".a": "DNS name", "a/b": "DNS name", "../x": "DNS name",
			strings.Repeat("abcdefghi.", 25) + "abcd": "at most 253", "Docker.io": "DNS name", "docker.io:5000": "DNS name"}},
	{"label_key", protocol.ParamSpec{Type: LabelKey}, []string{"app", "app.kubernetes.io/name", "node-role.kubernetes.io/control-plane", "Tier_1.x", strings.Repeat("k", 63)},
		map[string]string{strings.Repeat("k", 64): "label key", "/name": "label key", "example.com/": "label key", "Example.com/x": "label key",
			"a/b/c": "label key", "-x": "label key", "x-": "label key", "": "label key", "a b": "label key", "a=b": "label key"}},
	{"label_value", protocol.ParamSpec{Type: LabelValue}, []string{"", "v1", "Prod_1.x-y", strings.Repeat("v", 63)},
		map[string]string{strings.Repeat("v", 64): "label value", "x\nnode-role.kubernetes.io/control-plane=yes": "control character", "-v": "label value", "a/b": "label value", "a b": "label value"}},
	{"taint", protocol.ParamSpec{Type: Taint}, []string{"dedicated=infra:NoSchedule", "dedicated=infra:PreferNoSchedule", "dedicated=infra:NoExecute",
		"gpu:NoSchedule", "example.com/gpu=true:NoExecute", "k=:NoSchedule"},
		map[string]string{"dedicated=infra": "taint", "dedicated=infra:NoRun": "taint", "dedicated=infra:noschedule": "taint", ":NoSchedule": "taint",
			"bad key=x:NoSchedule": "taint", "k=bad value:NoSchedule": "taint", "k=" + strings.Repeat("v", 64) + ":NoSchedule": "taint", "k=v:NoSchedule:NoExecute": "taint"}},
	{"image", protocol.ParamSpec{Type: Image}, []string{"postgres:16", "minio/mc:RELEASE.2024-10-08T09-37-26Z", "registry.k8s.io/pause:3.10", "localhost:5000/a/b:c",
		"curlimages/curl:8.10.1", "alpine@sha256:" + strings.Repeat("a", 64), "alpine"},
		map[string]string{"Postgres:16": "container image", "postgres:16 ": "container image", "a:b:c": "container image", "x\"y": "container image",
			"alpine@sha256:abc": "container image", "postgres:" + strings.Repeat("t", 129): "container image", "../x": "container image", "": "container image"}},
	{"quantity", protocol.ParamSpec{Type: Quantity}, []string{"500Gi", "20G", "1.5T", "100M", "1024", "512Ki"},
		map[string]string{"500 Gi": "quantity", "500GB": "quantity", "-1Gi": "quantity", "Gi": "quantity", "1e3": "quantity", "\"500Gi\"": "quantity"}},
	{"cron", protocol.ParamSpec{Type: Cron}, []string{"0 3 * * *", "*/15 * * * *", "0 0-23/2 1,15 1-12 0-6", "5/10 * * * 1-5", "@daily", "@hourly"},
		map[string]string{"0 3 * *": "4 space-separated fields", "0 3 * * * *": "6 space-separated", "60 3 * * *": "minute field", "0 24 * * *": "hour field",
			"0 3 0 * *": "day of month field", "0 3 * 13 *": "month field", "0 3 * * 7": "day of week field", "0 3 * * */0": "step", "0  3 * * *": "6 space-separated",
			"0 3 * * MON": "day of week field", "5-1 * * * *": "range", "@reboot": "fields", "0 3 * * *\n  suspend: true": "control character", "a": "fields"}},
	{"list of url", protocol.ParamSpec{Type: List, Items: &protocol.ParamSpec{Type: URL}}, []string{"", "https://a.example", "https://a.example,http://b.example:5000"},
		map[string]string{"https://a.example,": "empty item at position 2", ",https://a.example": "empty item at position 1", "https://a.example,,https://b": "empty item at position 2",
			"https://a.example,b": "item 2", "https://a.example/\"": "item 1", strings.TrimSuffix(strings.Repeat("https://a.example,", MaxItems+1), ","): "at most 256"}},
	{"list of strings", protocol.ParamSpec{Type: List}, []string{"a,b c", "x"}, map[string]string{"a,\nb": "control character"}},
	{"list of registry hosts", protocol.ParamSpec{Type: List, Items: &protocol.ParamSpec{Type: String, Pattern: `[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:[0-9]{1,5})?`}},
		[]string{"docker.io,registry.k8s.io,quay.io", "localhost:5000"}, map[string]string{"docker.io,../../../tmp/X": "item 2", "docker.io/x": "item 1"}},
	{"list with enum", protocol.ParamSpec{Type: List, Enum: []string{"a", "b"}}, []string{"a,b", "b"}, map[string]string{"a,c": `item 2 "c" is not one of a, b`}},
	{"map of label values", protocol.ParamSpec{Type: Map, Items: &protocol.ParamSpec{Type: LabelValue}}, []string{"", "app=web", "app=web,example.com/tier=1", "k="},
		map[string]string{"app=web,app=db": `names key "app" twice`, "app": "not key=value", "=x": "not key=value", "bad key=x": "entry 1 key", "app=a b": "entry 1 value",
			"a=b,,c=d": "entry 2", "app=web\ninj=x": "control character"}},
	{"integer with enum", protocol.ParamSpec{Type: Integer, Enum: []string{"1", "3"}}, []string{"1", "3"}, map[string]string{"2": "not one of 1, 3"}},
	{"dns_subdomain with pattern", protocol.ParamSpec{Type: DNSSubdomain, Pattern: `.*\.internal`}, []string{"a.internal"}, map[string]string{"a.example": "pattern", "A.internal": "DNS name"}},
}

func TestCheckTypes(t *testing.T) {
	for _, c := range typeCases {
		t.Run(c.name, func(t *testing.T) {
			if p := ValidateSpec(c.spec); c.spec.Type != "" && len(p) > 0 {
				t.Fatalf("spec of the case is invalid: %v", p)
			}
			for _, v := range c.ok {
				if err := Check(c.spec, v); err != nil {
					t.Errorf("got: %v want: %s accepted", err, Quote(v))
				}
			}
			for _, v := range protocol.SortedKeys(c.bad) {
				err := Check(c.spec, v)
				if err == nil {
					t.Errorf("got: %s accepted want: refused with %q", Quote(v), c.bad[v])
					continue
				}
				var pe *Error
				if !errors.As(err, &pe) || pe.Value != v {
					t.Errorf("got: %T %v want: *Error holding the value", err, err)
				}
				if !strings.Contains(err.Error(), c.bad[v]) {
					t.Errorf("got: %v want: a message containing %q", err, c.bad[v])
				}
				if strings.ContainsAny(err.Error(), "\n\r\x00") {
					t.Errorf("got: %q want: no control character in the message", err.Error())
				}
			}
		})
	}
}

// TestEveryTypeHasACase keeps the table above covering every type.
func TestEveryTypeHasACase(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range typeCases {
		seen[c.spec.Type] = true
		if c.spec.Items != nil {
			seen[c.spec.Items.Type] = true
		}
	}
	for _, typ := range Types {
		if !seen[typ] {
			t.Errorf("type %s has no case in typeCases", typ)
		}
		if Form(typ) == forms[String] && typ != String {
			t.Errorf("type %s has no form of its own", typ)
		}
	}
}

func TestCheckUnknownTypeAndBadSpec(t *testing.T) {
	if err := Check(protocol.ParamSpec{Type: "colour"}, "red"); err == nil || !strings.Contains(err.Error(), `unknown parameter type "colour"`) {
		t.Errorf("got: %v want: unknown type", err)
	}
	if err := Check(protocol.ParamSpec{Type: String, Pattern: "("}, "x"); err == nil || !strings.Contains(err.Error(), "pattern") {
		t.Errorf("got: %v want: the bad pattern named", err)
	}
	if err := Check(protocol.ParamSpec{Type: Semver, Versions: "about 1"}, "1.0.0"); err == nil || !strings.Contains(err.Error(), "versions") {
		t.Errorf("got: %v want: the bad range named", err)
	}
	if err := Check(protocol.ParamSpec{Type: Enum}, "x"); err == nil || !strings.Contains(err.Error(), "declares none") {
		t.Errorf("got: %v want: an enum without values refuses", err)
	}
}

func TestPatternAnchored(t *testing.T) {
	s := protocol.ParamSpec{Type: String, Pattern: `a|b`}
	for _, v := range []string{"xa", "ax", "ab"} {
		if Check(s, v) == nil {
			t.Errorf("got: %q matched want: the pattern must match the whole value", v)
		}
	}
}

func TestHost(t *testing.T) {
	for _, v := range []string{"localhost", "a.b", "10.0.0.1", "::1", "node-1.example"} {
		if err := Host(v); err != nil {
			t.Errorf("got: %v want: %q accepted", err, v)
		}
	}
	for _, v := range []string{"", "A.b", "a_b", "10.0.0.256", "1234", "a.123", "fe80::1%eth0", "a..b"} {
		if Host(v) == nil {
			t.Errorf("got: %q accepted want: refused", v)
		}
	}
}

func TestPort(t *testing.T) {
	for _, p := range []string{"1", "22", "65535"} {
		if err := Port(p); err != nil {
			t.Errorf("got: %v want: %s accepted", err, p)
		}
	}
	for _, p := range []string{"0", "65536", "-1", "", "08", "+80", "80 "} {
		if Port(p) == nil {
			t.Errorf("got: %q accepted want: refused", p)
		}
	}
}
