package provider

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// A resource timeout stops the operation on time, through OpenTofu: the
// timeout-probe pack (testdata) marks, then sleeps 25 seconds. Under
// timeouts.create = "5s" the apply of the saved plan returns well before
// the sleep could end, says "timed out after 5s", names sleep-long and
// its host with its log tail and the advice that fits (no intervention
// advice), and the sleep is no longer running on the host. A later apply
// with a longer timeout completes, and mark-first, which finished before
// the timeout, does not run again. The capability in state has its
// {placeholders} substituted. An update that sleeps again under
// timeouts.update = "5s" is stopped the same way and keeps the prior
// state.
func TestAccTimeout_stopsOnTime(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("TF_ACC is not set")
	}
	testAccPreCheck(t)
	c := accHosts(t, "timeout", "node-1")
	h := c.Hosts()[0]
	pack, err := filepath.Abs("testdata/timeout-probe")
	must(t, err)
	config := func(round, timeouts string) string {
		return packProviderHCL(c, pack, "") + fmt.Sprintf(`
resource "cp_scenario" "tp" {
  pack       = "timeout-probe"
  name       = "tp"
  hosts      = [{ name = %q, address = %q }]
  parameters = { namespace = "tp-ns", round = %q }
  timeouts   = %s
}
`, h.Name, h.Addr, round, timeouts)
	}
	probe := func(name string) string {
		b, _ := os.ReadFile(filepath.Join(h.Upper, "var/lib/timeout-probe", name))
		return string(b)
	}
	r := newTofuRun(t, config("1", `{ create = "5s" }`))
	tofu := tofuRunner(t, r)

	if out, err := tofu("plan1.log", "plan", "-out=tp.plan"); err != nil {
		t.Fatalf("plan: %v\n%s", err, out)
	}
	text := timedOutRun(t, "apply", "timeouts.create = 5s", func() (string, error) { return tofu("apply1.log", "apply", "tp.plan") },
		"timeout-probe.install@1.0.0 timed out after 5s",
		"timeouts.create (5s) ran out while the operation ran: it was stopped on time and recorded as Interrupted",
		"job sleep-long on host node-1 (instance sleep-long)",
		"sleeping 25s",
		"stop on node-1: TERM sent to 1 running job(s)",
		"Finished before the timeout: mark-first",
		`raise timeouts.create in the resource, for example timeouts = { create = "10s" }`,
		"the operation resumes from the evidence on the hosts",
	)
	for _, never := range []string{"interventions", "plan_patches", "Interrupted)"} {
		if strings.Contains(text, never) {
			t.Errorf("the apply error holds %q, advice that does not fit a timeout:\n%s", never, text)
		}
	}
	pid := strings.TrimSpace(probe("sleep.pid"))
	if !regexp.MustCompile(`^[0-9]+$`).MatchString(pid) {
		t.Fatalf("sleep-long left no sleep pid (%q): the sleep never started", pid)
	}
	if got := sleepAliveAt(t, c, h.Name, "/var/lib/timeout-probe/sleep.pid"); got != "gone" {
		t.Errorf("after the timeout pgrep on node-1 found the job's sleep (pid %s) still running: %q", pid, got)
	}
	if probe("slept") != "" {
		t.Error("sleep-long finished although the timeout stopped it")
	}

	r.setConfig(config("1", `{ create = "2m" }`))
	if out, err := tofu("plan2.log", "plan", "-out=tp.plan"); err != nil {
		t.Fatalf("plan with the longer timeout: %v\n%s", err, out)
	}
	if out, err := tofu("apply2.log", "apply", "tp.plan"); err != nil {
		t.Fatalf("apply with timeouts.create = 2m: %v\n%s", err, out)
	}
	if got := strings.Count(probe("mark-runs"), "run"); got != 1 {
		t.Errorf("mark-first ran %d times; want once: the resume skips what finished before the timeout", got)
	}
	if got := strings.Count(probe("sleep-runs"), "run"); got != 2 {
		t.Errorf("sleep-long ran %d times; want twice (stopped, then run again)", got)
	}
	if strings.TrimSpace(probe("slept")) != "yes" {
		t.Error("sleep-long did not finish under the longer timeout")
	}
	show, err := tofu("show.log", "show", "-json")
	if err != nil {
		t.Fatalf("show: %v\n%s", err, show)
	}
	// The pack's provides and mark-first's capability, their {placeholders}
	// substituted: parameters (given and default), the name, {job_id} and
	// {cluster}.
	want := map[string]string{"endpoint": "http://probe.tp-ns.svc:8080", "owner": "tp", "marked_by": "mark-first@tp"}
	if got := stateCapability(t, show, "cp_scenario.tp", "timeout.probe"); !maps.Equal(got, want) {
		t.Errorf("capability timeout.probe in state got: %v want: %v", got, want)
	}

	// An update that sleeps again (round is in sleep-long's idempotency
	// key) under timeouts.update = "5s" times out the same way, names
	// timeouts.update, and keeps the prior state.
	r.setConfig(config("2", `{ create = "2m", update = "5s" }`))
	if out, err := tofu("plan3.log", "plan", "-out=tp.plan"); err != nil {
		t.Fatalf("plan of the update: %v\n%s", err, out)
	}
	timedOutRun(t, "update", "timeouts.update = 5s", func() (string, error) { return tofu("apply3.log", "apply", "tp.plan") },
		"timed out after 5s", "timeouts.update (5s) ran out", "job sleep-long on host node-1",
		`raise timeouts.update in the resource, for example timeouts = { update = "10s" }`)
	if got := sleepAliveAt(t, c, h.Name, "/var/lib/timeout-probe/sleep.pid"); got != "gone" {
		t.Errorf("after the update's timeout pgrep on node-1 found the job's sleep still running: %q", got)
	}
	if got := strings.Count(probe("sleep-runs"), "run"); got != 3 {
		t.Errorf("sleep-long ran %d times; want 3 (the update ran it again)", got)
	}
	if got := strings.Count(probe("mark-runs"), "run"); got != 1 {
		t.Errorf("mark-first ran %d times; want once", got)
	}
	if show, err := tofu("show2.log", "show", "-json"); err != nil || !strings.Contains(show, `"round":"1"`) {
		t.Errorf("after the timed-out update the state does not keep round 1 (%v):\n%s", err, show)
	}

	if out, err := tofu("destroy.log", "destroy", "-auto-approve"); err != nil {
		t.Fatalf("destroy: %v\n%s", err, out)
	}
}

// stateCapability returns the attributes of capability key of resource
// addr in `tofu show -json` output.
func stateCapability(t *testing.T, show, addr, key string) map[string]string {
	t.Helper()
	var st struct {
		Values struct {
			RootModule struct {
				Resources []struct {
					Address string `json:"address"`
					Values  struct {
						Capabilities []struct {
							Key        string            `json:"key"`
							Attributes map[string]string `json:"attributes"`
						} `json:"capabilities"`
					} `json:"values"`
				} `json:"resources"`
			} `json:"root_module"`
		} `json:"values"`
	}
	must(t, json.Unmarshal([]byte(show[strings.Index(show, "{"):]), &st))
	for _, r := range st.Values.RootModule.Resources {
		if r.Address != addr {
			continue
		}
		for _, c := range r.Values.Capabilities {
			if c.Key == key {
				return c.Attributes
			}
		}
	}
	return nil
}

// flatten joins OpenTofu's boxed, wrapped diagnostic lines into one line
// of single-spaced words.
func flatten(out string) string {
	var words []string
	for _, l := range strings.Split(out, "\n") {
		words = append(words, strings.Fields(strings.TrimPrefix(strings.TrimSpace(l), "│"))...)
	}
	return strings.Join(words, " ")
}
