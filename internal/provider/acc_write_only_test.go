package provider

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/testhosts"
)

// woProbePack is a user pack whose one job needs a bound object storage
// (its endpoint and credentials artifacts) and runs through sudo: it
// writes its uid and the SHA-256 of the credentials it was given as root,
// and its evidence holds only while that digest matches the credentials
// of the current run, so new credentials make it run again.
var woProbePack = map[string]string{
	"pack.yaml": `scenario_pack:
  id: wo-probe
  version: 1.0.0
  title: Write-only probe
  resource_types: [wo.probe]
  actions: [install]
  requires:
    - capability: object_storage.s3
      scope: cluster
  plan_templates:
    - id: wo-probe.install
      action: install
      entrypoint: use-storage
      file: templates/install.yaml
`,
	"templates/install.yaml": `plan_template:
  id: wo-probe.install
  action: install
  title: Use the bound storage
  stages:
    - id: use
      title: Use
      jobs: [use-storage]
`,
	"jobs/use-storage.yaml": `job:
  id: use-storage
  title: Use storage
  scope:
    expand: once
  inputs:
    requires:
      capabilities:
        - {key: object_storage.s3, scope: cluster}
      artifacts:
        - {id: object_storage.s3.endpoint, scope: cluster}
        - {id: object_storage.s3.credentials, scope: cluster}
  outputs:
    provides:
      capabilities:
        - {key: wo.probe.done, scope: cluster}
    evidence:
      - id: ran_as_root
        command: cat /var/lib/wo-probe/uid
        expected: "0"
      - id: current_credentials
        command: >-
          test "$(cat /var/lib/wo-probe/creds.sha)" = "$(sha256sum <"$CP_ARTIFACT_OBJECT_STORAGE_S3_CREDENTIALS" | cut -d' ' -f1)" && echo current
        expected: current
  controls:
    idempotency: {key: "use-storage:{cluster}"}
    timeout: 1m
    become: true
  script: scripts/use-storage.sh
`,
	"scripts/use-storage.sh": `#!/usr/bin/env bash
set -euo pipefail
install -d -m 0755 /var/lib/wo-probe
id -u >/var/lib/wo-probe/uid
sha256sum <"$CP_ARTIFACT_OBJECT_STORAGE_S3_CREDENTIALS" | cut -d' ' -f1 >/var/lib/wo-probe/creds.sha
cp "$CP_ARTIFACT_OBJECT_STORAGE_S3_ENDPOINT" /var/lib/wo-probe/endpoint
chmod 0644 /var/lib/wo-probe/uid /var/lib/wo-probe/creds.sha /var/lib/wo-probe/endpoint
`,
}

func writePack(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "wo-probe")
	for name, body := range files {
		p := filepath.Join(dir, name)
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		mode := os.FileMode(0o644)
		if strings.HasSuffix(name, ".sh") {
			mode = 0o755
		}
		must(t, os.WriteFile(p, []byte(body), mode))
	}
	return dir
}

// setConfig replaces the run's configuration.
func (r *tofuRun) setConfig(config string) {
	must(r.t, os.WriteFile(filepath.Join(r.dir, "main.tf"), []byte(`terraform {
  required_providers {
    cp = { source = "intentops/cp" }
  }
}
`+config), 0o644))
}

