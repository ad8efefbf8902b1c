package intent

import (
	"fmt"
	"slices"

	"github.com/intentops/terraform-provider-cp/internal/paramtype"
)

// ControlPlane is a cluster's control plane as configured: its masters
// in their order (the first initializes the cluster) and its parameters
// (the endpoint among them).
type ControlPlane struct {
	Masters []Master
	Params  map[string]string
}

// Master is one master as the control-plane change sees it.
type Master struct {
	Name string
	// Address is the SSH address; NodeAddress the node_address, empty
	// when not set (it defaults to Address).
	Address, NodeAddress string
	// Settings are the master's other settings, whose change replaces
	// the cluster (SSH port and login, WireGuard endpoint), in a form the
	// caller keeps comparable; labels and taints are not among them
	// (their change plans relabel).
	Settings string
}

func (m Master) same(o Master) bool {
	return m.Name == o.Name && m.Address == o.Address && m.NodeAddress == o.NodeAddress && m.Settings == o.Settings
}

// MastersChange is how a cluster's control plane goes from one
// configuration to the next.
type MastersChange struct {
	// Replace says the change cannot be made in place; Reason says why,
	// for the plan's notice.
	Replace bool
	Reason  string
	// ReasonPath is the attribute the reason is about: masters, or the
	// endpoint parameter.
	ReasonPath Path
	// Refused is set when the change is neither made in place nor by a
	// replacement the reviewer would not expect: the plan is refused at
	// its path, saying what to do.
	Refused *Problem
	// Added and Removed are the masters that join (add_master) and leave
	// (remove_node), in their configured order.
	Added, Removed []string
}

// ControlPlaneChange says how the control plane changes from prior to
// next. In place: labels and taints of masters (relabel), masters other
// than the first left out (remove_node: drain, an etcd snapshot, their
// etcd members removed) and masters added (add_master: a kubeadm
// control-plane join through the endpoint, with the certificates
// uploaded by kubeadm init phase upload-certs). The masters that stay
// keep their settings and their order.
//
// Replaced: a change of the first master (it holds etcd's first member
// and initialized the cluster), of a staying master's address or
// settings, of the masters' order, or of the control-plane endpoint
// (kubeadm writes it into the API server's certificate, every kubeconfig
// and the kubeadm-config ConfigMap).
//
// Refused: masters added while the endpoint changes. kubeadm joins a new
// master through the endpoint the cluster was built with, so such a plan
// could only replace the cluster; the user gives the endpoint the cluster
// has, or replaces it as a change of its own first.
func ControlPlaneChange(prior, next ControlPlane) MastersChange {
	if len(prior.Masters) == 0 || len(next.Masters) == 0 {
		return MastersChange{Replace: true, Reason: "the cluster has no master to keep", ReasonPath: Root("masters")}
	}
	first := prior.Masters[0]
	if !first.same(next.Masters[0]) {
		what := fmt.Sprintf("the first master changes from %s to %s", first.Name, next.Masters[0].Name)
		if first.Name == next.Masters[0].Name {
			what = fmt.Sprintf("the first master %s changes its address or settings", first.Name)
		}
		return MastersChange{Replace: true, Reason: what + ": it initialized the cluster and holds etcd's first member, so the cluster is built again", ReasonPath: Root("masters").Index(0)}
	}
	var c MastersChange
	byName := map[string]Master{}
	for _, m := range prior.Masters {
		byName[m.Name] = m
	}
	kept := []string{}
	for _, m := range next.Masters {
		old, ok := byName[m.Name]
		switch {
		case !ok:
			c.Added = append(c.Added, m.Name)
		case !old.same(m):
			return MastersChange{Replace: true, Reason: fmt.Sprintf("master %s changes its address or settings; a master is moved by removing it and adding one under another name", m.Name),
				ReasonPath: Root("masters")}
		default:
			kept = append(kept, m.Name)
		}
	}
	var order []string
	for _, m := range prior.Masters {
		if slices.Contains(kept, m.Name) {
			order = append(order, m.Name)
		} else {
			c.Removed = append(c.Removed, m.Name)
		}
	}
	if !slices.Equal(order, kept) {
		return MastersChange{Replace: true, Reason: "the masters that stay change their order, which numbers the hosts of the WireGuard mesh", ReasonPath: Root("masters")}
	}
	oldEP, newEP := EndpointOf(prior.Params, prior.Masters), EndpointOf(next.Params, next.Masters)
	if oldEP == newEP {
		return c
	}
	if len(c.Added) > 0 {
		how := ""
		if prior.Params[EndpointParam] == "" {
			how = fmt.Sprintf(" (the first master's address, as parameters[\"%s\"] was not set)", EndpointParam)
		}
		return MastersChange{Refused: &Problem{Path: EndpointPath, Summary: "Masters added with another control-plane endpoint",
			Detail: fmt.Sprintf("%s would join through %s, but the cluster was built with control-plane endpoint %s%s: kubeadm wrote it into the API server's "+
				"certificate and every kubeconfig, and joins new masters through it. Either set parameters[\"%s\"] = %s to add the masters in place, "+
				"or first apply the endpoint change alone (it replaces the cluster), then add the masters.",
				joinNames(c.Added), paramtype.Quote(newEP), paramtype.Quote(oldEP), how, EndpointParam, paramtype.Quote(oldEP))}}
	}
	return MastersChange{Replace: true, Reason: fmt.Sprintf("the control-plane endpoint changes from %s to %s: kubeadm wrote it into the API server's certificate, "+
		"every kubeconfig and the kubeadm-config ConfigMap, so the cluster is built again", paramtype.Quote(oldEP), paramtype.Quote(newEP)), ReasonPath: EndpointPath}
}

func joinNames(ns []string) string {
	switch len(ns) {
	case 1:
		return "master " + ns[0]
	default:
		return fmt.Sprintf("masters %v", ns)
	}
}
