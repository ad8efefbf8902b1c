package capability

import "github.com/intentops/terraform-provider-cp/internal/protocol"

// Candidate sources.
const (
	SourceResource = "resource" // exported by another cp resource
	SourceExternal = "external" // declared by the user (an existing S3...)
)

// Candidate is an existing provider that might satisfy a requirement.
type Candidate struct {
	// Name identifies the candidate, e.g. a cp resource handle
	// (cp_minio.shared) or an external name (aws-s3-eu).
	Name string `json:"name"`
	// Provider is the provider kind the policy speaks of: aws_s3,
	// shared_minio, dedicated_minio...
	Provider string `json:"provider"`
	// Capability is what the candidate provides, with its attributes.
	Capability protocol.Capability `json:"capability"`
	// Source is SourceResource or SourceExternal.
	Source string `json:"source"`
}

// Creator is a pack that can create a provider of a capability.
type Creator struct {
	Capability string `json:"capability"` // object_storage.s3
	Provider   string `json:"provider"`   // dedicated_minio
	Pack       string `json:"pack"`       // minio
	Version    string `json:"version,omitempty"`
	Action     string `json:"action"` // install
	// MonthlyUSD is the cost the pack declares for one instance (pack.yaml
	// cost.monthly_usd); 0 when it declares none.
	MonthlyUSD float64 `json:"monthly_usd,omitempty"`
	// ShapedBy maps the requirement's constraints to the pack's
	// parameters (pack.yaml provides[i].shaped_by).
	ShapedBy []protocol.ConstraintShape `json:"shaped_by,omitempty"`
}

// Request is one requirement to resolve.
type Request struct {
	Requirement protocol.CapabilityRequirement `json:"requirement"`
	// Environment selects the policy (dev, stage, prod).
	Environment string `json:"environment"`
	// Workload holds the requesting intent's attributes, referred to by
	// "same-as-workload" constraints (region: same-as-workload).
	Workload   map[string]string `json:"workload,omitempty"`
	Candidates []Candidate       `json:"candidates,omitempty"`
	Creators   []Creator         `json:"creators,omitempty"`
	Policy     Policy            `json:"policy,omitempty"`
	// Choices are the decisions known at plan time (the resource's
	// approvals with the provider's actor and roles). A decision for a
	// gate Resolve produces applies the chosen option: bind builds the
	// decision for that candidate, create for that provider, both still
	// held by the gate, which the engine checks again at apply.
	Choices []protocol.Decision `json:"choices,omitempty"`
	// Consumer is the requesting intent's name: a created provider's
	// parameters may name it ({consumer} in shaped_by), so that a
	// dedicated instance is the consumer's own.
	Consumer string `json:"consumer,omitempty"`
	// Rules are the policy rules over organization, criticality,
	// compliance and cost, weighed before the environment's policy.
	Rules []Rule `json:"rules,omitempty"`
	// Context is what the rules match on besides capability and
	// environment.
	Context Context `json:"context,omitempty"`
}
