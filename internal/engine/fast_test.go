package engine

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// A fresh instance costs one command on its host; each host is prepared
// once; final markers travel with later commands or one flush per host.
func TestFreshInstanceIsOneCommand(t *testing.T) {
	n := clusterNet("w1", "w2")
	e, rec := newTestEngine(n, nil)
	plan := clusterPlan("w1", "w2")
	res := mustRun(t, e, plan, RunInput{})
	if res.Operation.Status != protocol.StatusCompleted {
		t.Fatalf("got: %s want: Completed\n%s", res.Operation.Status, statuses(res))
	}
	hosts := map[string]bool{}
	for _, in := range res.Instances {
		hosts[in.Host] = true
	}
	if got := n.count("fast"); got != len(plan.Instances) {
		t.Errorf("fast commands got: %d want: one per instance (%d)", got, len(plan.Instances))
	}
	if got := n.count("prepare"); got != len(hosts) {
		t.Errorf("prepare commands got: %d want: one per host (%d)", got, len(hosts))
	}
	if got := n.count("flush"); got > len(hosts) {
		t.Errorf("flush commands got: %d want: at most one per host (%d)", got, len(hosts))
	}
	for _, what := range []string{"probe", "run", "batch", "commit"} {
		if got := n.count(what); got != 0 {
			t.Errorf("%s commands got: %d want: 0", what, got)
		}
	}
	for _, in := range plan.Instances {
		m := readMarker(t, n, in, res)
		if m.Unconfirmed || len(m.Evidence) == 0 {
			t.Errorf("marker of %s got: unconfirmed=%v evidence=%v want: final with evidence", in.ID, m.Unconfirmed, m.Evidence)
		}
	}
	shipped := 0
	for _, ev := range rec.events {
		if ev.Type == EventScriptShipped {
			shipped++
		}
	}
	if shipped != len(hosts) {
		t.Errorf("script.shipped events got: %d want: one per host (%d)", shipped, len(hosts))
	}
	// Run again: every instance is satisfied, the scripts are not shipped
	// again, nothing runs twice.
	res = mustRun(t, e, plan, RunInput{})
	for _, in := range res.Instances {
		if in.Status != StatusSatisfied {
			t.Errorf("%s: got: %s (%s) want: satisfied", in.ID, in.Status, in.Reason)
		}
		if got := n.host(in.Host).runCount(in.ID); got != 1 {
			t.Errorf("%s ran %d times want 1", in.ID, got)
		}
	}
}

func readMarker(t *testing.T, n *memNet, in *protocol.JobInstance, res *Result) *Marker {
	t.Helper()
	ir, _ := res.Instance(in.ID)
	path := layout{root: "/var/lib/cp"}.marker(instanceKey(in))
	final, _ := n.host(ir.Host).file(path)
	pending, _ := n.host(ir.Host).file(path + ".pending")
	m, err := decodeMarker(newestMarker([][]byte{final, pending}))
	if err != nil {
		t.Fatalf("marker of %s: %v", in.ID, err)
	}
	return m
}

// When the final markers cannot be written at the end of the run, the
// pending markers written with each run stand in: a fresh engine checks
// their evidence and runs nothing again.
func TestPendingMarkersStandInForFinalOnes(t *testing.T) {
	n := clusterNet("w1", "w2")
	n.hook = func(ctx context.Context, host, what string) error {
		if what == "flush" {
			return errors.New("connection reset")
		}
		return nil
	}
	e, rec := newTestEngine(n, nil)
	plan := clusterPlan("w1", "w2")
	res := mustRun(t, e, plan, RunInput{})
	if res.Operation.Status != protocol.StatusCompleted {
		t.Fatalf("got: %s want: Completed\n%s", res.Operation.Status, statuses(res))
	}
	pending := 0
	for _, ev := range rec.events {
		if ev.Type == EventMarkersPending {
			pending++
		}
	}
	unconfirmed := 0
	for _, in := range plan.Instances {
		if readMarker(t, n, in, res).Unconfirmed {
			unconfirmed++
		}
	}
	if pending == 0 || unconfirmed == 0 {
		t.Fatalf("got: %d markers.pending events, %d unconfirmed markers want: some of each", pending, unconfirmed)
	}
	n.hook = nil
	fresh, _ := newTestEngine(n, nil)
	res = mustRun(t, fresh, plan, RunInput{})
	notes := 0
	for _, in := range res.Instances {
		if in.Status != StatusSatisfied {
			t.Errorf("%s: got: %s (%s) want: satisfied", in.ID, in.Status, in.Reason)
		}
		if strings.Contains(in.Reason, "marker written before its evidence was judged") {
			notes++
		}
		if got := n.host(in.Host).runCount(in.ID); got != 1 {
			t.Errorf("%s ran %d times want 1", in.ID, got)
		}
	}
	if notes != unconfirmed {
		t.Errorf("satisfied by an unconfirmed marker got: %d want: %d", notes, unconfirmed)
	}
	if v, ok := res.SecretValue("kubeadm.join_token", ""); !ok || v != testToken {
		t.Errorf("recovered token got: %q %v", v, ok)
	}
}

