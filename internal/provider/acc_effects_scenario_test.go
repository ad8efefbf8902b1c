package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Through OpenTofu, on one real sshd host, with the effects-probe pack
// (testdata): its create fails until the host is marked fixed, its
// uninstall sleeps 25 seconds.
//
//   - The first plan of the create says nothing of a resume. The create
//     fails; with refresh_evidence off the next plan says nothing either
//     (it contacts no host); on, it warns that apply continues the failed create
//     (the operation and its record's host named) rather than starting
//     afresh. Marked fixed, the apply completes that same operation, and
//     the plan after it says nothing of a resume again.
//   - A destroy under timeouts = { delete = "5s" } returns well before the
//     25 s sleep, says "timed out after 5s", names timeouts.delete, the
//     job and its host, and the sleep is no longer running on the host;
//     the resource stays in state. With a longer delete timeout the
//     destroy completes.
func TestAccEffects_failedCreateResumesAndDeleteTimesOut(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("TF_ACC is not set")
	}
	testAccPreCheck(t)
	c := accHosts(t, "effects", "node-1")
	h := c.Hosts()[0]
	pack, err := filepath.Abs("testdata/effects-probe")
	must(t, err)
	configWith := func(timeouts, providerExtra string) string {
		return packProviderHCL(c, pack, providerExtra) + fmt.Sprintf(`
resource "cp_scenario" "ep" {
  pack           = "effects-probe"
  name           = "ep"
  hosts          = [{ name = %q, address = %q }]
  destroy_action = "uninstall"
  timeouts       = %s
}
`, h.Name, h.Addr, timeouts)
	}
	config := func(timeouts string) string { return configWith(timeouts, "") }
	probe := func(name string) string {
		b, _ := os.ReadFile(filepath.Join(h.Upper, "var/lib/effects-probe", name))
		return string(b)
	}
	r := newTofuRun(t, config(`{ delete = "5s" }`))
	tofu := tofuRunner(t, r)
	const resumes = "continues the failed create"

	// The create's first plan: no failed create to continue.
	out, err := tofu("plan1.log", "plan", "-out=ep.plan")
	if err != nil {
		t.Fatalf("plan: %v\n%s", err, out)
	}
	if strings.Contains(flatten(out), resumes) {
		t.Fatalf("the first plan of the create says it continues a failed create:\n%s", out)
	}
	if out, err := tofu("apply1.log", "apply", "ep.plan"); err == nil || !strings.Contains(flatten(out), "fail-until-fixed") {
		t.Fatalf("the create did not fail at fail-until-fixed (%v):\n%s", err, out)
	}

	// With refresh_evidence off the plan contacts no host, so it cannot
	// say so; on, the next plan says apply resumes the failed operation.
	r.setConfig(configWith(`{ delete = "5s" }`, "refresh_evidence = false"))
	if out, err := tofu("plan2off.log", "plan"); err != nil || strings.Contains(flatten(out), resumes) {
		t.Errorf("the plan with refresh_evidence = false (%v) read the failed create's record:\n%s", err, out)
	}
	r.setConfig(config(`{ delete = "5s" }`))
	out, err = tofu("plan2.log", "plan", "-out=ep.plan")
	if err != nil {
		t.Fatalf("plan after the failed create: %v\n%s", err, out)
	}
	text := flatten(out)
	m := regexp.MustCompile(`Warning: Operation (ep\.[^ ]+) continues the failed create`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("the plan after a failed create does not warn that apply continues it:\n%s", out)
	}
	opID := m[1]
	for _, want := range []string{
		"its record kept on node-1 (/var/lib/cp/",
		"This apply resumes that operation rather than starting afresh: Failed > Running",
		"the jobs that finished are checked by their evidence and not run again",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the plan's resume warning lacks %q:\n%s", want, out)
		}
	}

	// Fixed on the host, the saved plan's apply completes that operation.
	onHost(t, c, h.Name, "sudo touch /var/lib/effects-probe/fixed")
	if out, err := tofu("apply2.log", "apply", "ep.plan"); err != nil {
		t.Fatalf("apply after the fix: %v\n%s", err, out)
	}
	if got := strings.Count(probe("check-runs"), "run"); got != 2 {
		t.Errorf("fail-until-fixed ran %d times; want twice (failed, then resumed)", got)
	}
	show, err := tofu("show1.log", "show", "-json")
	if err != nil {
		t.Fatalf("show: %v\n%s", err, show)
	}
	if !strings.Contains(show, `"id":"`+opID+`"`) {
		t.Errorf("the state's operation is not %s, the failed create the plan said apply continues:\n%s", opID, show)
	}
	out, err = tofu("plan3.log", "plan", "-detailed-exitcode")
	if err != nil || strings.Contains(flatten(out), resumes) {
		t.Errorf("the plan after the completed create (%v) is not empty or still speaks of a resume:\n%s", err, out)
	}

	// A destroy under timeouts.delete = 5s stops on time.
	timedOutRun(t, "destroy", "timeouts.delete = 5s", func() (string, error) { return tofu("destroy1.log", "destroy", "-auto-approve") },
		"effects-probe.uninstall@1.0.0 timed out after 5s",
		"timeouts.delete (5s) ran out while the operation ran: it was stopped on time",
		"job sleep-uninstall on host node-1 (instance sleep-uninstall)",
		"uninstall sleeping 25s",
		"stop on node-1: TERM sent to 1 running job(s)",
		`raise timeouts.delete in the resource, for example timeouts = { delete = "10s" }`,
		"the resource stays in state",
	)
	if got := sleepAliveAt(t, c, h.Name, "/var/lib/effects-probe/sleep.pid"); got != "gone" {
		t.Errorf("after the delete timeout pgrep on node-1 found the uninstall's sleep still running: %q", got)
	}
	if probe("uninstalled") != "" {
		t.Error("sleep-uninstall finished although the delete timeout stopped it")
	}
	if list, err := tofu("list.log", "state", "list"); err != nil || !strings.Contains(list, "cp_scenario.ep") {
		t.Errorf("after the timed-out destroy the resource is not in state (%v):\n%s", err, list)
	}

	// With a longer delete timeout the destroy completes. Changing only
	// the timeout runs nothing: the create is not run again.
	r.setConfig(config(`{ delete = "2m" }`))
	if out, err := tofu("apply3.log", "apply", "-auto-approve"); err != nil {
		t.Fatalf("apply of the longer delete timeout: %v\n%s", err, out)
	}
	if got := strings.Count(probe("check-runs"), "run"); got != 2 {
		t.Errorf("fail-until-fixed ran %d times; want still twice: a change of timeouts alone runs no operation", got)
	}
	if out, err := tofu("destroy2.log", "destroy", "-auto-approve"); err != nil {
		t.Fatalf("destroy with timeouts.delete = 2m: %v\n%s", err, out)
	}
	if strings.TrimSpace(probe("uninstalled")) != "yes" {
		t.Error("sleep-uninstall did not finish under the longer delete timeout")
	}
}
