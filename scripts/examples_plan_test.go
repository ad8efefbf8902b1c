package scripts_test

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/testhosts"
)

// exampleHosts are the test hosts the examples' addresses are mapped to:
// the examples write 10.0.0.1N for masters and 10.0.0.2N for workers.
var exampleHosts = map[string]string{
	"10.0.0.11": "master-1", "10.0.0.12": "master-2", "10.0.0.13": "master-3",
	"10.0.0.21": "worker-1", "10.0.0.22": "worker-2", "10.0.0.23": "worker-3",
	"10.0.0.24": "worker-4", "10.0.0.25": "worker-5", "10.0.0.26": "worker-6",
}

var exampleAddrRE = regexp.MustCompile(`\b10\.0\.0\.[0-9]{1,3}\b`)

// exampleEnv holds the environment variables examples name for secrets by
// reference (never their values in HCL; plan checks that they are set and
// well formed), and the values of the examples' variables without a
// default (ephemeral keys).
var exampleEnv = []string{
	"CP_BECOME_PASSWORD=example-become-password",
	"TRACES_S3_ACCESS_KEY=EXAMPLEACCESSKEY01",
	"TRACES_S3_SECRET_KEY=example/secret/key/0123456789abcdef",
	"TF_VAR_backup_s3_access_key=EXAMPLEACCESSKEY02",
	"TF_VAR_backup_s3_secret_key=example/secret/key/fedcba9876543210",
}

// TestExamplesPlan plans every example root module under examples/ with
// OpenTofu against real test hosts: the examples' addresses are mapped to
// the hosts, the provider's ssh settings point at them, and `tofu plan`
// must succeed. import.tf files are left out (importing needs an existing
// cluster on the hosts; they are validated by scripts/validate-examples.sh).
func TestExamplesPlan(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	tofu := clis(t, root)[0].path
	if os.Geteuid() != 0 {
		if os.Getenv("CI") == "true" {
			t.Fatal("planning the examples against test hosts needs root (sshd in per-host filesystem views)")
		}
		t.Skip("needs root")
	}
	bin := t.TempDir()
	if out, err := exec.Command("go", "build", "-o", filepath.Join(bin, "terraform-provider-cp"), root).CombinedOutput(); err != nil {
		t.Fatalf("go build provider: %v\n%s", err, out)
	}
	tfrc := filepath.Join(bin, "dev.tfrc")
	if err := os.WriteFile(tfrc, []byte(fmt.Sprintf("provider_installation {\n  dev_overrides {\n    \"intentops/cp\" = %q\n  }\n  direct {}\n}\n", bin)), 0o644); err != nil {
		t.Fatal(err)
	}

	names := make([]string, 0, len(exampleHosts))
	for _, n := range exampleHosts {
		names = append(names, n)
	}
	sort.Strings(names)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cluster, err := testhosts.Start(ctx, testhosts.Options{Names: names, Simulator: true, SimulatorCluster: "prod-k8s"})
	if err != nil {
		t.Fatalf("start test hosts: %v", err)
	}
	t.Cleanup(func() { _ = cluster.Remove() })
	addr := map[string]string{}
	var port int
	var user string
	for ex, name := range exampleHosts {
		h, err := cluster.Host(name)
		if err != nil {
			t.Fatal(err)
		}
		addr[ex], port, user = h.Addr, h.Port, h.User
	}
	sshHCL := fmt.Sprintf("  ssh = {\n    user              = %q\n    port              = %d\n    private_key_file  = %q\n    known_hosts_file  = %q\n    host_key_checking = \"strict\"\n  }\n",
		user, port, cluster.KeyPath(), cluster.KnownHostsPath())

	env := cleanEnv(t, append([]string{"TF_CLI_CONFIG_FILE=" + tfrc, "HOME=" + t.TempDir()}, exampleEnv...)...)
	dirs := exampleRoots(t, filepath.Join(root, "examples"))
	if len(dirs) < 10 {
		t.Fatalf("found %d example root modules under examples/, want every one (at least 10): %v", len(dirs), dirs)
	}
	for _, rel := range dirs {
		t.Run(rel, func(t *testing.T) {
			dir := copyExample(t, filepath.Join(root, "examples", rel), addr)
			if hasProviderBlock(t, dir) {
				writeFile(t, filepath.Join(dir, "zz_test_override.tf"), "provider \"cp\" {\n"+sshHCL+"}\n")
			} else {
				writeFile(t, filepath.Join(dir, "zz_test_provider.tf"), "provider \"cp\" {\n"+sshHCL+"}\n")
			}
			if !hasRequiredProviders(t, dir) {
				writeFile(t, filepath.Join(dir, "zz_test_required.tf"), "terraform {\n  required_providers {\n    cp = { source = \"intentops/cp\" }\n  }\n}\n")
			}
			if out, err := runIn(t, dir, env, tofu, "get", "-no-color"); err != nil {
				t.Fatalf("tofu get: %v\n%s", err, out)
			}
			out, err := runIn(t, dir, env, tofu, "plan", "-input=false", "-no-color", "-detailed-exitcode")
			if code := exitCode(err); code != 0 && code != 2 {
				t.Fatalf("tofu plan examples/%s against test hosts: exit %d\n%s", rel, code, out)
			}
			if strings.Contains(out, "10.0.0.") {
				t.Errorf("plan still names an unmapped example address:\n%s", out)
			}
		})
	}
}

// exampleRoots lists the directories under base holding .tf files, except
// modules only meant to be called (examples/modules/*, planned through
// their callers).
func exampleRoots(t *testing.T, base string) []string {
	t.Helper()
	seen := map[string]bool{}
	err := filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".terraform" || d.Name() == "modules") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".tf") && d.Name() != "import.tf" {
			rel, _ := filepath.Rel(base, filepath.Dir(p))
			seen[rel] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for d := range seen {
		out = append(out, d)
	}
	sort.Strings(out)
	return out
}

// copyExample copies an example (with examples/modules next to it, for
// module calls by relative path) into a temporary tree, mapping addresses.
func copyExample(t *testing.T, src string, addr map[string]string) string {
	t.Helper()
	examples := filepath.Dir(src)
	for filepath.Base(examples) != "examples" {
		examples = filepath.Dir(examples)
	}
	rel, _ := filepath.Rel(examples, src)
	tmp := t.TempDir()
	err := filepath.WalkDir(examples, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		r, _ := filepath.Rel(examples, p)
		if d.IsDir() {
			if d.Name() == ".terraform" {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(tmp, r), 0o755)
		}
		if d.Name() == "import.tf" || strings.HasPrefix(d.Name(), "terraform.tfstate") || d.Name() == ".terraform.lock.hcl" {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		text := exampleAddrRE.ReplaceAllStringFunc(string(b), func(a string) string {
			if m, ok := addr[a]; ok {
				return m
			}
			return a
		})
		return os.WriteFile(filepath.Join(tmp, r), []byte(text), 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(tmp, rel)
}

var providerBlockRE = regexp.MustCompile(`(?m)^provider\s+"cp"\s*\{`)

func hasProviderBlock(t *testing.T, dir string) bool { return grepTF(t, dir, providerBlockRE) }

func hasRequiredProviders(t *testing.T, dir string) bool {
	return grepTF(t, dir, regexp.MustCompile(`required_providers`))
}

func grepTF(t *testing.T, dir string, re *regexp.Regexp) bool {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.tf"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if re.Match(b) {
			return true
		}
	}
	return false
}

func writeFile(t *testing.T, p, text string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func exitCode(err error) int {
	if err == nil {
		return 0
	}
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	return -1
}