// A script that exits 0 while its evidence fails: the pending marker its
// command wrote is removed once the engine judged the attempt failed, so
// the next run runs the job again. A pending marker left behind (the
// removal failed) is checked first and does not satisfy while its
// evidence fails.
func TestPendingMarkerOfFailedEvidenceDoesNotSatisfy(t *testing.T) {
	n := clusterNet("w1")
	script := n.script
	n.script = func(h *memHost, content string, env map[string]string, out io.Writer) int {
		code := script(h, content, env, out)
		if h.name == "w1" && strings.Contains(content, "runtime") && h.get("lie") != "" {
			h.set("runtime", "inactive")
		}
		return code
	}
	n.host("w1").set("lie", "yes")
	e, _ := newTestEngine(n, nil)
	res := mustRun(t, e, clusterPlan("w1"), RunInput{})
	in := wantStatus(t, res, "runtime[w1]", StatusFailed)
	if in.Class != FailureEvidence {
		t.Errorf("class got: %s want: evidence", in.Class)
	}
	marker := layout{root: "/var/lib/cp"}.marker("runtime:w1")
	if _, ok := n.host("w1").file(marker + ".pending"); ok {
		t.Errorf("the pending marker of the failed attempt is still on the host")
	}
	if got := n.count("drop"); got != 1 {
		t.Errorf("drop commands got: %d want: 1", got)
	}
	// Again, with the removal failing: the marker stays, and the next run
	// checks it, finds its evidence failing and runs the job.
	n.hook = func(ctx context.Context, host, what string) error {
		if what == "drop" {
			return errors.New("connection reset")
		}
		return nil
	}
	res = mustRun(t, e, clusterPlan("w1"), RunInput{})
	wantStatus(t, res, "runtime[w1]", StatusFailed)
	if _, ok := n.host("w1").file(marker + ".pending"); !ok {
		t.Fatalf("want the pending marker left behind")
	}
	n.hook = nil
	n.host("w1").set("lie", "")
	n.host("w1").set("runtime", "inactive")
	res = mustRun(t, e, clusterPlan("w1"), RunInput{})
	in = wantStatus(t, res, "runtime[w1]", StatusDone)
	if !strings.Contains(in.Reason, "no longer holds") {
		t.Errorf("reason got: %q want: the failing evidence of the marker", in.Reason)
	}
	if got := n.host("w1").runCount("runtime[w1]"); got != 3 {
		t.Errorf("runtime[w1] ran %d times want 3", got)
	}
}

// When the job's user differs from the bookkeeping's (state through sudo,
// the job without), the instance runs step by step, and resumes the same.
func TestStepByStepPathWhenUsersDiffer(t *testing.T) {
	n := clusterNet("w1")
	e, _ := newTestEngine(n, func(c *Config) { c.StateBecome = true })
	plan := clusterPlan("w1")
	res := mustRun(t, e, plan, RunInput{})
	if res.Operation.Status != protocol.StatusCompleted {
		t.Fatalf("got: %s want: Completed\n%s", res.Operation.Status, statuses(res))
	}
	for _, what := range []string{"probe", "run", "batch", "commit"} {
		if n.count(what) == 0 {
			t.Errorf("no %s command: the step-by-step path was not taken", what)
		}
	}
	if got := n.count("fast"); got != 0 {
		t.Errorf("fast commands got: %d want: 0", got)
	}
	// Each host is still prepared once (stale run directories removed).
	if got := n.count("prepare"); got != 2 {
		t.Errorf("prepare commands got: %d want: 2 (one per host)", got)
	}
	res = mustRun(t, e, plan, RunInput{})
	for _, in := range res.Instances {
		if in.Status != StatusSatisfied || n.host(in.Host).runCount(in.ID) != 1 {
			t.Errorf("%s: got: %s after %d runs want: satisfied after 1", in.ID, in.Status, n.host(in.Host).runCount(in.ID))
		}
	}
}

func TestSourceable(t *testing.T) {
	for script, want := range map[string]bool{
		"#!/bin/sh\necho hi\n":                  true,
		"#!/usr/bin/env sh\nset -e\n":           true,
		"#!/bin/sh  \r\necho hi\n":              true,
		"#!/bin/sh -e\necho hi\n":               false, // options: exec it
		"#!/bin/bash\necho hi\n":                false,
		"#!/usr/bin/env python3\nprint()\n":     false,
		"echo no shebang\n":                     false,
		"#!/bin/sh\ncd \"$(dirname \"$0\")\"\n": false,
		"#!/bin/sh\necho ${0##*/}\n":            false,
		"":                                      false,
	} {
		if got := sourceable([]byte(script)); got != want {
			t.Errorf("sourceable(%q) = %v want %v", script, got, want)
		}
	}
}
