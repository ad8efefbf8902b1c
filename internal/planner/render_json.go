package planner

import (
	"encoding/json"
	"fmt"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// JSONView is the stable machine-readable shape of a plan.
type JSONView struct {
	ID            string                  `json:"id,omitempty"`
	Template      string                  `json:"template"`
	Title         string                  `json:"title,omitempty"`
	Display       string                  `json:"display"`
	Customized    bool                    `json:"customized"`
	Changes       []string                `json:"changes"`
	Stages        []protocol.PlanStage    `json:"stages"`
	Instances     []JSONInstance          `json:"instances"`
	Edges         []JSONEdge              `json:"edges"`
	Gates         []JSONGate              `json:"gates"`
	SubOperations []protocol.SubOperation `json:"sub_operations"`
	Bindings      []protocol.Binding      `json:"bindings"`
}

// JSONInstance is one job instance or gate node.
type JSONInstance struct {
	ID             string            `json:"id"`
	Job            string            `json:"job"`
	Stage          string            `json:"stage"`
	Host           string            `json:"host,omitempty"`
	RunOn          string            `json:"run_on,omitempty"` // where it executes when not on Host
	Pack           string            `json:"pack"`
	Origin         protocol.Origin   `json:"origin"`
	Because        string            `json:"because,omitempty"`
	SubOperation   string            `json:"sub_operation,omitempty"`
	Retry          bool              `json:"retry,omitempty"`
	Gate           bool              `json:"gate,omitempty"`
	Needs          []string          `json:"needs"`
	Requires       string            `json:"requires,omitempty"`
	Provides       string            `json:"provides,omitempty"`
	IdempotencyKey string            `json:"idempotency_key,omitempty"`
	Params         map[string]string `json:"params,omitempty"`
}

// JSONEdge says that To waits for From. From is an instance id, or a
// group need "JOB[*]" (protocol.GroupNeed): To waits for every instance
// of job group JOB.
type JSONEdge struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// JSONGate is a gate node with its decision data.
type JSONGate struct {
	Instance string `json:"instance"`
	protocol.Gate
}

// View builds the JSON view of a plan.
func View(p *protocol.Plan) JSONView {
	v := JSONView{
		ID: p.ID, Template: p.Template, Title: p.Title, Display: p.Display(), Customized: p.Customized,
		Changes: nonNil(p.Changes), Stages: nonNil(p.Stages), SubOperations: nonNil(p.SubOps), Bindings: nonNil(p.Bindings),
		Instances: make([]JSONInstance, 0, len(p.Instances)), Edges: []JSONEdge{}, Gates: []JSONGate{},
	}
	for _, in := range p.Instances {
		ji := JSONInstance{ID: in.ID, Job: in.JobID, Stage: in.Stage, Host: in.Host, RunOn: in.RunOn, Pack: in.Pack, Origin: in.Origin,
			Because: in.Because, SubOperation: in.SubOperation, Retry: in.Retry, Gate: in.IsGate(), Needs: nonNil(in.Needs),
			IdempotencyKey: in.IdempotencyKey, Params: in.Params}
		if in.Job != nil {
			ji.Requires, ji.Provides = requiresText(in.Job), providesText(in.Job)
		}
		v.Instances = append(v.Instances, ji)
		for _, n := range in.Needs {
			v.Edges = append(v.Edges, JSONEdge{From: n, To: in.ID})
		}
		if in.IsGate() {
			v.Gates = append(v.Gates, JSONGate{Instance: in.ID, Gate: *in.Gate})
		}
	}
	return v
}

// RenderJSON renders the JSON view, indented, with a trailing newline.
func RenderJSON(p *protocol.Plan) ([]byte, error) {
	b, err := json.MarshalIndent(View(p), "", "  ")
	if err != nil {
		return nil, fmt.Errorf("render plan %s as JSON: %w", p.Template, err)
	}
	return append(b, '\n'), nil
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
