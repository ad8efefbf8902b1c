package engine

import (
	"sync"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
	"github.com/intentops/terraform-provider-cp/internal/transport"
)

// EventType names what happened.
type EventType string

const (
	EventOperationStarted EventType = "operation.started"
	EventOperationStatus  EventType = "operation.status"
	EventInstanceStarted  EventType = "instance.started"
	EventAttemptFailed    EventType = "instance.attempt_failed"
	EventInstanceFinished EventType = "instance.finished"
	EventEvidence         EventType = "evidence.checked"
	EventArtifact         EventType = "artifact.produced"
	EventGateWaiting      EventType = "gate.waiting"
	EventGateRefused      EventType = "gate.refused"
	EventGateApproved     EventType = "gate.approved"
	EventIntervention     EventType = "intervention.verified"
	EventScriptShipped    EventType = "script.shipped"
	// EventMarkersPending: final markers could not be written at the end
	// of the run; the pending markers on the host stand in for them.
	EventMarkersPending EventType = "markers.pending"
	// EventRunDirLeft: an instance's run directory (its input artifacts
	// among them) could not be removed; the next run's host preparation
	// removes it.
	EventRunDirLeft EventType = "rundir.left"
)

// Event is one step of a run. Every string in it has passed the redactor.
type Event struct {
	Seq       int64                    `json:"seq"`
	Time      time.Time                `json:"time"`
	Operation string                   `json:"operation"`
	Type      EventType                `json:"type"`
	OpStatus  protocol.OperationStatus `json:"op_status,omitempty"`
	Status    Status                   `json:"status,omitempty"`
	Instance  string                   `json:"instance,omitempty"`
	Job       string                   `json:"job,omitempty"`
	Stage     string                   `json:"stage,omitempty"`
	Host      string                   `json:"host,omitempty"`
	Attempt   int                      `json:"attempt,omitempty"`
	Message   string                   `json:"message,omitempty"`
	Evidence  *protocol.EvidenceResult `json:"evidence,omitempty"`
	Artifact  *protocol.Artifact       `json:"artifact,omitempty"`
	// Outline is set on operation.started: the plan's title and phases.
	Outline *Outline `json:"outline,omitempty"`
}

// Outline is the shape of a plan as a simple view needs it.
type Outline struct {
	Title  string  `json:"title"`
	Phases []Phase `json:"phases"`
}

// Phase is a stage of the plan with its instances.
type Phase struct {
	ID        string   `json:"id"`
	Title     string   `json:"title"`
	Instances []string `json:"instances"`
}

// Sink receives events. Emit is called from one goroutine at a time.
type Sink interface {
	Emit(Event)
}

// SinkFunc adapts a function to a Sink.
type SinkFunc func(Event)

// Emit calls f.
func (f SinkFunc) Emit(e Event) { f(e) }

// emitter numbers, redacts and fans out events.
type emitter struct {
	mu       sync.Mutex
	seq      int64
	op       string
	clock    func() time.Time
	redactor *transport.Redactor
	sinks    []Sink
}

func (em *emitter) emit(e Event) {
	em.mu.Lock()
	defer em.mu.Unlock()
	em.seq++
	e.Seq = em.seq
	e.Operation = em.op
	if e.Time.IsZero() {
		e.Time = em.clock()
	}
	e.Message = em.redactor.String(e.Message)
	if e.Evidence != nil {
		ev := redactEvidence(em.redactor, *e.Evidence)
		e.Evidence = &ev
	}
	if e.Artifact != nil {
		a := *e.Artifact
		if a.Sensitivity == protocol.SensitivitySecret {
			a.Value = ""
		}
		a.Value = em.redactor.String(a.Value)
		e.Artifact = &a
	}
	for _, s := range em.sinks {
		s.Emit(e)
	}
}

func redactEvidence(r *transport.Redactor, ev protocol.EvidenceResult) protocol.EvidenceResult {
	ev.Observed = r.String(ev.Observed)
	ev.Detail = r.String(ev.Detail)
	return ev
}
