package planner

import (
	"fmt"
	"testing"
)

// BenchmarkPlan plans the full create template for 3 masters and the rest
// workers.
func BenchmarkPlan(b *testing.B) {
	for _, n := range []int{100, 1000, 5000} {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			in := benchInput(b, n)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Build(in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
