package planner

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestPlanScaleProbe builds and renders one create plan of
// CP_PLAN_SCALE_NODES nodes and prints the time of each step and the
// process's peak resident memory. It is a measurement for
// bench/plan-scale.sh, not a check: it skips when the variable is unset
// and asserts nothing about time.
func TestPlanScaleProbe(t *testing.T) {
	v := os.Getenv("CP_PLAN_SCALE_NODES")
	if v == "" {
		t.Skip("CP_PLAN_SCALE_NODES is not set; bench/plan-scale.sh sets it")
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 4 || n > 100000 {
		t.Fatalf("CP_PLAN_SCALE_NODES=%q: want a node count from 4 to 100000", v)
	}
	in := benchInput(t, n)
	start := time.Now()
	p, err := Build(in)
	if err != nil {
		t.Fatalf("build a create plan of %d nodes: %v", n, err)
	}
	built := time.Now()
	compact := RenderCompact(p, ViewState{})
	rendered := time.Now()
	views := Instances(p, ViewState{})
	viewed := time.Now()
	edges := 0
	for _, in := range p.Instances {
		edges += len(in.Needs)
	}
	viewNeeds := 0
	for _, iv := range views {
		viewNeeds += len(iv.Needs)
	}
	fmt.Printf("nodes=%d instances=%d edges=%d view_needs=%d compact_lines=%d build_s=%.3f compact_s=%.3f instances_s=%.3f total_s=%.3f peak_rss_mb=%s\n",
		n, len(p.Instances), edges, viewNeeds, strings.Count(compact, "\n"),
		built.Sub(start).Seconds(), rendered.Sub(built).Seconds(), viewed.Sub(rendered).Seconds(), viewed.Sub(start).Seconds(), peakRSSMB())
}

// peakRSSMB reads VmHWM, the peak resident set size, from
// /proc/self/status, in MB; "?" where it cannot be read.
func peakRSSMB() string {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return "?"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")))
			if err != nil {
				return "?"
			}
			return strconv.Itoa(kb / 1024)
		}
	}
	return "?"
}
