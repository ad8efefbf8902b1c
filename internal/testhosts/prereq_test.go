package testhosts

import (
	"errors"
	"os"
	"strings"
	"testing"
)

// A machine without one of the real packages is refused, naming it and
// how to install it.
func TestCheckRealPackages(t *testing.T) {
	saved := realPackages
	defer func() { realPackages = saved }()
	realPackages = append(append([]struct{ pkg, program string }{}, saved...), struct{ pkg, program string }{"no-such-pkg", "/nonexistent/no-such-program"})
	err := checkRealPackages()
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "no-such-pkg") || !strings.Contains(err.Error(), "scripts/prereqs.sh") {
		t.Fatalf("checkRealPackages = %v", err)
	}
	realPackages = saved
	if err := checkRealPackages(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("this machine lacks the real packages (CI installs them with scripts/prereqs.sh): %v", err)
		}
		t.Skipf("this machine lacks the real packages: %v", err)
	}
}
