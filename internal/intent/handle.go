package intent

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// ClusterKind is the handle kind of a Kubernetes cluster.
const ClusterKind = "kubernetes.cluster"

// Handle is what an intent resource hands to others (its handle
// attribute): what it is, its hosts, the capabilities it exports and its
// artifacts by reference, never a secret value.
type Handle struct {
	Kind        string `json:"kind"`
	Name        string `json:"name"`
	Environment string `json:"environment,omitempty"`
	Region      string `json:"region,omitempty"`
	// Version and APIEndpoint are a cluster's.
	Version     string `json:"kubernetes_version,omitempty"`
	APIEndpoint string `json:"api_endpoint,omitempty"`
	// PackVersion is the version of the pack the resource was planned
	// with.
	PackVersion string       `json:"pack_version,omitempty"`
	Hosts       []HandleHost `json:"hosts,omitempty"`
	// Inventory, set instead of Hosts for a cluster whose hosts come from
	// an inventory file, refers to the file; DecodeClusterHandle reads
	// the hosts from it.
	Inventory    *HandleInventory      `json:"inventory,omitempty"`
	Capabilities []protocol.Capability `json:"capabilities,omitempty"`
	Artifacts    []HandleArtifact      `json:"artifacts"`
	// Record, when set, names the intent record (on the handle's masters)
	// that holds the artifacts' references: such a handle is computed at
	// plan from configuration alone, lists its artifacts by id, and apply
	// reads their references, fingerprints and expiries from the record
	// (ResolveArtifacts). A handle without it carries its references.
	Record string `json:"record,omitempty"`
}

// HandleHost is one host of a handle.
type HandleHost struct {
	Name    string `json:"name"`
	Address string `json:"address"`
	Port    int    `json:"port,omitempty"`
	Role    string `json:"role"`
}

// HandleArtifact is one artifact of a handle: a secret by reference
// (host:path), a public one with its value.
type HandleArtifact struct {
	ID        string `json:"id"`
	Ref       string `json:"ref,omitempty"`
	Value     string `json:"value,omitempty"`
	ExpiresAt string `json:"expires_at,omitempty"`
}

// NewHandle builds a handle of hosts and artifacts: only public artifacts
// keep their value.
func NewHandle(kind, name string, hosts []protocol.Host, arts []protocol.Artifact) Handle {
	h := Handle{Kind: kind, Name: name, Artifacts: []HandleArtifact{}}
	for _, x := range hosts {
		h.Hosts = append(h.Hosts, HandleHost{Name: x.Name, Address: x.Address, Port: x.Port, Role: x.Role})
	}
	for _, a := range arts {
		ha := HandleArtifact{ID: a.ID, Ref: a.Ref}
		if !a.ExpiresAt.IsZero() {
			ha.ExpiresAt = a.ExpiresAt.UTC().Format(time.RFC3339)
		}
		if a.Sensitivity == protocol.SensitivityPublic {
			ha.Value = a.Value
		}
		h.Artifacts = append(h.Artifacts, ha)
	}
	return h
}

// ClusterHandleSpec is what a cluster's handle is computed from, all of
// it known at plan: the configuration and the kubernetes pack.
type ClusterHandleSpec struct {
	Name, Environment, Region, Version, APIEndpoint string
	Pack                                            *protocol.ScenarioPack
	Hosts                                           []protocol.Host
	// Inventory, when the hosts come from an inventory file
	// (InventoryRef), is the handle's reference to them: the handle
	// then lists no hosts.
	Inventory *HandleInventory
	// Capabilities are the pack's exports with the configuration's
	// values (Provided without reported values).
	Capabilities []protocol.Capability
}

// NewClusterHandle is a cluster's handle computed from configuration: the
// same at plan and after apply, so resources built on the cluster plan
// their full DAG before it exists, and it changes only when the
// configuration does (a worker removed). Its artifacts are those the
// pack's create template produces for the cluster, by id; their
// references are read at apply from the cluster's record.
func NewClusterHandle(s ClusterHandleSpec) Handle {
	h := Handle{Kind: ClusterKind, Name: s.Name, Environment: s.Environment, Region: s.Region, Version: s.Version,
		APIEndpoint: s.APIEndpoint, Capabilities: s.Capabilities, Artifacts: []HandleArtifact{}, Record: s.Name}
	if s.Pack != nil {
		h.PackVersion = s.Pack.Version
	}
	if s.Inventory != nil {
		h.Inventory = s.Inventory
	} else {
		for _, x := range s.Hosts {
			h.Hosts = append(h.Hosts, HandleHost{Name: x.Name, Address: x.Address, Port: x.Port, Role: x.Role})
		}
	}
	for _, id := range CreatedArtifacts(s.Pack) {
		h.Artifacts = append(h.Artifacts, HandleArtifact{ID: id})
	}
	return h
}

