package engine

import (
	"fmt"
	"io"
	"strings"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// SimpleView is a sink that renders the simple mode of an operation (seed
// 000 §7) to a writer each time the rendered text changes:
//
//	Create Kubernetes Cluster
//	Status: Running
//	Current phase: Installing container runtime
//	Progress: 5 of 10 phases
//	Needs attention: no
type SimpleView struct {
	w        io.Writer
	outline  Outline
	status   protocol.OperationStatus
	state    map[string]Status // instance -> latest status
	attn     []string
	last     string
	writeErr error
}

// NewSimpleView renders to w.
func NewSimpleView(w io.Writer) *SimpleView {
	return &SimpleView{w: w, state: map[string]Status{}}
}

// Emit updates the view and writes it when it changed.
func (v *SimpleView) Emit(e Event) {
	switch e.Type {
	case EventOperationStarted:
		if e.Outline != nil {
			v.outline = *e.Outline
		}
	case EventOperationStatus:
		v.status = e.OpStatus
	case EventInstanceStarted:
		v.state[e.Instance] = StatusRunning
	case EventInstanceFinished:
		v.state[e.Instance] = e.Status
		if e.Status == StatusFailed {
			v.attn = append(v.attn, e.Instance+" failed")
		}
	case EventGateWaiting:
		v.state[e.Instance] = StatusWaiting
		v.attn = append(v.attn, "gate "+e.Instance+" waits for a decision")
	default:
		return
	}
	if v.outline.Title == "" && v.status == "" {
		return
	}
	text := v.Render()
	if text == v.last || v.writeErr != nil {
		return
	}
	v.last = text
	_, v.writeErr = io.WriteString(v.w, text+"\n")
}

// Render returns the current view. The current phase is the earliest
// unfinished phase with a running instance, else the earliest unfinished.
func (v *SimpleView) Render() string {
	done, current := 0, ""
	for _, p := range v.outline.Phases {
		if v.phaseDone(p) {
			done++
		} else if current == "" {
			current = p.Title
		}
	}
	if c := v.firstRunningPhase(); c != "" {
		current = c
	}
	if current == "" {
		current = "none"
	}
	attn := "no"
	if len(v.attn) > 0 {
		attn = "yes: " + strings.Join(v.attn, "; ")
	}
	return fmt.Sprintf("%s\nStatus: %s\nCurrent phase: %s\nProgress: %d of %d phases\nNeeds attention: %s",
		v.outline.Title, v.status, current, done, len(v.outline.Phases), attn)
}

func (v *SimpleView) phaseDone(p Phase) bool {
	for _, id := range p.Instances {
		if !v.state[id].Finished() {
			return false
		}
	}
	return true
}

func (v *SimpleView) phaseRunning(p Phase) bool {
	for _, id := range p.Instances {
		if v.state[id] == StatusRunning {
			return true
		}
	}
	return false
}

// firstRunningPhase is the earliest unfinished phase with a running
// instance; the current phase is that one, else the earliest unfinished.
func (v *SimpleView) firstRunningPhase() string {
	for _, p := range v.outline.Phases {
		if !v.phaseDone(p) && v.phaseRunning(p) {
			return p.Title
		}
	}
	return ""
}

// Err returns the first write error.
func (v *SimpleView) Err() error { return v.writeErr }
