package intent

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"github.com/intentops/terraform-provider-cp/internal/paramtype"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// Roles a host may have where the configuration sets one: the planner
// expands jobs over masters and workers; "node" is a host of neither kind
// (each_node jobs only).
var (
	ScenarioRoles = []string{protocol.RoleMaster, "node", protocol.RoleWorker}
	NodeRoles     = []string{protocol.RoleMaster, protocol.RoleWorker}
)

// HostInput is one host as configured, with the path it was written at
// (masters[1], hosts[0], node).
type HostInput struct {
	Path    Path
	Name    string
	Address string
	// Port is the host's own SSH port; PortSet says the configuration
	// set it (an explicit 0 is refused, an unset port is not).
	Port    int
	PortSet bool
	// Role is checked against HostRules.Roles when RoleSet.
	Role    string
	RoleSet bool
	Labels  map[string]string
	Taints  []string
	// NodeAddress (a cluster node's internal address) and
	// WireGuardEndpoint are empty when not set: both default to Address.
	NodeAddress       string
	WireGuardEndpoint string
	// Existing hosts (a cluster's, from its handle) take their name and
	// address but are not checked themselves: the ones after them may not
	// reuse either.
	Existing bool
}

// HostRules say what the hosts of one resource may be.
type HostRules struct {
	// Roles allowed for a host that sets one; nil means roles are implied
	// by the attribute (masters, workers) and not checked.
	Roles []string
	// DefaultPort is the SSH port of a host that sets none (the
	// resource's or the provider's); two hosts on one address and port
	// are refused.
	DefaultPort int
	// IPv4Only refuses IPv6 addresses (the kubernetes pack writes
	// address:port endpoints and IPv4 networks).
	IPv4Only bool
	// Kind names the hosts in messages: "node" or "host".
	Kind string
}

var (
	labelSpec      = protocol.ParamSpec{Type: paramtype.DNSLabel}
	labelKeySpec   = protocol.ParamSpec{Type: paramtype.LabelKey}
	labelValueSpec = protocol.ParamSpec{Type: paramtype.LabelValue}
	taintSpec      = protocol.ParamSpec{Type: paramtype.Taint}
)

// CheckHosts checks every host: a DNS-1123 label as its name, unique; an
// IP address or a DNS name as its address, with no two hosts on one
// address and port; a port between 1 and 65535; labels and taints in
// Kubernetes syntax; a known role.
func CheckHosts(hosts []HostInput, rules HostRules) Problems {
	var ps Problems
	kind := rules.Kind
	if kind == "" {
		kind = "host"
	}
	names := map[string]Path{}
	endpoints := map[string]Path{}
	for _, h := range hosts {
		if h.Existing {
			names[h.Name] = h.Path
			port := rules.DefaultPort
			if h.PortSet {
				port = h.Port
			}
			endpoints[fmt.Sprintf("%s:%d", strings.ToLower(h.Address), port)] = h.Path
			continue
		}
		checkHostName(&ps, h, kind, names)
		checkHostAddress(&ps, h, rules, kind, endpoints)
		if h.PortSet {
			checkPort(&ps, h.Path.Attr("port"), h.Port, "the SSH port of "+kind+" "+paramtype.Quote(h.Name))
		}
		if h.RoleSet && rules.Roles != nil && !slices.Contains(rules.Roles, h.Role) {
			ps.add(h.Path.Attr("role"), "Unknown role",
				"%s is not a role; use one of %s (jobs expand over masters and workers; \"node\" takes part only in jobs run on every host).",
				paramtype.Quote(h.Role), quoteList(rules.Roles))
		}
		ps = append(ps, CheckLabels(h.Path.Attr("labels"), h.Labels)...)
		ps = append(ps, CheckTaints(h.Path.Attr("taints"), h.Taints)...)
	}
	return ps
}

func checkHostName(ps *Problems, h HostInput, kind string, names map[string]Path) {
	p := h.Path.Attr("name")
	switch {
	case h.Name == "":
		ps.add(p, "Missing "+kind+" name", "every %s needs a unique name, e.g. \"worker-1\".", kind)
		return
	case paramtype.Check(labelSpec, h.Name) != nil:
		ps.add(p, "Invalid "+kind+" name",
			"%s is not a DNS-1123 label (lower case letters, digits and '-', starting and ending with a letter or digit, at most 63 characters); "+
				"it becomes the Kubernetes node name and the host's job instance names. Rename it, e.g. \"worker-1\".", paramtype.Quote(h.Name))
	}
	if other, dup := names[h.Name]; dup {
		ps.add(p, "Duplicate "+kind+" name", "%s is also used by %s; %s names must be unique.", paramtype.Quote(h.Name), other, kind)
		return
	}
	names[h.Name] = h.Path
}

