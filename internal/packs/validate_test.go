package packs

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// invalidCases maps each fixture under testdata/invalid to the problem it
// must produce, as "file:line: field: message start".
var invalidCases = map[string]string{
	"action-without-template":       `pack.yaml:6: actions[1]: action "upgrade" has no plan template`,
	"after-unknown-job":             `jobs/apply.yaml:19: after[1]: after names job "cleanup", which is not in the job library`,
	"attribute-unknown-param":       `jobs/prepare.yaml:12: outputs.provides.capabilities[0].attributes.region: attribute region="{region}" names parameter "region"`,
	"duplicate-evidence-id":         `jobs/prepare.yaml:21: outputs.evidence[1].id: evidence id "marker_present" is already used by outputs.evidence[0]`,
	"duplicate-job-id":              `jobs/prepare.yaml:2: id: job id "prepare" is already declared in `,
	"duplicate-stage-id":            `templates/install.yaml:9: stages[1].id: duplicate stage id "prepare": already used by stages[0]`,
	"entrypoint-not-in-template":    `pack.yaml:14: plan_templates[0].entrypoint: entrypoint "bootstrap" is not a job of template demo.install`,
	"evidence-without-command":      `jobs/apply.yaml:14: outputs.evidence[0]: evidence "applied" has no check: set command`,
	"gate-unknown-type":             `templates/install.yaml:14: gates[0].type: unknown gate type "vote"`,
	"gate-without-options":          `templates/install.yaml:13: gates[0].options: gate "approve" has no options`,
	"idempotency-unknown-param":     `jobs/prepare.yaml:27: controls.idempotency.key: idempotency key "prepare:{node_id}:{greeting}:{colour}" names parameter "colour"`,
	"invalid-duration":              `jobs/prepare.yaml:28: controls.timeout: duration "2 minutes": use a value such as 30s`,
	"invalid-regex":                 `jobs/prepare.yaml:24: outputs.evidence[1].expected: evidence "greeting_written": expected is not a valid regular expression`,
	"invalid-sensitivity":           `jobs/prepare.yaml:15: outputs.artifacts[0].sensitivity: invalid sensitivity "private"`,
	"job-param-default-not-of-type": `jobs/prepare.yaml:8: inputs.parameters.greeting.default: "Hello World" is not a DNS label`,
	"job-param-missing-type":        `jobs/prepare.yaml:9: inputs.parameters.colour.type: missing; declare one of bool, cidr`,
	"job-param-narrows-untyped":     `jobs/prepare.yaml:8: inputs.parameters.greeting: narrows the pack's spec without a type of its own; declare type: string`,
	"job-param-type-differs":        `jobs/prepare.yaml:8: inputs.parameters.greeting.type: type dns_label differs from string of pack.yaml parameters.greeting`,
	"param-bad-item-type":           `pack.yaml:11: parameters.greeting.items.type: unknown type "colour"`,
	"param-bad-pattern":             `pack.yaml:10: parameters.greeting.pattern: error parsing regexp: missing closing ): ` + "`(hel`",
	"param-default-not-of-type":     `pack.yaml:10: parameters.greeting.default: "hello" is not a whole number`,
	"param-missing-type":            `pack.yaml:8: parameters.greeting.type: missing; declare one of`,
	"param-unknown-type":            `pack.yaml:9: parameters.greeting.type: unknown type "colour"; declare one of`,
	"job-in-two-stages":             `templates/install.yaml:11: stages[1].jobs[1]: job "prepare" is already in stage "prepare"`,
	"job-without-evidence":          `jobs/apply.yaml:12: outputs: job "apply" has no evidence`,
	"missing-pack-id":               `pack.yaml:1: id: pack id is empty`,
	"script-file-missing":           `jobs/apply.yaml:20: script: script "scripts/deploy.sh" does not exist in the pack`,
	"removed-field-storage":         `jobs/prepare.yaml:16: outputs.artifacts[0].storage: key "storage" was removed from the pack format: a secret artifact is identified by sensitivity: secret alone; delete it`,
	"stage-before-provider":         `templates/install.yaml:8: stages[0].jobs[0]: job "apply" in stage "apply" needs capability demo.prepared from job "prepare", which is in the later stage "prepare" (stages[1])`,
	"stage-without-jobs":            `templates/install.yaml:11: stages[1].jobs: stage "apply" has no jobs`,
	"template-unknown-kind":         `pack.yaml:16: plan_templates[0].kind: template kind "setup" is not one of create, day2, destroy`,
	"export-unknown-placeholder":    `pack.yaml:9: provides[0].attributes.colour: attribute colour="{colour}" names "colour", which is neither a parameter of the pack nor one of api_endpoint, environment, name, region`,
	"template-kind-twice":           `pack.yaml:16: plan_templates[1].kind: template "demo.setup" is a second create template (also plan_templates[0])`,
	"template-file-missing":         `pack.yaml:15: plan_templates[0].file: template file "templates/setup.yaml" does not exist in the pack`,
	"template-undeclared-action":    `pack.yaml:17: plan_templates[1].action: template "demo.uninstall" is for action "uninstall", which is not declared in actions`,
	"template-unknown-job":          `templates/install.yaml:11: stages[1].jobs[1]: job "publish" is not in the job library`,
	"unknown-capability-scope":      `jobs/apply.yaml:9: inputs.requires.capabilities[0].scope: unknown capability scope "host"`,
	"unknown-expand":                `jobs/prepare.yaml:5: scope.expand: unknown scope.expand "every_node"`,
	"unknown-key-job":               `jobs/apply.yaml:17: outputs.evidence[0].comand: unknown key "comand"`,
	"unknown-key-pack":              `pack.yaml:5: colour: unknown key "colour"`,
	"unknown-key-template":          `templates/install.yaml:11: stages[1].owner: unknown key "owner"`,
	"version-not-semver":            `pack.yaml:3: version: version "1.0" is not a semantic version`,
	"yaml-syntax-error":             `jobs/apply.yaml:4: YAML syntax error: mapping values are not allowed in this context`,
}

