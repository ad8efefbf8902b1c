package planner

import (
	"fmt"
	"testing"
	"time"
)

// BenchmarkRender renders a planned create of n nodes in the views the
// provider shows: the compact text (with its digest), the per-instance
// map and the digest alone.
func BenchmarkRender(b *testing.B) {
	for _, n := range []int{1000, 5000} {
		p, err := Build(benchInput(b, n))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("compact/nodes=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = RenderCompact(p, ViewState{})
			}
		})
		b.Run(fmt.Sprintf("instances/nodes=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = Instances(p, ViewState{})
			}
		})
		b.Run(fmt.Sprintf("digest/nodes=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = Digest(p)
			}
		})
		if n > 1000 {
			continue // the per-edge views below print every edge of the full mesh
		}
		b.Run(fmt.Sprintf("advanced/nodes=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = RenderAdvanced(p, AdvancedOptions{})
			}
		})
		b.Run(fmt.Sprintf("json/nodes=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := RenderJSON(p); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("mermaid/nodes=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = RenderMermaid(p)
			}
		})
	}
}

// BenchmarkPlanAndRender is the planner's share of `tofu plan`: build the
// plan, then render the compact view and the per-instance map.
func BenchmarkPlanAndRender(b *testing.B) {
	for _, n := range []int{1000, 5000} {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			in := benchInput(b, n)
			b.ReportAllocs()
			for b.Loop() {
				p, err := Build(in)
				if err != nil {
					b.Fatal(err)
				}
				_ = RenderCompact(p, ViewState{})
				_ = Instances(p, ViewState{})
			}
		})
	}
}

// BenchmarkUpgradeWithGate plans a rolling upgrade of n nodes, held by
// its approval gate, and renders the compact view, which finds the gates
// ahead of every instance along the worker chain.
func BenchmarkUpgradeWithGate(b *testing.B) {
	for _, n := range []int{1000, 5000} {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			k := builtinPack(b, "kubernetes")
			intent := builtinIntent(3, n-3, "upgrade")
			intent.Parameters["kubernetes_version"] = "1.32.2"
			in := Input{PlanID: "op-up", Intent: intent, Pack: k, Now: testNow, State: builtinClusterState()}
			b.ReportAllocs()
			for b.Loop() {
				p, err := Build(in)
				if err != nil {
					b.Fatal(err)
				}
				_ = RenderCompact(p, ViewState{})
			}
		})
	}
}

// BenchmarkDay2 plans and renders the day-2 actions of a cluster of n
// nodes that touch one worker (add_node, remove_node) or all of them
// (delete).
func BenchmarkDay2(b *testing.B) {
	for _, action := range []string{"add_node", "remove_node", "delete"} {
		for _, n := range []int{1000, 5000} {
			b.Run(fmt.Sprintf("%s/nodes=%d", action, n), func(b *testing.B) {
				k := builtinPack(b, "kubernetes")
				intent := builtinIntent(3, n-3, action)
				st := builtinClusterState()
				switch action {
				case "add_node":
					intent.Targets = []string{fmt.Sprintf("worker-%d", n-3)}
					st = builtinAddNodeState(testNow.Add(time.Hour))
				case "remove_node":
					intent.Targets = []string{"worker-2"}
				}
				in := Input{PlanID: "op-day2", Intent: intent, Pack: k, Now: testNow, State: st}
				b.ReportAllocs()
				for b.Loop() {
					p, err := Build(in)
					if err != nil {
						b.Fatal(err)
					}
					_ = RenderCompact(p, ViewState{})
					_ = Instances(p, ViewState{})
				}
			})
		}
	}
}