func checkHostAddress(ps *Problems, h HostInput, rules HostRules, kind string, endpoints map[string]Path) {
	p := h.Path.Attr("address")
	if h.Address == "" {
		ps.add(p, "Missing "+kind+" address", "%s %s needs an address (IP or DNS name) to connect to.", kind, paramtype.Quote(h.Name))
		return
	}
	if err := paramtype.Host(h.Address); err != nil {
		ps.add(p, "Invalid "+kind+" address",
			"%s is not an IP address or a lower case DNS name; write the address SSH connects to, e.g. \"10.0.0.11\" or \"node-1.internal\".", paramtype.Quote(h.Address))
		return
	}
	if a, err := netip.ParseAddr(h.Address); err == nil && rules.IPv4Only && !a.Is4() {
		ps.add(p, "IPv6 address not supported",
			"%s is not an IPv4 address; the kubernetes pack builds an IPv4 cluster: give the host's IPv4 address or a DNS name.", paramtype.Quote(h.Address))
		return
	}
	port := rules.DefaultPort
	if h.PortSet {
		port = h.Port
	}
	ep := fmt.Sprintf("%s:%d", strings.ToLower(h.Address), port)
	if other, dup := endpoints[ep]; dup {
		ps.add(p, "Duplicate "+kind+" address",
			"%s %s is on %s like %s; two hosts cannot share an address and SSH port (jobs would run twice on one machine). Give each host its own address or port.",
			kind, paramtype.Quote(h.Name), ep, other)
		return
	}
	endpoints[ep] = h.Path
}

func checkPort(ps *Problems, p Path, port int, what string) {
	if port < 1 || port > 65535 {
		ps.add(p, "Invalid port", "%d is not a port: %s must be between 1 and 65535 (22 is SSH's).", port, what)
	}
}

// CheckPort refuses a port outside 1-65535 at p.
func CheckPort(p Path, port int, what string) Problems {
	var ps Problems
	checkPort(&ps, p, port, what)
	return ps
}

// CheckLabels checks Kubernetes label keys and values; problems are at
// base["key"].
func CheckLabels(base Path, labels map[string]string) Problems {
	var ps Problems
	for _, k := range protocol.SortedKeys(labels) {
		p := base.Key(k)
		if err := paramtype.Check(labelKeySpec, k); err != nil {
			ps.add(p, "Invalid label key",
				"key %s is not a Kubernetes label key: an optional DNS-name prefix and '/', then at most 63 letters, digits, '-', '_' or '.', "+
					"starting and ending with a letter or digit, e.g. \"node.example.com/pool\".", paramtype.Quote(k))
			continue
		}
		if err := paramtype.Check(labelValueSpec, labels[k]); err != nil {
			ps.add(p, "Invalid label value",
				"%s is not a Kubernetes label value: at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit, or empty.",
				paramtype.Quote(labels[k]))
		}
	}
	return ps
}

// CheckTaints checks Kubernetes taints; problems are at base[i].
func CheckTaints(base Path, taints []string) Problems {
	var ps Problems
	seen := map[string]int{}
	for i, t := range taints {
		p := base.Index(i)
		if err := paramtype.Check(taintSpec, t); err != nil {
			ps.add(p, "Invalid taint",
				"%s is not a taint: write key[=value]:effect with a label key, a label value and NoSchedule, PreferNoSchedule or NoExecute, e.g. \"dedicated=infra:NoSchedule\".",
				paramtype.Quote(t))
			continue
		}
		kv, effect, _ := strings.Cut(t, ":")
		k, _, _ := strings.Cut(kv, "=")
		if j, dup := seen[k+":"+effect]; dup {
			ps.add(p, "Duplicate taint", "%s has the key and effect of taints[%d]; a node has one taint per key and effect.", paramtype.Quote(t), j)
			continue
		}
		seen[k+":"+effect] = i
	}
	return ps
}

func quoteList(s []string) string {
	q := make([]string, len(s))
	for i, v := range s {
		q[i] = paramtype.Quote(v)
	}
	return strings.Join(q, ", ")
}

// CheckNodeAddresses checks the addresses a cluster's nodes use besides
// SSH: a node_address or wireguard_endpoint that is set must be an IPv4
// address; a master needs an IP node address (its own node_address, or
// an address that is an IP) for the API server to advertise; no two nodes
// share a node address or a WireGuard endpoint, each defaulting to the
// SSH address.
func CheckNodeAddresses(hosts []HostInput) Problems {
	var ps Problems
	nodes, mesh := map[string]Path{}, map[string]Path{}
	for _, h := range hosts {
		for _, f := range []struct {
			attr, v, what string
			seen          map[string]Path
		}{
			{"node_address", h.NodeAddress, "node address (the kubelet's node IP and a master's advertise address)", nodes},
			{"wireguard_endpoint", h.WireGuardEndpoint, "WireGuard endpoint", mesh},
		} {
			p, v := h.Path.Attr(f.attr), f.v
			if v != "" {
				if a, err := netip.ParseAddr(v); err != nil || !a.Is4() {
					ps.add(p, "Invalid "+f.attr, "%s is not an IPv4 address; the %s of %s must be one, e.g. \"10.0.1.11\", or leave it out to use address.",
						paramtype.Quote(v), f.what, paramtype.Quote(h.Name))
					continue
				}
			} else {
				v, p = h.Address, h.Path.Attr("address")
				if _, err := netip.ParseAddr(v); err != nil {
					if f.attr == "node_address" && h.Role == protocol.RoleMaster {
						ps.add(h.Path.Attr("node_address"), "Missing node_address",
							"master %s is reached by the DNS name %s, but the API server advertises an IP address: set node_address to the master's internal IPv4 address.",
							paramtype.Quote(h.Name), paramtype.Quote(h.Address))
					}
					continue
				}
			}
			if other, dup := f.seen[v]; dup && !h.Existing {
				ps.add(p, "Duplicate "+f.attr, "%s %s of %s is also that of %s; every node needs its own.", f.what, v, paramtype.Quote(h.Name), other)
				continue
			}
			f.seen[v] = p
		}
	}
	return ps
}
