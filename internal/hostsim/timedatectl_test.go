package hostsim

import "testing"

// timedatectl show -p NTPSynchronized --value says yes, or no once the
// host's file says so; other properties and forms are not emulated.
func TestTimedatectlShow(t *testing.T) {
	e := newEnv(t)
	if r := e.must("n", "timedatectl", "show", "-p", "NTPSynchronized", "--value"); r.out != "yes\n" {
		t.Fatalf("got %q, want yes", r.out)
	}
	e.write("n", NTPSynchronizedFile, "no\n")
	if r := e.must("n", "timedatectl", "show", "-p", "NTPSynchronized", "--value"); r.out != "no\n" {
		t.Fatalf("got %q, want no", r.out)
	}
	e.fails("n", "not emulated", "timedatectl", "show", "-p", "Timezone", "--value")
	e.fails("n", "not emulated", "timedatectl", "set-ntp", "true")
	e.fails("n", "not emulated", "timedatectl", "show", "-p", "NTPSynchronized")
	e.fails("n", "not emulated", "timedatectl", "show", "x", "-p", "NTPSynchronized", "--value")
}