// CreatedArtifacts are the ids, sorted, of the cluster-scoped artifacts
// the jobs of the pack's create template produce: what a created
// resource holds for others.
func CreatedArtifacts(p *protocol.ScenarioPack) []string {
	if p == nil {
		return nil
	}
	t, err := p.Template(p.ActionOfKind(protocol.KindCreate))
	if err != nil {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	for _, st := range t.Stages {
		for _, id := range st.Jobs {
			j := p.Jobs[id]
			if j == nil {
				continue
			}
			for _, a := range j.Outputs.Artifacts {
				if a.Scope.Normal() == protocol.ScopeCluster && !seen[a.ID] {
					seen[a.ID] = true
					out = append(out, a.ID)
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

// ByRecord reports whether the handle's artifact references are in its
// record rather than in the handle.
func (h Handle) ByRecord() bool { return h.Record != "" }

// ResolveArtifacts replaces, in arts, the handle's artifacts listed by id
// (ProtocolArtifacts of a handle ByRecord) with those of the record: every
// artifact the record holds, with its reference, fingerprint and expiry.
// Other artifacts of arts are kept.
func (h Handle) ResolveArtifacts(arts, record []protocol.Artifact) []protocol.Artifact {
	byID := map[string]bool{}
	for _, a := range h.Artifacts {
		if a.Ref == "" && a.Value == "" {
			byID[a.ID] = true
		}
	}
	out := make([]protocol.Artifact, 0, len(arts)+len(record))
	for _, a := range arts {
		if byID[a.ID] && a.Ref == "" && a.Value == "" {
			continue
		}
		out = append(out, a)
	}
	return append(out, record...)
}

// HandlePrefix starts an encoded handle: the handle is an opaque string
// to pass on as it is, so OpenTofu and Terraform show it on one line, not
// as a JSON document of one line per host (a 1,000-node cluster's handle
// is one line of the plan, and a worker removed changes that line).
const HandlePrefix = "cp.handle.v1 "

// Encode writes the handle as HandlePrefix and its JSON.
func (h Handle) Encode() string {
	b, err := json.Marshal(h)
	if err != nil {
		// A Handle holds strings, ints and maps of strings only.
		panic(fmt.Sprintf("encode handle: %v", err))
	}
	return HandlePrefix + string(b)
}

// DecodeHandle reads a handle (Encode's form, or its JSON alone) and
// checks it is of kind (any kind when empty) with a name.
func DecodeHandle(s, kind string) (Handle, error) {
	var h Handle
	// Plain JSON is read too: a handle written by hand (jsonencode) or by
	// an older version.
	if err := json.Unmarshal([]byte(strings.TrimPrefix(s, HandlePrefix)), &h); err != nil {
		return h, fmt.Errorf("not a %s handle (pass the handle attribute of a cp resource): %w", kindLabel(kind), err)
	}
	if h.Name == "" || (kind != "" && h.Kind != kind) {
		return h, fmt.Errorf("not a %s handle: kind %q, name %q", kindLabel(kind), h.Kind, h.Name)
	}
	return h, nil
}

// DecodeClusterHandle reads a cluster handle: kind kubernetes.cluster, a
// name and at least one host. A handle with an inventory reference gets
// its hosts from the file, whose SHA-256 must be the handle's, or else
// from the hosts kept for that digest (KeepInventoryHosts); failing both
// the error wraps ErrInventoryUnavailable and says which file and digest.
func DecodeClusterHandle(s string) (Handle, error) {
	h, err := DecodeHandle(s, ClusterKind)
	if err == nil && h.Inventory != nil {
		if err = h.resolveInventory(); err != nil {
			return h, fmt.Errorf("cluster %s: %w", h.Name, err)
		}
	}
	if err == nil && len(h.Hosts) == 0 {
		err = fmt.Errorf("not a %s handle: %s lists no hosts", kindLabel(ClusterKind), h.Name)
	}
	if err != nil {
		return h, fmt.Errorf("%w; pass cp_kubernetes_cluster.<name>.handle", err)
	}
	return h, nil
}

// kindLabel names a handle kind in errors.
func kindLabel(kind string) string {
	switch kind {
	case "":
		return "cp"
	case ClusterKind:
		return "cluster"
	}
	return kind
}

// ProtocolHosts are the handle's hosts.
func (h Handle) ProtocolHosts() []protocol.Host {
	var out []protocol.Host
	for _, x := range h.Hosts {
		out = append(out, protocol.Host{Name: x.Name, Address: x.Address, Port: x.Port, Role: x.Role})
	}
	return out
}

// ProtocolArtifacts are the handle's artifacts: one with a reference is a
// secret kept on the host the reference names, one without is internal;
// in a handle ByRecord, one with neither reference nor value is listed by
// id only, a secret until apply resolves it (ResolveArtifacts), so an
// unresolved one cannot reach a job empty.
func (h Handle) ProtocolArtifacts() []protocol.Artifact {
	var out []protocol.Artifact
	for _, a := range h.Artifacts {
		art := protocol.Artifact{ID: a.ID, Ref: a.Ref, Value: a.Value, Sensitivity: protocol.SensitivityInternal}
		if a.Ref != "" || h.ByRecord() && a.Value == "" {
			art.Sensitivity = protocol.SensitivitySecret
			if host, _, ok := protocol.SplitRef(a.Ref); ok {
				art.Host = host
			}
		}
		if a.ExpiresAt != "" {
			art.ExpiresAt, _ = time.Parse(time.RFC3339, a.ExpiresAt)
		}
		out = append(out, art)
	}
	return out
}

// Exports are the capabilities the handle's resource offers: those it
// lists, or, for a handle that lists none (written by hand, or by an
// older version), the exports of pack computed from the handle's values.
func (h Handle) Exports(pack *protocol.ScenarioPack) []protocol.Capability {
	if len(h.Capabilities) > 0 {
		return h.Capabilities
	}
	params := map[string]string{}
	if pack != nil {
		// The cluster's values under the pack's parameter names.
		for k, v := range map[string]string{"cluster_name": h.Name, "kubernetes_version": h.Version} {
			if _, ok := pack.Parameters[k]; ok && v != "" {
				params[k] = v
			}
		}
	}
	return Exports(pack, ExportValues(pack, params, map[string]string{
		"name": h.Name, "environment": h.Environment, "region": h.Region, "api_endpoint": h.APIEndpoint}))
}
