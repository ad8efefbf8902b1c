package scripts_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/intentops/terraform-provider-cp/internal/packs"
)

// A configuration with a local module: the module reads a built-in pack's
// contract through the cp_scenario_pack data source, which needs no host.
const initRoot = `terraform {
  required_providers {
    cp = { source = "intentops/cp" }
  }
}

provider "cp" {}

module "pack" {
  source = "./modules/pack"
}

output "stages" {
  value = module.pack.stages
}
`

const initModule = `terraform {
  required_providers {
    cp = { source = "intentops/cp" }
  }
}

data "cp_scenario_pack" "tempo" {
  id      = "tempo"
  version = "~> 1.0"
}

output "stages" {
  value = [for t in data.cp_scenario_pack.tempo.templates : [for s in t.stages : s.id] if t.action == "install"][0]
}
`

// cli is a Terraform or OpenTofu binary and the registry host its
// "intentops/cp" source address stands for.
type cli struct {
	name, path, host string
}

// clis returns bin/tofu, and bin/terraform-1.5.7 when make
// testacc-terraform has built it. Without bin/tofu the test skips, or
// fails under CI=true.
func clis(t *testing.T, root string) []cli {
	t.Helper()
	tofu := filepath.Join(root, "bin", "tofu")
	if _, err := os.Stat(tofu); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s missing: make tools builds it (make test does)", tofu)
		}
		t.Skipf("%s missing: run make tools", tofu)
	}
	out := []cli{{"OpenTofu", tofu, "registry.opentofu.org"}}
	if tf := filepath.Join(root, "bin", "terraform-1.5.7"); fileExists(tf) {
		out = append(out, cli{"Terraform 1.5.7", tf, "registry.terraform.io"})
	}
	return out
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// cleanEnv is the environment without the make and Terraform variables
// the test runner may have (GNUmakefile exports TF_CLI_CONFIG_FILE), with
// the Go caches pinned so a changed HOME does not start a cold build.
func cleanEnv(t *testing.T, extra ...string) []string {
	t.Helper()
	goenv, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE", "GOPATH").Output()
	if err != nil {
		t.Fatalf("go env: %v", err)
	}
	vals := strings.Split(strings.TrimSpace(string(goenv)), "\n")
	var env []string
	for _, e := range os.Environ() {
		k, _, _ := strings.Cut(e, "=")
		if strings.HasPrefix(k, "TF_") || strings.HasPrefix(k, "MAKE") || k == "MFLAGS" || k == "HOME" ||
			k == "GOCACHE" || k == "GOMODCACHE" || k == "GOPATH" || k == "XDG_DATA_HOME" || k == "XDG_CONFIG_HOME" {
			continue
		}
		env = append(env, e)
	}
	env = append(env, "GOCACHE="+vals[0], "GOMODCACHE="+vals[1], "GOPATH="+vals[2], "TF_IN_AUTOMATION=1", "CHECKPOINT_DISABLE=1")
	return append(env, extra...)
}

