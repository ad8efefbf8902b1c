package planner

import (
	"errors"
	"strings"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

func fp(v float64) *float64 { return &v }

// typedPack declares parameters of several types and a job that reads
// them, some declarations untyped ({}), one narrower than the pack's.
func typedPack() *protocol.ScenarioPack {
	p := &protocol.ScenarioPack{ID: "typed", Version: "1.0.0",
		Parameters: map[string]protocol.ParamSpec{
			"name":     {Type: "dns_label", Required: true},
			"min_cpus": {Type: "integer", Min: fp(1), Max: fp(1024), Default: "2"},
			"cni":      {Type: "enum", Enum: []string{"calico", "cilium"}, Default: "calico"},
			"mirrors":  {Type: "list", Items: &protocol.ParamSpec{Type: "url"}},
			"port":     {Type: "integer", Min: fp(1), Max: fp(65535), Default: "51820"},
			"timeout":  {Type: "duration", Default: "5m"},
		},
		Jobs: map[string]*protocol.Job{
			"check": {ID: "check", Inputs: protocol.Inputs{Parameters: map[string]protocol.ParamSpec{
				"min_cpus": {}, "cni": {}, "mirrors": {Required: true},
				"port":  {Type: "integer", Min: fp(1024), Max: fp(65535)},
				"level": {Type: "integer", Min: fp(0), Max: fp(9), Default: "3"},
			}}},
		},
	}
	return p
}

func paramErrs(t *testing.T, err error) ParamErrors {
	t.Helper()
	if !errors.Is(err, ErrParams) {
		t.Fatalf("got: %v want: an error wrapping ErrParams", err)
	}
	pes, ok := AsParamErrors(err)
	if !ok {
		t.Fatalf("got: %T %v want: ParamErrors", err, err)
	}
	return pes
}

func TestPackParamsTyped(t *testing.T) {
	payload := "BASH_VERSINFO[$(touch /tmp/x)]*0"
	big := strings.Repeat("a", 100*1024)
	_, err := packParams(typedPack(), map[string]string{
		"name": big, "min_cpus": payload, "cni": "flannel", "mirrors": "https://a.example,https://b.example/\"", "colour": "blue",
		"level": "12",
	}, nil)
	pes := paramErrs(t, err)
	want := []struct{ name, value, msg string }{
		{"cni", "flannel", `"flannel" is not one of calico, cilium`},
		{"colour", "blue", "unknown: the pack has no such parameter; known: cni, level, min_cpus, mirrors, name, port, timeout"},
		{"level", "12", `"12" is above the largest allowed 9`},
		{"min_cpus", payload, "is not a whole number"},
		{"mirrors", "https://a.example,https://b.example/\"", `item 2: "https://b.example/\"" holds '"'`},
		{"name", big, "more characters) is not a DNS label"},
	}
	if len(pes) != len(want) {
		t.Fatalf("got: %d errors %v want: %d, one per refused value", len(pes), err, len(want))
	}
	for i, w := range want {
		pe := pes[i]
		if pe.Name != w.name || pe.Value != w.value || pe.Pack != "typed@1.0.0" || pe.Job != "" || !strings.Contains(pe.Msg, w.msg) {
			t.Errorf("error %d: got: %+.300v want: name %s, the value whole, a message containing %q", i, *pe, w.name, w.msg)
		}
		if len(pe.Msg) > 400 {
			t.Errorf("error %d: got: a %d-byte message want: the value quoted to 200 characters", i, len(pe.Msg))
		}
	}
}

func TestPackParamsMergesAndRequires(t *testing.T) {
	got, err := packParams(typedPack(), map[string]string{"name": "prod", "min_cpus": "", "port": "6000"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got["min_cpus"] != "2" || got["port"] != "6000" || got["cni"] != "calico" || got["name"] != "prod" {
		t.Errorf("got: %v want: defaults, an empty value as no value, and intent values", got)
	}
	_, err = packParams(typedPack(), map[string]string{"name": ""}, nil)
	pes := paramErrs(t, err)
	if len(pes) != 1 || pes[0].Name != "name" || !strings.Contains(pes[0].Msg, "is required") {
		t.Errorf("got: %v want: name is required", err)
	}
}

func TestPackParamsDefaultsChecked(t *testing.T) {
	p := typedPack()
	s := p.Parameters["min_cpus"]
	s.Default = "0"
	p.Parameters["min_cpus"] = s
	_, err := packParams(p, map[string]string{"name": "prod"}, nil)
	pes := paramErrs(t, err)
	if len(pes) != 1 || pes[0].Name != "min_cpus" || !strings.Contains(pes[0].Msg, "the pack's default \"0\" is below the smallest allowed 1") {
		t.Errorf("got: %v want: the pack's default refused", err)
	}
}

func TestPackParamsSkipsSubOperations(t *testing.T) {
	_, err := packParams(typedPack(), map[string]string{"name": "prod", "minio.bucket": "x"}, func(p string) bool { return p == "minio" })
	if err != nil {
		t.Errorf("got: %v want: minio.bucket left to the sub-operation", err)
	}
	_, err = packParams(typedPack(), map[string]string{"name": "prod", "minio.bucket": "x"}, func(string) bool { return false })
	if pes := paramErrs(t, err); pes[0].Name != "minio.bucket" {
		t.Errorf("got: %v want: minio.bucket unknown when no sub-operation takes it", err)
	}
}

func TestSubPackParamsNamesAsTheIntent(t *testing.T) {
	_, err := subPackParams(fixtureMinio(), map[string]string{"minio.mode": "clustered", "retention": "1h"})
	pes := paramErrs(t, err)
	if len(pes) != 1 || pes[0].Name != "minio.mode" || pes[0].Pack != "minio@1.0.0" || !strings.Contains(pes[0].Msg, `"clustered" is not one of standalone, distributed`) {
		t.Errorf("got: %v want: minio.mode refused under the name the intent used", err)
	}
}

func TestSubOperationParamThroughBuild(t *testing.T) {
	in, err := tempoInput("stage", nil)
	if err != nil {
		t.Fatal(err)
	}
	in.Intent.Parameters = map[string]string{"minio.mode": "clustered"}
	_, err = Build(in)
	pes := paramErrs(t, err)
	if len(pes) != 1 || pes[0].Name != "minio.mode" {
		t.Errorf("got: %v want: minio.mode refused", err)
	}
}

func checkUnit(override map[string]string, base map[string]string) *unit {
	p := typedPack()
	return &unit{key: "check", job: p.Jobs["check"], pack: p, base: base, override: override}
}

func TestJobParams(t *testing.T) {
	base := map[string]string{"name": "prod", "min_cpus": "2", "cni": "calico", "mirrors": "https://m.example", "port": "51820", "timeout": "5m"}
	got, err := jobParams(checkUnit(nil, base))
	if err != nil {
		t.Fatal(err)
	}
	if got["level"] != "3" || got["cni"] != "calico" || got["port"] != "51820" {
		t.Errorf("got: %v want: the job's default and the pack's values", got)
	}
	cases := []struct {
		name     string
		override map[string]string
		base     map[string]string
		want     []string // "name: part of the message"
	}{
		// {} takes the pack's spec: an override is checked against its enum.
		{"untyped declaration takes the pack's enum", map[string]string{"cni": "flannel"}, nil, []string{`cni: the patch's value "flannel" is not one of calico, cilium`}},
		{"untyped declaration takes the pack's range", map[string]string{"min_cpus": "0"}, nil, []string{`min_cpus: the patch's value "0" is below the smallest allowed 1`}},
		{"override payload", map[string]string{"min_cpus": "1+1"}, nil, []string{`min_cpus: the patch's value "1+1" is not a whole number`}},
		{"typed declaration narrows the value", nil, map[string]string{"port": "80"}, []string{`port: "80" is below the smallest allowed 1024`}},
		{"typed declaration and the pack's spec", map[string]string{"port": "70000"}, nil, []string{`port: the patch's value "70000" is above the largest allowed 65535`}},
		{"required without a value", nil, map[string]string{"mirrors": ""}, []string{"mirrors: is required and has no value"}},
		{"list item", map[string]string{"mirrors": "https://a.example,ftp://b"}, nil, []string{`mirrors: the patch's value "https://a.example,ftp://b" item 2: "ftp://b" is not an http(s) URL`}},
		{"patch sets what the job does not read", map[string]string{"colour": "blue"}, nil, []string{"colour: is set by a patch, but job check does not read it (it reads: cni, level, min_cpus, mirrors, port)"}},
		{"several at once", map[string]string{"cni": "weave", "level": "x"}, nil, []string{`cni: the patch's value "weave"`, `level: the patch's value "x"`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := map[string]string{}
			for k, v := range base {
				b[k] = v
			}
			for k, v := range c.base {
				b[k] = v
			}
			_, err := jobParams(checkUnit(c.override, b))
			pes := paramErrs(t, err)
			if len(pes) != len(c.want) {
				t.Fatalf("got: %v want: %d errors", err, len(c.want))
			}
			for i, w := range c.want {
				name, msg, _ := strings.Cut(w, ": ")
				if pes[i].Name != name || pes[i].Job != "check" || !strings.Contains(pes[i].Msg, msg) {
					t.Errorf("got: %+v want: %s", *pes[i], w)
				}
			}
		})
	}
}

func TestJobParamsJobDefaultChecked(t *testing.T) {
	// An untyped declaration's default is checked against the pack's spec.
	u := checkUnit(nil, map[string]string{"mirrors": "https://m.example"})
	u.job.Inputs.Parameters["min_cpus"] = protocol.ParamSpec{Default: "0"}
	_, err := jobParams(u)
	pes := paramErrs(t, err)
	if len(pes) != 1 || pes[0].Name != "min_cpus" || !strings.Contains(pes[0].Msg, `the job's default "0" is below the smallest allowed 1`) {
		t.Errorf("got: %v want: the job's default refused", err)
	}
}

// A job of a plan patch is not loaded from a pack: its typed declarations
// are checked at plan.
func TestJobParamsInlineSpecChecked(t *testing.T) {
	u := checkUnit(nil, map[string]string{"mirrors": "https://m.example"})
	u.job.Inputs.Parameters["level"] = protocol.ParamSpec{Type: "integer", Max: fp(9), Default: "10"}
	_, err := jobParams(u)
	pes := paramErrs(t, err)
	if len(pes) != 1 || pes[0].Name != "level" || !strings.Contains(pes[0].Msg, `the job declares it with an invalid spec: default: "10" is above the largest allowed 9`) {
		t.Errorf("got: %v want: the inline job's spec refused", err)
	}
}

func TestJobParamsSubOperationName(t *testing.T) {
	u := checkUnit(map[string]string{}, map[string]string{"mirrors": ""})
	u.subOp = "typed"
	_, err := jobParams(u)
	if pes := paramErrs(t, err); pes[0].Name != "typed.mirrors" {
		t.Errorf("got: %v want: typed.mirrors, the name the intent would use", err)
	}
}
