// Package scripts_test runs the repository's shell scripts the way the
// make targets and CI do.
package scripts_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// prereqStubs is a PATH directory with dpkg-query, apt-get and id stubs:
// dpkg-query reports the packages listed in the file "installed", apt-get
// logs each call (with DEBIAN_FRONTEND) to "apt.log" and marks what it
// installs, id -u prints the content of "uid".
type prereqStubs struct {
	dir string
}

func newPrereqStubs(t *testing.T, installed []string) prereqStubs {
	t.Helper()
	s := prereqStubs{dir: t.TempDir()}
	write := func(name, text string, mode os.FileMode) {
		if err := os.WriteFile(filepath.Join(s.dir, name), []byte(text), mode); err != nil {
			t.Fatal(err)
		}
	}
	write("installed", strings.Join(installed, "\n")+"\n", 0o644)
	write("uid", "0\n", 0o644)
	write("dpkg-query", `#!/usr/bin/env bash
pkg=${!#}
if grep -qx -- "$pkg" "$(dirname "$0")/installed"; then printf 'install ok installed'; exit 0; fi
exit 1
`, 0o755)
	write("apt-get", `#!/usr/bin/env bash
d=$(dirname "$0")
echo "DEBIAN_FRONTEND=${DEBIAN_FRONTEND:-} $*" >>"$d/apt.log"
if [[ -f $d/apt-fails ]] && grep -qx -- "$1" "$d/apt-fails"; then exit 100; fi
if [[ $1 == install ]]; then
	for a in "$@"; do [[ $a == -* || $a == install ]] || echo "$a" >>"$d/installed"; done
fi
exit 0
`, 0o755)
	write("id", `#!/usr/bin/env bash
if [[ ${1:-} == -u ]]; then cat "$(dirname "$0")/uid"; else exec /usr/bin/id "$@"; fi
`, 0o755)
	return s
}

func (s prereqStubs) aptLog(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(s.dir, "apt.log"))
	if errors.Is(err, os.ErrNotExist) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// run runs scripts/prereqs.sh with the stubs first on PATH.
func (s prereqStubs) run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command("bash", append([]string{"prereqs.sh"}, args...)...)
	cmd.Env = append(os.Environ(), "PATH="+s.dir+":/usr/local/go/bin:"+os.Getenv("PATH"))
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), out.String(), errOut.String()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0, out.String(), errOut.String()
}

var allPackages = []string{"openssh-server", "openssh-client", "sudo", "make", "gcc", "libc6-dev", "git", "ca-certificates", "iproute2", "util-linux", "procps", "containerd", "runc", "wireguard-tools", "gpg", "shellcheck", "jq",
	"curl", "postgresql", "postgresql-client", "open-iscsi", "nfs-common", "awscli", "s3cmd"}

// skipWithoutHostTools skips where the real commands the script checks
// after installing (sshd, sudo, ...) are absent: the stubs fake only the
// package database.
func skipWithoutHostTools(t *testing.T) {
	t.Helper()
	for _, p := range []string{"/usr/sbin/sshd", "/usr/bin/sudo"} {
		if _, err := os.Stat(p); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s missing on a CI machine: .ci/run installs it first", p)
			}
			t.Skipf("%s missing: run scripts/prereqs.sh as root first", p)
		}
	}
	if os.Geteuid() != 0 {
		t.Skip("the script's root check needs root")
	}
}

