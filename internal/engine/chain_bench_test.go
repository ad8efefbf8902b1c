package engine

import (
	"context"
	"fmt"
	"syscall"
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
	var engineCPU, rawCPU, engineGo, rawGo time.Duration
	b.ResetTimer()
	for i := range b.N {
		run := fmt.Sprintf("chain-%d", i)
		plan, scripts := fanoutPlan(names, run)
		eng := New(Config{Dialer: pool, Parallelism: 1, PerHost: 1, StateDir: "/var/tmp/cp-chain-state-" + run,
			Scripts: func(pack, p string) ([]byte, error) { return scripts[p], nil }})
		start, cpu0, go0 := time.Now(), machineCPU(b), selfCPU()
		res, err := eng.Run(context.Background(), plan, RunInput{})
		engine += time.Since(start)
		engineCPU += machineCPU(b) - cpu0
		engineGo += selfCPU() - go0
		if err != nil || res.Operation.Status != protocol.StatusCompleted {
			b.Fatalf("engine run: %v %s: %v", err, res.Operation.Status, res.Err())
		}
		dir := "/var/tmp/cp-chain-scripts-" + run
		shipScripts(b, pool, names, scripts, dir)
		cpu0, go0 = machineCPU(b), selfCPU()
		wall, _ := rawScriptFanout(b, pool, names, dir, "raw"+run)
		raw += wall
		rawCPU += machineCPU(b) - cpu0
		rawGo += selfCPU() - go0
	}
	b.StopTimer()
	perJob := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) / float64(b.N*fanoutJobs) }
	b.ReportMetric(perJob(engine), "engine-ms/job")
	b.ReportMetric(perJob(raw), "script-driver-ms/job")
	b.ReportMetric(perJob(engineCPU), "engine-cpu-ms/job")
	b.ReportMetric(perJob(engineGo), "engine-go-cpu-ms/job")
	b.ReportMetric(perJob(rawCPU), "script-driver-cpu-ms/job")
	b.ReportMetric(perJob(rawGo), "script-driver-go-cpu-ms/job")
}

// machineCPU is the CPU time all processes used so far (/proc/stat).
func machineCPU(b *testing.B) time.Duration {
	busy, _, err := machineCounters()
	if err != nil {
		b.Fatal(err)
	}
	return busy
}

// selfCPU is the CPU time this process used so far.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
