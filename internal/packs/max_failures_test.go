package packs

import (
	"errors"
	"strings"
	"testing"
)

// controls.max_failures reaches the job contract next to serial.
func TestMaxFailuresLoads(t *testing.T) {
	p, err := Load(demoWith(t, "jobs/prepare.yaml", "    timeout: 2m\n", "    timeout: 2m\n    serial: 1\n    max_failures: 2\n"), "demo")
	if err != nil {
		t.Fatal(err)
	}
	if c := p.Jobs["prepare"].Controls; c.Serial != 1 || c.MaxFailures != 2 {
		t.Errorf("got: serial %d max_failures %d want: 1, 2", c.Serial, c.MaxFailures)
	}
}

// A negative max_failures, and one without serial, are refused with file,
// line and field.
func TestMaxFailuresRefused(t *testing.T) {
	cases := []struct{ name, new, want string }{
		{"negative", "    timeout: 2m\n    serial: 1\n    max_failures: -1\n",
			`jobs/prepare.yaml:30: controls.max_failures: max_failures -1 is negative; use 0 to stop the rolling at its first failed host`},
		{"without serial", "    timeout: 2m\n    max_failures: 1\n",
			`jobs/prepare.yaml:29: controls.max_failures: max_failures 1 has no effect without controls.serial`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(demoWith(t, "jobs/prepare.yaml", "    timeout: 2m\n", tc.new), "demo")
			var ps Problems
			if !errors.As(err, &ps) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got: %v\nwant: a problem %q", err, tc.want)
			}
		})
	}
}