func TestPrereqsInstallsOnlyWhatIsMissing(t *testing.T) {
	skipWithoutHostTools(t)
	s := newPrereqStubs(t, allPackages[:len(allPackages)-2])
	code, out, errOut := s.run(t)
	if code != 0 || out != "" {
		t.Fatalf("got: exit %d stdout %q stderr %q want: exit 0, nothing on stdout", code, out, errOut)
	}
	want := "DEBIAN_FRONTEND=noninteractive update -qq\nDEBIAN_FRONTEND=noninteractive install -y -qq --no-install-recommends awscli s3cmd\n"
	if got := s.aptLog(t); got != want {
		t.Errorf("apt-get calls:\n%s\nwant:\n%s", got, want)
	}
	if !strings.Contains(errOut, "prereqs: installing awscli s3cmd") || !strings.Contains(errOut, "prereqs: ok") {
		t.Errorf("stderr: %q", errOut)
	}
	// Run again: everything is there, nothing is installed.
	if err := os.Remove(filepath.Join(s.dir, "apt.log")); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := s.run(t); code != 0 || s.aptLog(t) != "" {
		t.Errorf("second run: exit %d apt-get %q stderr %q want: exit 0 and no apt-get", code, s.aptLog(t), errOut)
	}
}

func TestPrereqsCheckOnlyInstallsNothing(t *testing.T) {
	skipWithoutHostTools(t)
	s := newPrereqStubs(t, []string{"make", "git"})
	code, out, errOut := s.run(t, "--check")
	if code != 1 || out != "" || s.aptLog(t) != "" {
		t.Fatalf("got: exit %d stdout %q apt-get %q want: exit 1, no apt-get", code, out, s.aptLog(t))
	}
	if !strings.Contains(errOut, "missing packages: openssh-server openssh-client sudo gcc libc6-dev ca-certificates iproute2 util-linux procps containerd runc wireguard-tools gpg shellcheck jq curl postgresql postgresql-client open-iscsi nfs-common awscli s3cmd") {
		t.Errorf("stderr: %q", errOut)
	}
}

func TestPrereqsNotRootSaysHow(t *testing.T) {
	skipWithoutHostTools(t)
	s := newPrereqStubs(t, allPackages[1:])
	if err := os.WriteFile(filepath.Join(s.dir, "uid"), []byte("1000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := s.run(t)
	if code != 1 || s.aptLog(t) != "" || !strings.Contains(errOut, "sudo apt-get install -y openssh-server") {
		t.Fatalf("got: exit %d apt-get %q stderr %q want: exit 1 with the sudo command", code, s.aptLog(t), errOut)
	}
	// Packages all there, still not root: the test hosts need root.
	s = newPrereqStubs(t, allPackages)
	if err := os.WriteFile(filepath.Join(s.dir, "uid"), []byte("1000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := s.run(t); code != 1 || !strings.Contains(errOut, "root (the test hosts") {
		t.Errorf("got: exit %d stderr %q want: root named", code, errOut)
	}
}

func TestPrereqsAptFailure(t *testing.T) {
	skipWithoutHostTools(t)
	for _, tc := range []struct{ fail, want string }{
		{"update", "apt-get update failed"},
		{"install", "apt-get install s3cmd failed"},
	} {
		s := newPrereqStubs(t, allPackages[:len(allPackages)-1])
		if err := os.WriteFile(filepath.Join(s.dir, "apt-fails"), []byte(tc.fail+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, errOut := s.run(t)
		if code != 1 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%s fails: got: exit %d stderr %q want: exit 1 and %q", tc.fail, code, errOut, tc.want)
		}
	}
}

func TestPrereqsGoTooOld(t *testing.T) {
	skipWithoutHostTools(t)
	s := newPrereqStubs(t, allPackages)
	stub := "#!/usr/bin/env bash\n[[ $* == 'env GOVERSION' ]] && { echo go1.20.3; exit 0; }\nexit 1\n"
	if err := os.WriteFile(filepath.Join(s.dir, "go"), []byte(stub), 0o755); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := s.run(t, "--check")
	if code != 1 || !strings.Contains(errOut, "found go 1.20.3; go.mod needs") {
		t.Fatalf("got: exit %d stderr %q want: the Go version refused", code, errOut)
	}
}

func TestPrereqsUsage(t *testing.T) {
	s := newPrereqStubs(t, allPackages)
	if code, _, errOut := s.run(t, "--install-everything"); code != 2 || !strings.Contains(errOut, "usage:") {
		t.Errorf("got: exit %d stderr %q want: exit 2 and usage", code, errOut)
	}
}
