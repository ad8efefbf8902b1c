package intent

import (
	"errors"
	"fmt"
	"io/fs"
	"sync"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// HandleInventory is a cluster's hosts by reference, in the handle of a
// cluster whose hosts come from an inventory file (inventory_file): the
// file's absolute path and SHA-256 and how many masters and workers it
// lists, so the handle stays a few hundred bytes
// whatever the cluster's size. DecodeClusterHandle reads the file back.
type HandleInventory struct {
	File    string `json:"file"`
	SHA256  string `json:"sha256"`
	Masters int    `json:"masters"`
	Workers int    `json:"workers"`
}

// InventoryRef is the reference of a cluster's hosts kept in file (an
// absolute path) with the SHA-256 sha; hosts are the file's, masters
// first.
func InventoryRef(file, sha string, hosts []protocol.Host) *HandleInventory {
	ref := &HandleInventory{File: file, SHA256: sha}
	for _, h := range hosts {
		if h.Role == protocol.RoleMaster {
			ref.Masters++
		} else {
			ref.Workers++
		}
	}
	return ref
}

// ErrInventoryUnavailable is why a handle's inventory reference cannot be
// read: its file is missing or holds other hosts (another digest).
var ErrInventoryUnavailable = errors.New("the cluster's inventory file is unavailable")

// keptInventories are hosts of inventory references by SHA-256, as the
// resources that resolved them kept them (KeepInventoryHosts): a digest
// names one file content, so the hosts kept under it are that file's
// wherever they were read.
var keptInventories sync.Map

// KeepInventoryHosts makes hosts, resolved earlier from the inventory of
// digest sha (and kept by the resource that resolved them), what a handle
// referring to that digest yields when its file is gone or changed.
func KeepInventoryHosts(sha string, hosts []HandleHost) {
	if sha != "" && len(hosts) > 0 {
		keptInventories.Store(sha, append([]HandleHost(nil), hosts...))
	}
}

// resolveInventory fills h.Hosts from h.Inventory's file, whose SHA-256
// must be the reference's; failing that, from the hosts kept for that
// digest (KeepInventoryHosts).
func (h *Handle) resolveInventory() error {
	ref := h.Inventory
	hosts, err := readInventoryRef(ref)
	if err != nil {
		if v, ok := keptInventories.Load(ref.SHA256); ok {
			h.Hosts = append([]HandleHost(nil), v.([]HandleHost)...)
			return nil
		}
		return err
	}
	h.Hosts = hosts
	return nil
}

func readInventoryRef(ref *HandleInventory) ([]HandleHost, error) {
	if ref.File == "" || ref.SHA256 == "" {
		return nil, fmt.Errorf("the handle's inventory reference names no file or no sha256")
	}
	inv, err := ReadInventory(ref.File)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s does not exist, the handle expects SHA-256 %s; restore the file the cluster was planned with, "+
			"or apply the cp_kubernetes_cluster with the file it now reads so its handle refers to that one: %w", ErrInventoryUnavailable, ref.File, ref.SHA256, err)
	}
	if err != nil {
		return nil, fmt.Errorf("read the cluster's inventory %s: %w", ref.File, err)
	}
	if inv.SHA256 != ref.SHA256 {
		return nil, fmt.Errorf("%w: %s has SHA-256 %s, the handle expects %s: the file changed since the cluster's handle was computed; "+
			"plan and apply the cp_kubernetes_cluster with the file as it is now (its handle then refers to it), or restore the file",
			ErrInventoryUnavailable, ref.File, inv.SHA256, ref.SHA256)
	}
	hosts := make([]HandleHost, 0, len(inv.Masters)+len(inv.Workers))
	add := func(list []InventoryHost, role string) {
		for _, x := range list {
			hh := HandleHost{Name: x.Name, Address: x.Address, Role: role}
			if x.Port != nil {
				hh.Port = int(*x.Port)
			}
			hosts = append(hosts, hh)
		}
	}
	add(inv.Masters, protocol.RoleMaster)
	add(inv.Workers, protocol.RoleWorker)
	if len(inv.Masters) != ref.Masters || len(inv.Workers) != ref.Workers {
		return nil, fmt.Errorf("%s lists %d masters and %d workers, the handle %d and %d", ref.File, len(inv.Masters), len(inv.Workers), ref.Masters, ref.Workers)
	}
	return hosts, nil
}
