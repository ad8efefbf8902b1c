package provider

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/intentops/terraform-provider-cp/internal/capability"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// clusterHandleData is the JSON of a cp_kubernetes_cluster handle.
type clusterHandleData struct {
	Kind        string `json:"kind"`
	Name        string `json:"name"`
	Environment string `json:"environment"`
	Region      string `json:"region"`
	Version     string `json:"kubernetes_version"`
	APIEndpoint string `json:"api_endpoint"`
	Hosts       []struct {
		Name    string `json:"name"`
		Address string `json:"address"`
		Port    int    `json:"port"`
		Role    string `json:"role"`
	} `json:"hosts"`
	Artifacts []struct {
		ID        string `json:"id"`
		Ref       string `json:"ref"`
		Value     string `json:"value"`
		ExpiresAt string `json:"expires_at"`
	} `json:"artifacts"`
}

func parseClusterHandle(s string) (*clusterHandleData, error) {
	var h clusterHandleData
	if err := json.Unmarshal([]byte(s), &h); err != nil {
		return nil, fmt.Errorf("not a cluster handle (pass cp_kubernetes_cluster.<name>.handle): %w", err)
	}
	if h.Kind != "kubernetes.cluster" || h.Name == "" || len(h.Hosts) == 0 {
		return nil, fmt.Errorf("not a cluster handle: kind %q, name %q, %d hosts; pass cp_kubernetes_cluster.<name>.handle", h.Kind, h.Name, len(h.Hosts))
	}
	return &h, nil
}

func (h *clusterHandleData) hosts() []protocol.Host {
	var out []protocol.Host
	for _, x := range h.Hosts {
		out = append(out, protocol.Host{Name: x.Name, Address: x.Address, Port: x.Port, Role: x.Role})
	}
	return out
}

func (h *clusterHandleData) artifacts() []protocol.Artifact {
	var out []protocol.Artifact
	for _, a := range h.Artifacts {
		art := protocol.Artifact{ID: a.ID, Ref: a.Ref, Value: a.Value, Sensitivity: protocol.SensitivityInternal}
		if a.Ref != "" {
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

// candidates are the capabilities a cluster exports for resolution.
func (h *clusterHandleData) candidates() []capability.Candidate {
	attrs := map[string]string{"name": h.Name, "api_endpoint": h.APIEndpoint, "environment": h.Environment, "version": h.Version}
	if h.Region != "" {
		attrs["region"] = h.Region
	}
	return []capability.Candidate{
		{Name: h.Name, Provider: "cp_kubernetes_cluster", Source: capability.SourceResource,
			Capability: protocol.Capability{Key: "kubernetes.cluster", Provider: h.Name, Attributes: attrs}},
		{Name: h.Name + "-secrets", Provider: "kubernetes_secrets", Source: capability.SourceResource,
			Capability: protocol.Capability{Key: "secret.store", Provider: h.Name, Attributes: map[string]string{"cluster": h.Name}}},
		{Name: h.Name + "-runtime", Provider: "cp_kubernetes_cluster", Source: capability.SourceResource,
			Capability: protocol.Capability{Key: "workload.runtime", Provider: h.Name, Attributes: map[string]string{"api_endpoint": h.APIEndpoint}}},
	}
}
