package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/intentops/terraform-provider-cp/internal/intent"
	"github.com/intentops/terraform-provider-cp/internal/operation"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// A cluster's handle is known at plan and lists its artifacts by id
// (intent.NewClusterHandle); their references, fingerprints and expiries
// are in the intent record the cluster keeps on its masters after every
// apply (cluster_import.go). Apply reads them from there.

// recordArtifacts reads the artifacts of the handle's record from the
// first of its masters that keeps it; access is how to reach a host by
// name (the resource's ssh settings), def for any other.
func recordArtifacts(ctx context.Context, ch intent.Handle, access map[string]operation.HostAccess, def operation.Access) ([]protocol.Artifact, error) {
	var errs []error
	for _, h := range ch.ProtocolHosts() {
		if h.Role != protocol.RoleMaster {
			continue
		}
		ha, ok := access[h.Name]
		if !ok {
			ha = operation.HostAccess{Host: h, Access: def}
		}
		recs, err := operation.ReadRecords(ctx, ha)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", h.Name, err))
			continue
		}
		b, ok := recs[ch.Record]
		if !ok {
			errs = append(errs, fmt.Errorf("%s keeps no record of cluster %s", h.Name, ch.Record))
			continue
		}
		var rec clusterRecord
		if err := json.Unmarshal(b, &rec); err != nil {
			errs = append(errs, fmt.Errorf("%s: record of cluster %s: %w", h.Name, ch.Record, err))
			continue
		}
		for i := range rec.Artifacts {
			if host, _, ok := protocol.SplitRef(rec.Artifacts[i].Ref); ok && rec.Artifacts[i].Host == "" {
				rec.Artifacts[i].Host = host
			}
		}
		return rec.Artifacts, nil
	}
	if len(errs) == 0 {
		return nil, fmt.Errorf("the handle of cluster %s lists no master", ch.Name)
	}
	return nil, errors.Join(errs...)
}

// resolveHandle replaces, at apply, the artifacts ip lists by id from its
// cluster's handle with those of the cluster's record. A handle that
// carries its references (written by hand, or by an older version) is
// used as it is.
func resolveHandle(ctx context.Context, data *providerData, ip *intentPlan, diags *diag.Diagnostics) {
	ch := ip.handle
	if ch == nil || !ch.ByRecord() {
		return
	}
	access := map[string]operation.HostAccess{}
	for _, h := range ip.spec.Hosts {
		access[h.Host.Name] = h
	}
	arts, err := recordArtifacts(ctx, *ch, access, resourceAccess(data, nil))
	if err != nil {
		addAttrError(diags, path.Root("cluster_handle"), "Cannot read the cluster's artifacts",
			fmt.Sprintf("%v\n\nThe handle of cluster %s lists its artifacts (%s) by id; apply reads where they are from the record the cluster keeps on its masters after every apply. "+
				"Apply the cp_kubernetes_cluster first, and check that its masters are reachable with this resource's ssh settings.", err, ch.Name, artifactIDs(ch)))
		return
	}
	ip.spec.State.Artifacts = ch.ResolveArtifacts(ip.spec.State.Artifacts, arts)
	ip.inputs.Artifacts = ch.ResolveArtifacts(ip.inputs.Artifacts, arts)
}

func artifactIDs(ch *intent.Handle) string {
	ids := make([]string, 0, len(ch.Artifacts))
	for _, a := range ch.Artifacts {
		ids = append(ids, a.ID)
	}
	return orNoneList(ids)
}

// handleArtifacts are the handle's artifacts with their references: read
// from the record for a handle ByRecord (cp_artifact).
func handleArtifacts(ctx context.Context, data *providerData, ch intent.Handle) ([]protocol.Artifact, error) {
	if !ch.ByRecord() {
		return ch.ProtocolArtifacts(), nil
	}
	arts, err := recordArtifacts(ctx, ch, nil, resourceAccess(data, nil))
	if err != nil {
		return nil, fmt.Errorf("read the artifacts of cluster %s from its record: %w; the cluster keeps it on its masters once applied: "+
			"apply the cp_kubernetes_cluster first (e.g. tofu apply -target=<its address>) when it is created in the same run", ch.Name, err)
	}
	return arts, nil
}

// privHandleHosts is the private-state key of the hosts a resource on a
// cluster handle with an inventory reference resolved from the file:
// refresh and destroy use them when the file is gone or changed
// (intent.KeepInventoryHosts), as the cluster uses its own kept hosts.
const privHandleHosts = "cp.handle.inventory"

// keptHandleHosts is what privHandleHosts holds.
type keptHandleHosts struct {
	SHA256 string              `json:"sha256"`
	Hosts  []intent.HandleHost `json:"hosts"`
}

// keepHandleHosts keeps, in the resource's private state, the hosts ch
// (decoded) resolved from its inventory reference; nothing for a handle
// that lists its hosts.
func keepHandleHosts(ctx context.Context, p privateWriter, ch *intent.Handle, diags *diag.Diagnostics) {
	if p == nil || ch == nil || ch.Inventory == nil || len(ch.Hosts) == 0 {
		return
	}
	b, err := json.Marshal(keptHandleHosts{SHA256: ch.Inventory.SHA256, Hosts: ch.Hosts})
	if err != nil {
		diags.AddWarning("Cannot keep the cluster's hosts", err.Error())
		return
	}
	diags.Append(p.SetKey(ctx, privHandleHosts, b)...)
}

// rememberHandleHosts makes the hosts the resource's private state keeps
// for its cluster handle's inventory what decoding that handle yields
// when the file is gone or holds other hosts.
func rememberHandleHosts(ctx context.Context, p privateReader, diags *diag.Diagnostics) {
	if p == nil {
		return
	}
	b, d := p.GetKey(ctx, privHandleHosts)
	diags.Append(d...)
	if len(b) == 0 {
		return
	}
	var k keptHandleHosts
	if err := json.Unmarshal(b, &k); err != nil {
		diags.AddWarning("Cannot read the kept hosts of the cluster", fmt.Sprintf("private state %s: %v; the cluster's inventory file is read instead.", privHandleHosts, err))
		return
	}
	intent.KeepInventoryHosts(k.SHA256, k.Hosts)
}

// addHandleError is a cluster handle that cannot be decoded, on
// cluster_handle: one whose inventory file is gone or changed says so.
func addHandleError(diags *diag.Diagnostics, err error) {
	title := "Invalid cluster handle"
	if errors.Is(err, intent.ErrInventoryUnavailable) {
		title = "Cluster inventory file unavailable"
	}
	addAttrError(diags, path.Root("cluster_handle"), title, err.Error())
}
