package engine

import (
	"fmt"
	"io"
	"testing"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// benchPlan: hosts × layers instances; each instance needs the previous
// layer's instance on its host, and every 25th layer also needs a barrier
// instance that needs the whole previous layer.
func benchPlan(hosts, layers int) *protocol.Plan {
	p := &protocol.Plan{ID: "bench"}
	for h := range hosts {
		p.Intent.Hosts = append(p.Intent.Hosts, protocol.Host{Name: fmt.Sprintf("h%03d", h), Role: "worker"})
	}
	jobs := make([]*protocol.Job, layers)
	for l := range layers {
		jobs[l] = newJob(fmt.Sprintf("j%03d", l), evidence("ok", "state ok", ""))
		jobs[l].Outputs.Evidence[0].Expected = ""
	}
	barrier := ""
	for l := range layers {
		var ids []string
		for h := range hosts {
			host := fmt.Sprintf("h%03d", h)
			in := newInst(jobs[l], "s", host)
			if l > 0 {
				in.Needs = append(in.Needs, fmt.Sprintf("%s[%s]", jobs[l-1].ID, host))
			}
			if barrier != "" {
				in.Needs = append(in.Needs, barrier)
			}
			p.Instances = append(p.Instances, in)
			ids = append(ids, in.ID)
		}
		barrier = ""
		if l%25 == 24 {
			b := newJob(fmt.Sprintf("barrier%03d", l))
			bi := newInst(b, "s", "")
			bi.Needs = ids
			p.Instances = append(p.Instances, bi)
			barrier = bi.ID
		}
	}
	return p
}

// BenchmarkSchedule runs a 10,000-instance plan over the in-memory
// transport, whose commands return at once; ns/instance is the engine's
// own overhead per instance (scheduling, env, batching, parsing, markers,
// events).
func BenchmarkSchedule(b *testing.B) {
	p := benchPlan(100, 100)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		n := newMemNet()
		for _, h := range p.Intent.Hosts {
			n.hosts[h.Name] = &memHost{name: h.Name, files: map[string][]byte{}, runs: map[string]int{}, state: map[string]string{}}
		}
		n.script = func(*memHost, string, map[string]string, io.Writer) int { return 0 }
		e := New(Config{Dialer: n, Scripts: memScripts, Parallelism: 64, PerHost: 4})
		b.StartTimer()
		res, err := e.Run(b.Context(), p, RunInput{})
		if err != nil || res.Operation.Status != protocol.StatusCompleted {
			b.Fatalf("run: %v %s", err, res.Operation.Status)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(p.Instances)), "ns/instance")
}
