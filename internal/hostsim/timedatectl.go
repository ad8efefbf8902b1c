package hostsim

import (
	"os"
	"strings"
)

// NTPSynchronizedFile is the host file that says whether the emulated
// clock is NTP-synchronized: "no" stands for a host without a working
// time service; absent or anything else is synchronized.
const NTPSynchronizedFile = "/etc/cp-hostsim/ntp-synchronized"

// timedatectlShow is timedatectl show -p NTPSynchronized --value: "yes"
// or "no", as systemd-timedated reports the kernel's synchronization
// status (a test host has no timedated to ask).
func (s *sim) timedatectlShow(p flags) int {
	if len(p.pos) != 1 || !p.has("value") {
		return s.notEmulated("timedatectl", "show", "(only show -p NTPSynchronized --value)")
	}
	v := "yes"
	if b, err := os.ReadFile(s.hostPath(NTPSynchronizedFile)); err == nil && strings.TrimSpace(string(b)) == "no" {
		v = "no"
	}
	s.printf("%s\n", v)
	return 0
}
