package intent

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"

	"github.com/intentops/terraform-provider-cp/internal/paramtype"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// EndpointParam is the kubernetes pack parameter that holds the
// control-plane endpoint: kubeadm's controlPlaneEndpoint, the address the
// nodes, the kubeconfigs and the API server's certificate name.
const EndpointParam = "control_plane_endpoint"

// DefaultAPIPort is kube-apiserver's port under kubeadm, the port of an
// endpoint given without one.
const DefaultAPIPort = "6443"

// EndpointPath is where a cluster's endpoint is written.
var EndpointPath = Root("parameters").Key(EndpointParam)

// NormalizeEndpoint returns the endpoint as host:port, with port 6443
// when v names none: "api.internal" is "api.internal:6443", "fd00::10"
// is "[fd00::10]:6443". The host is a lower-case DNS name or an IP
// address, the port 1-65535.
func NormalizeEndpoint(v string) (string, error) {
	host, port := v, DefaultAPIPort
	switch {
	case strings.HasPrefix(v, "["):
		end := strings.Index(v, "]")
		if end < 0 {
			return "", errors.New("an IPv6 address in brackets needs its closing ]")
		}
		host, port = v[1:end], strings.TrimPrefix(v[end+1:], ":")
		if v[end+1:] == "" {
			port = DefaultAPIPort
		} else if !strings.HasPrefix(v[end+1:], ":") {
			return "", errors.New("only :port may follow ]")
		}
		if a, err := netip.ParseAddr(host); err != nil || !a.Is6() || a.Zone() != "" {
			return "", errors.New("brackets hold an IPv6 address")
		}
	case strings.Count(v, ":") > 1:
		// A bare IPv6 address: no port can be told apart from it.
		if a, err := netip.ParseAddr(v); err != nil || a.Zone() != "" {
			return "", errors.New("not a host name or IP address with one optional :port (no scheme or path; an IPv6 address with a port is written in brackets, e.g. [fd00::10]:6443)")
		}
	case strings.Contains(v, ":"):
		host, port, _ = strings.Cut(v, ":")
	}
	if err := paramtype.Host(host); err != nil {
		return "", fmt.Errorf("host: %w", err)
	}
	if err := paramtype.Port(port); err != nil {
		return "", fmt.Errorf("port: %w", err)
	}
	return net.JoinHostPort(host, port), nil
}

// CheckControlPlaneEndpoint checks the endpoint parameter of a cluster
// with masters masters: its form when set, and that it is set when there
// is more than one master. kubeadm's high-availability setup needs a
// stable controlPlaneEndpoint in front of every master's API server;
// defaulting to the first master's address would leave the cluster
// unreachable when that one host is down. A single master keeps its
// default (its node address, port 6443).
func CheckControlPlaneEndpoint(params map[string]string, masters int) Problems {
	var ps Problems
	v, set := params[EndpointParam]
	if set && v != "" {
		if _, err := NormalizeEndpoint(v); err != nil {
			ps.add(EndpointPath, "Invalid control-plane endpoint",
				"%s is not a host name or IP address with an optional port (1-65535): %v. Write it as host:port, e.g. \"api.prod.internal:6443\", "+
					"\"10.0.0.100:6443\" or \"[fd00::10]:6443\"; without a port, 6443 is used.", paramtype.Quote(v), err)
		}
		return ps
	}
	if masters > 1 {
		ps.add(EndpointPath, "Control-plane endpoint required",
			"%d masters are listed but parameters[\"%s\"] is not set. A highly available kubeadm cluster needs a stable control-plane endpoint: "+
				"the nodes, the kubeconfigs and the API server's certificate name it, and defaulting it to the first master would leave the cluster "+
				"unreachable whenever that one host is down. Set it to a load balancer or virtual IP that forwards to port 6443 of every master, "+
				"as host:port, e.g. \"api.prod.internal:6443\" or \"10.0.0.100:6443\". Choose it once: changing it later replaces the cluster.",
			masters, EndpointParam)
	}
	return ps
}

// EndpointOf is the endpoint a cluster is (or will be) built with: the
// parameter, normalized, when given; otherwise the first master's node
// address (its address when no node_address is set) on port 6443, as
// the kubernetes pack's render-kubeadm-config defaults it. masters are
// in their configured order.
func EndpointOf(params map[string]string, masters []Master) string {
	if v := params[EndpointParam]; v != "" {
		if ep, err := NormalizeEndpoint(v); err == nil {
			return ep
		}
		return v
	}
	if len(masters) == 0 {
		return ""
	}
	first := masters[0]
	addr := first.NodeAddress
	if addr == "" {
		addr = first.Address
	}
	if len(masters) > 1 {
		// Clusters of several masters planned before the endpoint was
		// required were given the first master's SSH address.
		addr = first.Address
	}
	return net.JoinHostPort(addr, DefaultAPIPort)
}

// masterCount counts the hosts with the master role.
func masterCount(hs []HostInput) int {
	n := 0
	for _, h := range hs {
		if h.Role == protocol.RoleMaster {
			n++
		}
	}
	return n
}