// tofu runs one command and returns its combined output and exit code.
func (r *tofuRun) tofu(args ...string) (string, int) {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c := r.cmd(ctx, filepath.Join(r.dir, "tofu-"+args[0]+".log"), args...)
	out, err := c.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return string(out), ee.ExitCode()
	}
	if err != nil {
		r.t.Fatalf("tofu %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out), 0
}

// mustTofu runs one command that must exit with want.
func (r *tofuRun) mustTofu(want int, args ...string) string {
	r.t.Helper()
	out, code := r.tofu(args...)
	if code != want {
		r.t.Fatalf("got: tofu %s exit %d want: %d\n%s", strings.Join(args, " "), code, want, out)
	}
	return out
}

// absent fails when any of the secrets appears in text.
func absent(t *testing.T, what, text string, secrets map[string]string) {
	t.Helper()
	for name, s := range secrets {
		if i := strings.Index(text, s); i >= 0 {
			t.Errorf("got: %s holds %s (%q) want: never persisted or shown", what, name, text[max(0, i-300):i])
		}
	}
}

// keyLines are the base64 body lines of a PEM private key: any of them in
// a file means the key was written there.
func keyLines(t *testing.T, pem string) map[string]string {
	out := map[string]string{}
	for i, l := range strings.Split(pem, "\n") {
		if l != "" && !strings.HasPrefix(l, "-----") {
			out[fmt.Sprintf("private key line %d", i)] = l
		}
	}
	if len(out) == 0 {
		t.Fatalf("the test hosts' key has no body line")
	}
	return out
}

func sha256Hex(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// Write-only secrets through OpenTofu against real sshd hosts whose login
// user needs a password for sudo: the provider logs in with the key given
// as private_key_wo (read with file()), sudo gets become_password_wo, and
// a cp_scenario binds an S3 provider whose keys are access_key_wo and
// secret_key_wo. The job ran as root with exactly those credentials, and
// neither the key, the password nor the S3 keys are in the state file,
// the saved plan's JSON or the CLI output. Changing only a write-only key
// plans nothing; bumping credentials_wo_version plans the action again and
// the job reruns with the new keys. Without the sudo password the apply
// fails (sudo asks for one), so the password is what made it work.
func TestAccWriteOnly_secretsNeverPersisted(t *testing.T) {
	testAccPreCheck(t)
	const sudoPassword = "sudo-Pa55-wo-7Qx"
	c := testhosts.Require(t, testhosts.Options{Names: []string{"wo-1"},
		Users: []testhosts.User{{Name: "deployer", KeyAuth: true, Password: sudoPassword, Sudo: testhosts.SudoPassword}}})
	h := c.Hosts()[0]
	keyPEM, err := os.ReadFile(c.KeyPath())
	must(t, err)
	pack := writePack(t, woProbePack)

	provider := func(sudo string) string {
		return fmt.Sprintf(`
variable "sudo_password" {
  type      = string
  ephemeral = true
}
variable "s3_access_key" {
  type      = string
  ephemeral = true
}
variable "s3_secret_key" {
  type      = string
  ephemeral = true
}
provider "cp" {
  pack_dirs = [%q]
  ssh = {
    user             = %q
    private_key_wo   = file(%q)
    known_hosts_file = %q
    %s
  }
}
`, pack, h.User, c.KeyPath(), c.KnownHostsPath(), sudo)
	}
	withSudo := provider(`become_password_wo = var.sudo_password`)
	scenario := func(version int) string {
		return fmt.Sprintf(`
resource "cp_scenario" "probe" {
  pack  = "wo-probe"
  name  = "probe"
  hosts = [{ name = %q, address = %q, role = "master" }]
  candidates = [{
    name                   = "ext-s3"
    provider               = "aws_s3"
    capability             = "object_storage.s3"
    attributes             = { endpoint = "https://s3.wo.example.test" }
    access_key_wo          = var.s3_access_key
    secret_key_wo          = var.s3_secret_key
    credentials_wo_version = %d
  }]
}
`, h.Name, h.Addr, version)
	}
	const ak1, sk1 = "AKIAWOPROBE000001", "wo-secret-key-one-9f3a1c"
	const ak2, sk2 = "AKIAWOPROBE000002", "wo-secret-key-two-77b2e0"
	secrets := keyLines(t, string(keyPEM))
	secrets["sudo password"] = sudoPassword
	for _, s := range []string{ak1, sk1, ak2, sk2} {
		secrets["S3 key "+s[:6]] = s
	}
	r := newTofuRun(t, "")
	base := r.env
	keys := func(access, secret string) {
		r.env = append(append([]string(nil), base...), "TF_VAR_sudo_password="+sudoPassword,
			"TF_VAR_s3_access_key="+access, "TF_VAR_s3_secret_key="+secret)
	}
	var outputs strings.Builder

	// Without the sudo password: sudo asks for one and the apply fails.
	keys(ak1, sk1)
	r.setConfig(provider("") + scenario(1))
	out, code := r.tofu("apply", "-auto-approve")
	outputs.WriteString(out)
	t.Logf("apply without the sudo password:\n%s", out)
	if code == 0 || !strings.Contains(out, "sudo: a password is required") {
		t.Fatalf("got: apply without become_password_wo exit %d want: sudo refusing without a password\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(h.Upper, "var/lib/wo-probe/creds.sha")); err == nil {
		t.Fatalf("got: the job ran without the sudo password want: it cannot")
	}

	// With it: plan saved and shown as JSON, then applied.
	r.setConfig(withSudo + scenario(1))
	outputs.WriteString(r.mustTofu(0, "plan", "-out=first.tfplan"))
	planJSON := r.mustTofu(0, "show", "-json", "first.tfplan")
	if !strings.Contains(planJSON, `"credentials_wo_version":1`) || !strings.Contains(planJSON, "use-storage") {
		t.Fatalf("got: plan JSON without the version and the job want: both\n%.2000s", planJSON)
	}
	absent(t, "the plan JSON", planJSON, secrets)
	outputs.WriteString(r.mustTofu(0, "apply", "-auto-approve", "first.tfplan"))
	readHost := func(p string) string {
		b, err := os.ReadFile(filepath.Join(h.Upper, p))
		if err != nil {
			t.Fatalf("got: %v want: %s written on %s by the job", err, p, h.Name)
		}
		return strings.TrimSpace(string(b))
	}
	creds1 := "AWS_ACCESS_KEY_ID=" + ak1 + "\nAWS_SECRET_ACCESS_KEY=" + sk1 + "\n"
	if got := readHost("var/lib/wo-probe/uid"); got != "0" {
		t.Errorf("got: job ran as uid %s want: 0 (sudo with become_password_wo)", got)
	}
	if got := readHost("var/lib/wo-probe/creds.sha"); got != sha256Hex(creds1) {
		t.Errorf("got: credentials digest %s want: %s, the digest of access_key_wo and secret_key_wo", got, sha256Hex(creds1))
	}
	if got := readHost("var/lib/wo-probe/endpoint"); got != "https://s3.wo.example.test" {
		t.Errorf("got: endpoint %q want: attributes.endpoint", got)
	}
	state, err := os.ReadFile(filepath.Join(r.dir, "terraform.tfstate"))
	must(t, err)
	if !strings.Contains(string(state), `"credentials_wo_version": 1`) || !strings.Contains(string(state), `"status": "Completed"`) {
		t.Fatalf("got: state without the version or a completed operation want: both\n%.3000s", state)
	}
	absent(t, "the state file", string(state), secrets)

	// A new write-only value alone is invisible to the plan: no change.
	keys(ak2, sk2)
	r.setConfig(withSudo + scenario(1))
	outputs.WriteString(r.mustTofu(0, "plan", "-detailed-exitcode"))

	// Bumping the version plans the action again; the job reruns with the
	// new keys because its evidence compares them.
	r.setConfig(withSudo + scenario(2))
	outputs.WriteString(r.mustTofu(2, "plan", "-detailed-exitcode", "-out=second.tfplan"))
	planJSON = r.mustTofu(0, "show", "-json", "second.tfplan")
	absent(t, "the second plan JSON", planJSON, secrets)
	outputs.WriteString(r.mustTofu(0, "apply", "-auto-approve", "second.tfplan"))
	creds2 := "AWS_ACCESS_KEY_ID=" + ak2 + "\nAWS_SECRET_ACCESS_KEY=" + sk2 + "\n"
	if got := readHost("var/lib/wo-probe/creds.sha"); got != sha256Hex(creds2) {
		t.Errorf("got: credentials digest %s after the version bump want: %s, the new keys'", got, sha256Hex(creds2))
	}
	state, err = os.ReadFile(filepath.Join(r.dir, "terraform.tfstate"))
	must(t, err)
	absent(t, "the state file after the rotation", string(state), secrets)
	absent(t, "the CLI output", outputs.String(), secrets)
	outputs.WriteString(r.mustTofu(0, "plan", "-detailed-exitcode"))
}

// Each misuse of a write-only argument is refused by `tofu plan` with the
// attribute's path, and the value given (through an ephemeral variable,
// so the CLI's own source excerpt cannot show it) is never in the output.
func TestAccWriteOnly_refusedAtPlan(t *testing.T) {
	testAccPreCheck(t)
	keyPEM := testKeyPEM(t, "")
	keyFile := filepath.Join(t.TempDir(), "id_ed25519")
	must(t, os.WriteFile(keyFile, []byte(keyPEM), 0o600))
	t.Setenv("CP_TEST_WO_SUDO_ENV", "from-env")
	vars := `
variable "secret" {
  type      = string
  ephemeral = true
}
`
	pack := `
data "cp_scenario_pack" "k" {
  id = "kubernetes"
}
`
	provider := func(ssh string) string {
		return vars + "provider \"cp\" {\n  ssh = {\n    known_hosts_file = \"/dev/null\"\n    " + ssh + "\n  }\n}\n" + pack
	}
	scenario := func(candidate string) string {
		return vars + `provider "cp" {}
resource "cp_scenario" "s" {
  pack  = "kubernetes"
  name  = "s"
  hosts = [{ name = "h", address = "10.0.0.1" }]
  candidates = [{ name = "ext", provider = "aws_s3", capability = "object_storage.s3", attributes = { endpoint = "https://s3.example.test" }, ` + candidate + ` }]
}
`
	}
	cases := []struct {
		name, secret, config, at, says string
	}{
		{"key file and key", keyPEM, provider(`private_key_file = "` + keyFile + `"
    private_key_wo = var.secret`), "ssh.private_key_wo", "private_key_file and private_key_wo are both set"},
		{"not a key", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIWoNotAPrivateKey", provider(`private_key_wo = var.secret`), "ssh.private_key_wo", "is not a private key"},
		{"encrypted key", testKeyPEM(t, "passphrase"), provider(`private_key_wo = var.secret`), "ssh.private_key_wo", "encrypted with a passphrase"},
		{"password env and password", "Sudo-Pw-91x", provider(`become_password_env = "CP_TEST_WO_SUDO_ENV"
    become_password_wo = var.secret`), "ssh.become_password_wo", "become_password_env and become_password_wo are both set"},
		{"one S3 key", "AKIAONLYONEKEY01", scenario(`access_key_wo = var.secret`), "candidates[0].secret_key_wo", "access_key_wo is set but secret_key_wo is not"},
		{"malformed S3 key", "bad key; rm -rf", scenario(`access_key_wo = "AKIAGOODKEY0001", secret_key_wo = var.secret`), "candidates[0].secret_key_wo", "is not an S3 key"},
		{"tempo object storage", "AKIAONLYONEKEY02", vars + `provider "cp" {}
resource "cp_tempo" "t" {
  name           = "t"
  cluster_handle = "{}"
  object_storage = { name = "ext", provider = "aws_s3", attributes = { endpoint = "https://s3.example.test" }, access_key_wo = var.secret }
}
`, "object_storage.secret_key_wo", "access_key_wo is set but secret_key_wo is not"},
	}
	r := newTofuRun(t, "")
	base := r.env
	for _, tc := range cases {
		t.Run(strings.ReplaceAll(tc.name, " ", "_"), func(t *testing.T) {
			r.t = t
			r.env = append(append([]string(nil), base...), "TF_VAR_secret="+tc.secret)
			r.setConfig(tc.config)
			out := r.mustTofu(1, "plan")
			flat := strings.Join(strings.Fields(out), " ")
			if !strings.Contains(flat, tc.at+": ") || !strings.Contains(flat, tc.says) {
				t.Fatalf("got: %s want: an error at %s saying %q", out, tc.at, tc.says)
			}
			for name, s := range keyLines(t, tc.secret+"\n") {
				if strings.Contains(out, s) {
					t.Fatalf("got: the output holds the value (%s) want: never echoed\n%s", name, out)
				}
			}
		})
	}
}
