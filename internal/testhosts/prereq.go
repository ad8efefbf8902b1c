package testhosts

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// ErrUnavailable marks errors saying this machine cannot run test hosts
// (not root, no sshd, no overlayfs...). Require skips on it outside CI.
var ErrUnavailable = errors.New("test hosts are unavailable on this machine")

// sshdPath is Debian's OpenSSH server, run chrooted inside each host.
const sshdPath = "/usr/sbin/sshd"

func checkPrerequisites() error {
	var missing []string
	if os.Geteuid() != 0 {
		missing = append(missing, "root (run the tests as root: hosts need mounts and chroot)")
	}
	if _, err := os.Stat(sshdPath); err != nil {
		missing = append(missing, sshdPath+" (apt-get install -y openssh-server)")
	}
	for _, tool := range []string{"unshare", "chroot", "useradd", "chpasswd"} {
		if _, err := exec.LookPath(tool); err != nil {
			missing = append(missing, tool+" (apt-get install -y util-linux coreutils passwd)")
		}
	}
	if _, err := os.Stat("/usr/bin/sudo"); err != nil {
		missing = append(missing, "/usr/bin/sudo (apt-get install -y sudo)")
	}
	if fs, err := os.ReadFile("/proc/filesystems"); err != nil || !strings.Contains(string(fs), "overlay") {
		missing = append(missing, "overlayfs in the kernel (modprobe overlay)")
	}
	if len(missing) > 0 {
		return fmt.Errorf("%w: missing %s", ErrUnavailable, strings.Join(missing, "; "))
	}
	return nil
}

// realPackages are the Debian packages the packs install that simulator
// hosts get for real from the machine (see internal/hostsim/README.md),
// by a program each ships.
var realPackages = []struct{ pkg, program string }{
	{"containerd", "/usr/bin/containerd"},
	{"runc", "/usr/bin/runc"},
	{"wireguard-tools", "/usr/bin/wg"},
}

// checkRealPackages says which of realPackages the machine lacks.
func checkRealPackages() error {
	var missing []string
	for _, p := range realPackages {
		if _, err := os.Stat(p.program); err != nil {
			missing = append(missing, p.pkg)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%w: simulator hosts use the machine's real Debian packages %s, which are not installed; run scripts/prereqs.sh (or apt-get install -y %s)", ErrUnavailable, strings.Join(missing, ", "), strings.Join(missing, " "))
	}
	return nil
}