func TestInvalidPacks(t *testing.T) {
	entries, err := os.ReadDir("testdata/invalid")
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(invalidCases) {
		t.Errorf("got: %d fixtures under testdata/invalid want: %d cases in the table", len(entries), len(invalidCases))
	}
	for name, want := range invalidCases {
		t.Run(name, func(t *testing.T) {
			p, err := Load(os.DirFS(filepath.Join("testdata/invalid", name)), name)
			if err == nil {
				t.Fatalf("got: pack %s loaded want: problem %q", p.Ref(), want)
			}
			var ps Problems
			if !errors.As(err, &ps) {
				t.Fatalf("got: %T %v want: Problems", err, err)
			}
			if !strings.Contains(err.Error(), "\n  "+name+"/"+want) {
				t.Fatalf("got:\n%v\nwant a line starting: %s/%s", err, name, want)
			}
		})
	}
}

func TestEveryProblemInOneRun(t *testing.T) {
	_, err := LoadDir("testdata/invalid")
	if err == nil {
		t.Fatal("got: no error want: every invalid fixture reported")
	}
	prefix := filepath.ToSlash(filepath.Clean("testdata/invalid"))
	msg := err.Error()
	for name, want := range invalidCases {
		if !strings.Contains(msg, "\n  "+prefix+"/"+name+"/"+want) {
			t.Errorf("case %s not reported; want a line starting: %s/%s/%s", name, prefix, name, want)
		}
	}
	lines := strings.Split(msg, "\n")[1:]
	for i := 1; i < len(lines); i++ {
		a, _, _ := strings.Cut(lines[i-1], ":")
		b, _, _ := strings.Cut(lines[i], ":")
		if a > b {
			t.Errorf("problems not sorted by file: %q before %q", lines[i-1], lines[i])
		}
	}
	if !strings.Contains(msg, "duplicate-job-id/jobs/prepare.yaml:2: id: job id \"prepare\" is already declared in "+prefix+"/duplicate-job-id/jobs/prepare-again.yaml:2") {
		t.Errorf("got:\n%s\nwant: the duplicate job id pointing at the first declaration", msg)
	}
}

func TestValidDemoPack(t *testing.T) {
	cat, err := LoadDir("testdata/valid/demo")
	if err != nil {
		t.Fatal(err)
	}
	p, err := cat.Get("demo", "")
	if err != nil {
		t.Fatal(err)
	}
	if p.Source != "testdata/valid/demo" {
		t.Errorf("got: source %q want: testdata/valid/demo", p.Source)
	}
	tpl, err := p.Template("install")
	if err != nil {
		t.Fatal(err)
	}
	if tpl.Ref() != "demo.install@1.0.0" {
		t.Errorf("got: %s want: demo.install@1.0.0", tpl.Ref())
	}
	if got := strings.Join(tpl.JobIDs(), ","); got != "prepare,apply" {
		t.Errorf("got: %s want: prepare,apply", got)
	}
	prep := p.Jobs["prepare"]
	if prep == nil || prep.Controls.Timeout.D().String() != "2m0s" || prep.Outputs.Artifacts[0].TTL.D().String() != "1h0m0s" {
		t.Fatalf("got: %+v want: job prepare with timeout 2m and artifact ttl 1h", prep)
	}
	if code := prep.Outputs.Evidence[0].ExpectedExitCode; code == nil || *code != 0 {
		t.Errorf("got: %v want: expected_exit_code 0", code)
	}
	if _, ok := p.Scripts["scripts/apply.sh"]; !ok {
		t.Errorf("got: scripts %v want: scripts/apply.sh", p.Scripts)
	}
}

func TestLoadDirErrors(t *testing.T) {
	if _, err := LoadDir("testdata/does-not-exist"); err == nil || !strings.Contains(err.Error(), "pass a pack directory") {
		t.Errorf("got: %v want: an error saying what to pass", err)
	}
	dir := t.TempDir()
	if _, err := LoadDir(dir); err == nil || !strings.Contains(err.Error(), "no pack.yaml") {
		t.Errorf("got: %v want: no pack.yaml", err)
	}
	if err := os.Mkdir(filepath.Join(dir, "notes"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadDir(dir); err == nil || !strings.Contains(err.Error(), "notes: directory has no pack.yaml") {
		t.Errorf("got: %v want: notes has no pack.yaml", err)
	}
}

func TestProblemsErrorSorted(t *testing.T) {
	ps := Problems{
		{File: "p/jobs/b.yaml", Line: 3, Field: "id", Message: "second"},
		{File: "p/jobs/a.yaml", Line: 9, Message: "first"},
		{File: "p/jobs/b.yaml", Line: 1, Field: "title", Message: "between"},
		{File: "p/pack.yaml", Message: "whole file"},
	}
	want := "scenario pack has 4 problems:\n" +
		"  p/jobs/a.yaml:9: first\n" +
		"  p/jobs/b.yaml:1: title: between\n" +
		"  p/jobs/b.yaml:3: id: second\n" +
		"  p/pack.yaml: whole file"
	if got := ps.Error(); got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
}