func runIn(t *testing.T, dir string, env []string, name string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// writeConfig lays out the root module and its local module in a new dir.
func writeConfig(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "modules", "pack"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"main.tf": initRoot, "modules/pack/main.tf": initModule} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// tempoInstallStages is what the module's output must be: the stage ids
// of the built-in tempo.install template.
func tempoInstallStages(t *testing.T) []string {
	t.Helper()
	cat, err := packs.LoadBuiltin()
	if err != nil {
		t.Fatal(err)
	}
	p, err := cat.Get("tempo", "~> 1.0")
	if err != nil {
		t.Fatal(err)
	}
	tpl, err := p.Template("install")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, s := range tpl.Stages {
		ids = append(ids, s.ID)
	}
	return ids
}

// initPlanApply runs init, plan and apply in a fresh copy of the
// configuration and checks the output and the lock file.
func initPlanApply(t *testing.T, c cli, env []string, version string) {
	t.Helper()
	dir := writeConfig(t)
	steps := [][]string{
		{"init", "-input=false", "-no-color"},
		{"plan", "-input=false", "-no-color", "-out=tf.plan"},
		{"apply", "-input=false", "-no-color", "-auto-approve", "tf.plan"},
	}
	for _, args := range steps {
		if out, err := runIn(t, dir, env, c.path, args...); err != nil {
			t.Fatalf("%s %s: %v\n%s", c.name, args[0], err, out)
		}
	}
	out, err := runIn(t, dir, env, c.path, "output", "-json", "stages")
	if err != nil {
		t.Fatalf("%s output: %v\n%s", c.name, err, out)
	}
	var stages []string
	if err := json.Unmarshal([]byte(out), &stages); err != nil {
		t.Fatalf("%s output is not a list of strings: %v\n%s", c.name, err, out)
	}
	if want := tempoInstallStages(t); !slices.Equal(stages, want) {
		t.Errorf("%s: module output %v want %v", c.name, stages, want)
	}
	lock, err := os.ReadFile(filepath.Join(dir, ".terraform.lock.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	if want := `provider "` + c.host + `/intentops/cp" {` + "\n  version = \"" + version + `"`; !strings.Contains(string(lock), want) {
		t.Errorf("%s lock file:\n%s\nwant: %s", c.name, lock, want)
	}
}

// makeInstall runs `make install` with vars and returns the version it
// installed, checking the mirror layout for both registry hosts.
func makeInstall(t *testing.T, root string, env []string, mirror string, vars ...string) string {
	t.Helper()
	out, err := runIn(t, root, env, "make", append([]string{"install"}, vars...)...)
	if err != nil {
		t.Fatalf("make install: %v\n%s", err, out)
	}
	var version string
	for _, host := range []string{"registry.opentofu.org", "registry.terraform.io"} {
		m, _ := filepath.Glob(filepath.Join(mirror, host, "intentops", "cp", "*", "*_*", "terraform-provider-cp_v*"))
		if len(m) != 1 {
			t.Fatalf("make install: got %v under %s want one provider binary for %s\n%s", m, mirror, host, out)
		}
		rel, _ := filepath.Rel(filepath.Join(mirror, host, "intentops", "cp"), m[0])
		parts := strings.Split(rel, string(filepath.Separator))
		if parts[2] != "terraform-provider-cp_v"+parts[0] {
			t.Errorf("binary %s is not named for its version %s", m[0], parts[0])
		}
		version = parts[0]
	}
	return version
}

// The documented install: `make install`, then the CLI configuration it
// writes (the README's provider_installation block). init installs the
// provider from the mirror and the local module, plan and apply read a
// pack's contract through the module.
func TestInstallMirrorInitPlanApply(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	clis := clis(t, root)
	tmp := t.TempDir()
	home := filepath.Join(tmp, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	mirror, cfg := filepath.Join(tmp, "mirror"), filepath.Join(tmp, "mirror.tfrc")
	version := makeInstall(t, root, cleanEnv(t, "HOME="+home), mirror, "PLUGIN_MIRROR="+mirror, "MIRROR_CONFIG="+cfg)
	text, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"filesystem_mirror {\n    path    = \"" + mirror + "\"\n    include = [\"intentops/cp\"]", "direct {\n    exclude = [\"intentops/cp\"]"} {
		if !strings.Contains(string(text), want) {
			t.Errorf("CLI configuration:\n%s\nwant: %s", text, want)
		}
	}
	env := cleanEnv(t, "HOME="+home, "TF_CLI_CONFIG_FILE="+cfg)
	for _, c := range clis {
		t.Run(c.name, func(t *testing.T) { initPlanApply(t, c, env, version) })
	}

	// The same configuration with the mirror emptied: init fails, so the
	// passes above came from the mirror.
	if err := os.RemoveAll(mirror); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(mirror, 0o755); err != nil {
		t.Fatal(err)
	}
	dir := writeConfig(t)
	if out, err := runIn(t, dir, env, clis[0].path, "init", "-input=false", "-no-color"); err == nil {
		t.Errorf("init passed with an empty mirror:\n%s", out)
	}
}

// Without any CLI configuration: make install's default directory,
// ~/.terraform.d/plugins, is one the CLIs search on their own.
func TestInstallImpliedLocalMirror(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	clis := clis(t, root)
	home := filepath.Join(t.TempDir(), "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	env := cleanEnv(t, "HOME="+home)
	version := makeInstall(t, root, env, filepath.Join(home, ".terraform.d", "plugins"), "MIRROR_CONFIG="+filepath.Join(home, "unused.tfrc"))
	for _, c := range clis {
		t.Run(c.name, func(t *testing.T) { initPlanApply(t, c, env, version) })
	}
}

// The CI example's install steps, run as a runner runs them: the provider
// source at $CP_PROVIDER_SRC (this repository), make install, the CLI
// configuration exported through $GITHUB_ENV; then the steps' init, plan
// and apply with that environment. Every step of both jobs that installs
// the provider is skipped without CP_PROVIDER_REF, so a published provider
// comes from the registry, and all of them come before init.
func TestCIExampleInstallsFromMirror(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	clis := clis(t, root)
	b, err := os.ReadFile("../examples/ci/github-actions.yml")
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		Env  map[string]string `yaml:"env"`
		Jobs map[string]struct {
			Steps []struct {
				Name string            `yaml:"name"`
				If   string            `yaml:"if"`
				Uses string            `yaml:"uses"`
				Run  string            `yaml:"run"`
				With map[string]string `yaml:"with"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(b, &wf); err != nil {
		t.Fatal(err)
	}
	if wf.Env["CP_PROVIDER_REF"] != "${{ vars.CP_PROVIDER_REF }}" || wf.Env["CP_PROVIDER_SRC"] != "${{ github.workspace }}/.cp-provider" {
		t.Fatalf("workflow env: %v", wf.Env)
	}
	var install string
	for _, job := range []string{"plan", "apply"} {
		steps := wf.Jobs[job].Steps
		initAt, installAt, checkoutAt := -1, -1, -1
		for i, st := range steps {
			switch {
			case strings.HasPrefix(st.Run, "tofu init"):
				initAt = i
			case strings.Contains(st.Run, `make -C "$CP_PROVIDER_SRC" install`):
				installAt, install = i, st.Run
			case st.With["repository"] == "intentops/terraform-provider-cp":
				checkoutAt = i
				if st.With["path"] != ".cp-provider" {
					t.Errorf("%s: provider checked out to %q, not $CP_PROVIDER_SRC", job, st.With["path"])
				}
			}
			if (i == installAt || i == checkoutAt || st.Uses == "actions/setup-go@v5") && st.If != "env.CP_PROVIDER_REF != ''" {
				t.Errorf("%s: step %q runs without CP_PROVIDER_REF (if: %q)", job, st.Name, st.If)
			}
		}
		if checkoutAt < 0 || installAt < checkoutAt || initAt < installAt {
			t.Fatalf("%s: checkout %d, install %d, init %d: want the provider installed before init", job, checkoutAt, installAt, initAt)
		}
	}

	// Run the install step. It writes $CP_PROVIDER_SRC/bin/mirror.tfrc,
	// here this repository's: keep what was there.
	cfg := filepath.Join(root, "bin", "mirror.tfrc")
	if old, err := os.ReadFile(cfg); err == nil {
		t.Cleanup(func() { _ = os.WriteFile(cfg, old, 0o644) })
	} else {
		t.Cleanup(func() { _ = os.Remove(cfg) })
	}
	tmp := t.TempDir()
	home, ghEnv := filepath.Join(tmp, "home"), filepath.Join(tmp, "github_env")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	env := cleanEnv(t, "HOME="+home, "CP_PROVIDER_SRC="+root, "GITHUB_ENV="+ghEnv)
	if out, err := runIn(t, tmp, env, "bash", "-euo", "pipefail", "-c", install); err != nil {
		t.Fatalf("install step: %v\n%s", err, out)
	}
	exported, err := os.ReadFile(ghEnv)
	if err != nil {
		t.Fatal(err)
	}
	line := strings.TrimSpace(string(exported))
	if line != "TF_CLI_CONFIG_FILE="+cfg {
		t.Fatalf("GITHUB_ENV: %q want TF_CLI_CONFIG_FILE=%s", line, cfg)
	}
	version := ""
	if m, _ := filepath.Glob(filepath.Join(home, ".terraform.d", "plugins", "registry.opentofu.org", "intentops", "cp", "*")); len(m) == 1 {
		version = filepath.Base(m[0])
	} else {
		t.Fatalf("install step put %v in ~/.terraform.d/plugins", m)
	}
	// An empty home for init: only the exported CLI configuration can
	// point at the mirror.
	initHome := filepath.Join(tmp, "init-home")
	if err := os.MkdirAll(initHome, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range clis {
		t.Run(c.name, func(t *testing.T) { initPlanApply(t, c, cleanEnv(t, "HOME="+initHome, line), version) })
	}
}
