package engine

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
	"github.com/intentops/terraform-provider-cp/internal/testhosts"
	"github.com/intentops/terraform-provider-cp/internal/transport"
)

// BenchmarkChainOneHost runs the fan-out bench's 20 jobs as a chain on one
// idle test host, so each job's cost is its round trip: the engine (one
// command per job after the host is prepared, plus the final flush)
// against a driver that runs each script file and its evidence as one
// command. It reports milliseconds per job for both.
func BenchmarkChainOneHost(b *testing.B) {
	c := testhosts.Require(b, testhosts.Options{Names: []string{"ch-1"}})
	names := []string{"ch-1"}
	pool := fanoutPool(b, c)
	defer pool.Close()
	conn, err := pool.Dial(context.Background(), "ch-1")
	if err != nil {
		b.Fatal(err)
	}
	if _, err := conn.Run(context.Background(), transport.Command{Cmd: "true"}); err != nil {
		b.Fatal(err)
	}
	var engine, raw time.Duration
	b.ResetTimer()
	for i := range b.N {
		run := fmt.Sprintf("chain-%d", i)
		plan, scripts := fanoutPlan(names, run)
		eng := New(Config{Dialer: pool, Parallelism: 1, PerHost: 1, StateDir: "/var/tmp/cp-chain-state-" + run,
			Scripts: func(pack, p string) ([]byte, error) { return scripts[p], nil }})
		start := time.Now()
		res, err := eng.Run(context.Background(), plan, RunInput{})
		engine += time.Since(start)
		if err != nil || res.Operation.Status != protocol.StatusCompleted {
			b.Fatalf("engine run: %v %s: %v", err, res.Operation.Status, res.Err())
		}
		wall, _ := rawScriptFanout(b, pool, names, scripts, "raw"+run)
		raw += wall
	}
	b.StopTimer()
	perJob := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) / float64(b.N*fanoutJobs) }
	b.ReportMetric(perJob(engine), "engine-ms/job")
	b.ReportMetric(perJob(raw), "script-driver-ms/job")
}
