package provider

import (
	"encoding/json"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/intentops/terraform-provider-cp/internal/capability"
	"github.com/intentops/terraform-provider-cp/internal/operation"
	"github.com/intentops/terraform-provider-cp/internal/planner"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// scenarioSpec is a pack action intent in plain values, shared by
// cp_scenario, cp_tempo and cp_node.
type scenarioSpec struct {
	Pack, Version string
	Name          string
	Environment   string
	Hosts         []protocol.Host
	Access        []operation.HostAccess
	Targets       []string
	Params        map[string]string
	Constraints   map[string]string
	Candidates    []capability.Candidate
	State         planner.State
	Customization *protocol.Customization
	PatchesModel  []planPatchModel
	Inputs        runInputs
	// Paths says where the resource wrote parameters and candidates, for
	// planning errors; zero means parameters and candidates.
	Paths planPaths
}

// compose plans one action of the spec.
func (s scenarioSpec) compose(data *providerData, action string, now time.Time, diags *diag.Diagnostics) *intentOp {
	pack, _ := data.Catalog.Get(s.Pack, s.Version)
	constraints := map[string]string{}
	for k, v := range s.Constraints {
		constraints[k] = v
	}
	req := planner.Request{
		Catalog: data.Catalog, PackID: s.Pack, PackVersion: s.Version, Environment: s.Environment, Policy: data.Policy, Now: now,
		Candidates: s.Candidates, State: s.State, Customization: s.Customization, Patches: toPatches(s.PatchesModel, pack),
		Intent: protocol.Intent{ID: s.Name, Action: action, TargetResource: s.Name, Parameters: s.Params,
			Constraints: constraints, Hosts: s.Hosts, Targets: s.Targets},
	}
	if action != "install" && action != "create" {
		req.Customization = nil
		req.Patches = patchesFor(pack, action, req.Patches)
		// Later actions act on what install bound: the pack's requirements
		// are met already and are not resolved (nor created) again.
		if pack != nil {
			st := req.State
			st.Capabilities = append([]protocol.Capability(nil), st.Capabilities...)
			for _, r := range pack.Requires {
				st.Capabilities = append(st.Capabilities, protocol.Capability{Key: r.Capability})
			}
			req.State = st
		}
	}
	parts := append([]string{s.Pack}, s.Targets...)
	req.PlanID = opID(s.Name, action, parts...)
	c, err := planner.Compose(req)
	if err != nil {
		pp := s.Paths
		if pp.Params.Base == nil && pp.Params.Fallback == nil {
			pp.Params = defaultPlanPaths(req).Params
		}
		addPlanErrorAt(diags, req, err, pp)
		return nil
	}
	return &intentOp{Action: action, Targets: s.Targets, ID: req.PlanID, Composed: c, Hosts: s.Access, Req: req}
}

// computed points at the computed attributes every intent resource has.
type computed struct {
	PlanSummary, PlanAdvanced *types.String
	PlannedJobs               *types.List
	Operation                 *types.Object
	Artifacts, Evidence, Caps *types.List
	Handle                    *types.String
}

func (c computed) planned(ops []intentOp) {
	summary, advanced := planTexts(ops)
	*c.PlanSummary, *c.PlanAdvanced = types.StringValue(summary), types.StringValue(advanced)
	*c.PlannedJobs = plannedJobsList(ops)
	*c.Operation = types.ObjectUnknown(operationType.AttrTypes)
	*c.Artifacts = types.ListUnknown(artifactType)
	*c.Evidence = types.ListUnknown(evidenceType)
	*c.Caps = types.ListUnknown(capabilityType)
	*c.Handle = types.StringUnknown()
}

func (c computed) keep(from computed) {
	*c.PlanSummary, *c.PlanAdvanced, *c.PlannedJobs = *from.PlanSummary, *from.PlanAdvanced, *from.PlannedJobs
	*c.Operation, *c.Artifacts, *c.Evidence, *c.Caps, *c.Handle = *from.Operation, *from.Artifacts, *from.Evidence, *from.Caps, *from.Handle
}

// record stores the results of the operations that ran. The capabilities
// are those the pack provides, with the attributes its jobs reported and
// the public artifacts' values.
func (c computed) record(results []opResult, prev []protocol.Artifact, handle func([]protocol.Artifact, []protocol.Capability) string) {
	arts := prev
	for _, r := range results {
		arts = protocol.MergeArtifacts(arts, r.Result.Artifacts)
	}
	last := results[len(results)-1]
	*c.Operation = operationObject(last.Op.Action, &last.Result.Operation, last.Op.Composed.Plan, last.Result)
	*c.Artifacts = artifactsList(arts)
	*c.Evidence = evidenceList(last.Result)
	caps := providedCaps(last, arts)
	*c.Caps = capabilitiesList(caps)
	*c.Handle = types.StringValue(handle(arts, caps))
	if c.PlanSummary.IsUnknown() || c.PlanSummary.IsNull() {
		summary, advanced := planTexts(opsOf(results))
		*c.PlanSummary, *c.PlanAdvanced = types.StringValue(summary), types.StringValue(advanced)
		*c.PlannedJobs = plannedJobsList(opsOf(results))
	}
}

func providedCaps(last opResult, arts []protocol.Artifact) []protocol.Capability {
	attrs := map[string]map[string]string{}
	for _, pc := range last.Result.Capabilities {
		if attrs[pc.Key] == nil {
			attrs[pc.Key] = map[string]string{}
		}
		for k, v := range pc.Attributes {
			attrs[pc.Key][k] = v
		}
	}
	var out []protocol.Capability
	for _, p := range last.Op.Composed.Pack.Provides {
		a := attrs[p.Capability]
		if a == nil {
			a = map[string]string{}
		}
		for _, art := range arts {
			if art.Sensitivity != protocol.SensitivitySecret && art.Value != "" {
				a["artifact."+art.ID] = art.Value
			}
		}
		out = append(out, protocol.Capability{Key: p.Capability, Scope: p.Scope, Attributes: a})
	}
	return out
}

// scenarioHandle is the JSON a scenario resource hands to others: its
// capabilities and artifact references, no secrets.
func scenarioHandle(kind, name string, arts []protocol.Artifact, caps []protocol.Capability) string {
	type artRef struct {
		ID        string `json:"id"`
		Ref       string `json:"ref,omitempty"`
		Value     string `json:"value,omitempty"`
		ExpiresAt string `json:"expires_at,omitempty"`
	}
	h := struct {
		Kind         string                `json:"kind"`
		Name         string                `json:"name"`
		Capabilities []protocol.Capability `json:"capabilities"`
		Artifacts    []artRef              `json:"artifacts"`
	}{Kind: kind, Name: name, Capabilities: caps}
	for _, a := range arts {
		ar := artRef{ID: a.ID, Ref: a.Ref, ExpiresAt: ts(a.ExpiresAt)}
		if a.Sensitivity == protocol.SensitivityPublic {
			ar.Value = a.Value
		}
		h.Artifacts = append(h.Artifacts, ar)
	}
	b, _ := json.Marshal(h)
	return string(b)
}
