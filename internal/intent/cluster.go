package intent

import (
	"fmt"
	"net/netip"
	"strings"

	"github.com/intentops/terraform-provider-cp/internal/paramtype"
	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// ClusterInput is a Kubernetes cluster intent's own settings: what
// cp_kubernetes_cluster writes as attributes, and the parameters map.
type ClusterInput struct {
	Name              string
	KubernetesVersion string
	PodCIDR           string
	ServiceCIDR       string
	RegistryMirrors   []string
	Proxy             *ProxyInput
	Parameters        map[string]string
	// Hosts are the masters and workers, for the size of the pod network
	// and the hosts' addresses against the networks.
	Hosts []HostInput
}

// Network sizes the kubernetes pack (kubeadm) works with.
const (
	// NodeCIDRMaskSize is the IPv4 per-node pod network kube-controller-
	// manager allocates by default; the pod network must be at least one.
	NodeCIDRMaskSize = 24
	// MinServicePrefix: kube-apiserver refuses an IPv4 service range
	// larger than /12.
	MinServicePrefix = 12
	// MaxServicePrefix: kubeadm gives cluster DNS the range's 10th
	// address, so the range holds at least 16.
	MaxServicePrefix = 28
)

// CheckCluster checks a cluster's settings. pack is the kubernetes pack
// the cluster is planned with (its kubernetes_version spec bounds the
// version); nil checks the form only.
func CheckCluster(c ClusterInput, pack *protocol.ScenarioPack) Problems {
	var ps Problems
	if c.Name != "" && paramtype.Check(labelSpec, c.Name) != nil {
		ps.add(Root("name"), "Invalid cluster name",
			"%s is not a DNS-1123 label (lower case letters, digits and '-', starting and ending with a letter or digit, at most 63 characters); "+
				"it becomes kubeadm's clusterName. Rename it, e.g. \"prod-k8s\".", paramtype.Quote(c.Name))
	}
	if v := c.KubernetesVersion; v != "" {
		form := protocol.ParamSpec{Type: paramtype.Semver}
		spec := form
		if pack != nil {
			spec.Versions = pack.Parameters["kubernetes_version"].Versions
		}
		switch {
		case paramtype.Check(form, v) != nil:
			ps.add(Root("kubernetes_version"), "Invalid Kubernetes version",
				"%s is not a version such as \"1.31.2\" (major.minor.patch, no leading v).", paramtype.Quote(v))
		case paramtype.Check(spec, v) != nil:
			ps.add(Root("kubernetes_version"), "Unsupported Kubernetes version",
				"%s is outside the versions the %s pack installs (%s); pick a version in that range.", paramtype.Quote(v), packRef(pack), spec.Versions)
		}
	}
	podMin, podMax := prefixBounds(pack, "pod_cidr", 8, NodeCIDRMaskSize)
	pod := checkNet(&ps, Root("pod_cidr"), c.PodCIDR, podMin, podMax,
		fmt.Sprintf("each node gets a /%d of the pod network", NodeCIDRMaskSize))
	svcMin, svcMax := prefixBounds(pack, "service_cidr", MinServicePrefix, MaxServicePrefix)
	svc := checkNet(&ps, Root("service_cidr"), c.ServiceCIDR, svcMin, svcMax,
		fmt.Sprintf("kube-apiserver takes at most a /%d and kubeadm gives DNS the 10th address", MinServicePrefix))
	wgPath := Root("parameters").Key("wireguard_cidr")
	var wg netip.Prefix
	if v, ok := c.Parameters["wireguard_cidr"]; ok {
		lo, hi := prefixBounds(pack, "wireguard_cidr", 24, 24)
		wg = checkNet(&ps, wgPath, v, lo, hi, "the mesh gives host N of the inventory the address .N of one /24")
	}
	if pod.IsValid() && pod.Bits() <= NodeCIDRMaskSize {
		nodes := len(c.Hosts)
		if room := 1 << (NodeCIDRMaskSize - pod.Bits()); nodes > room {
			ps.add(Root("pod_cidr"), "Pod network too small",
				"%s holds %d /%d node networks but the cluster has %d nodes; use a larger network such as 10.244.0.0/16.", pod, room, NodeCIDRMaskSize, nodes)
		}
	}
	if pod.IsValid() && svc.IsValid() && pod.Overlaps(svc) {
		ps.add(Root("service_cidr"), "Overlapping networks", "service_cidr %s overlaps pod_cidr %s; pick ranges that do not overlap.", svc, pod)
	}
	if wg.IsValid() {
		for _, o := range []struct {
			name string
			p    netip.Prefix
		}{{"pod_cidr", pod}, {"service_cidr", svc}} {
			if o.p.IsValid() && wg.Overlaps(o.p) {
				ps.add(wgPath, "Overlapping networks", "wireguard_cidr %s overlaps %s %s; pick a /24 outside both, such as 10.200.0.0/24.", wg, o.name, o.p)
			}
		}
		if n := len(c.Hosts); n > 253 {
			ps.add(wgPath, "Mesh too small", "the WireGuard /24 holds 253 hosts but the cluster has %d.", n)
		}
	}
	for _, h := range c.Hosts {
		attr, addr := "address", h.Address
		if h.NodeAddress != "" {
			attr, addr = "node_address", h.NodeAddress
		}
		a, err := netip.ParseAddr(addr)
		if err != nil {
			continue
		}
		for _, n := range []struct {
			name string
			p    netip.Prefix
		}{{"pod_cidr", pod}, {"service_cidr", svc}, {"parameters[\"wireguard_cidr\"]", wg}} {
			if n.p.IsValid() && n.p.Contains(a) {
				ps.add(h.Path.Attr(attr), "Address inside a cluster network",
					"%s is inside %s %s; the node would be unreachable once the network is routed. Pick a %s that does not hold the hosts' addresses.",
					paramtype.Quote(addr), n.name, n.p, strings.SplitN(n.name, "[", 2)[0])
			}
		}
	}
	ps = append(ps, CheckMirrors(Root("registry_mirrors"), c.RegistryMirrors)...)
	ps = append(ps, CheckNodeAddresses(c.Hosts)...)
	ps = append(ps, CheckProxy(Root("proxy"), c.Proxy)...)
	ps = append(ps, CheckControlPlaneEndpoint(c.Parameters, masterCount(c.Hosts))...)
	kube := c.KubernetesVersion
	if kube == "" && pack != nil {
		kube = pack.Parameters["kubernetes_version"].Default
	}
	ps = append(ps, CheckContainerdVersion(c.Parameters, kube)...)
	return ps
}

// ProxyInput is a cluster's HTTP(S) proxy: URLs and the entries reached
// without it.
type ProxyInput struct {
	HTTP, HTTPS string
	NoProxy     []string
}

// noProxySpec is the form of a no_proxy entry the kubernetes pack takes:
// a host name, a .domain, an IP address or a CIDR.
var noProxySpec = protocol.ParamSpec{Type: paramtype.String, Pattern: `\.?[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?|[0-9a-f:.]{2,45}(/[0-9]{1,3})?`}

// CheckProxy checks a proxy block at base: http and https are http(s)
// URLs without credentials or commas (NO_PROXY and the pack's lists are
// comma-separated), no_proxy entries are hosts, .domains, IPs or CIDRs,
// each once, and no_proxy comes with a proxy.
func CheckProxy(base Path, p *ProxyInput) Problems {
	var ps Problems
	if p == nil {
		return nil
	}
	for _, u := range []struct{ attr, v string }{{"http", p.HTTP}, {"https", p.HTTPS}} {
		if u.v == "" {
			continue
		}
		if err := paramtype.Check(protocol.ParamSpec{Type: paramtype.URL}, u.v); err != nil || strings.Contains(u.v, ",") {
			ps.add(base.Attr(u.attr), "Invalid proxy URL",
				"%s is not an http(s) URL such as \"http://proxy.internal:3128\" (no credentials, quotes, commas or spaces); apt, containerd, curl and helm are given it as it is.",
				paramtype.Quote(u.v))
		}
	}
	if p.HTTP == "" && p.HTTPS == "" {
		ps.add(base.Attr("http"), "Missing proxy URL", "the proxy block sets no http or https URL; set http = \"http://proxy.internal:3128\" or remove the block.")
	}
	seen := map[string]int{}
	for i, e := range p.NoProxy {
		at := base.Attr("no_proxy").Index(i)
		if paramtype.Check(noProxySpec, e) != nil {
			ps.add(at, "Invalid no_proxy entry",
				"%s is not a host name, .domain, IP address or CIDR in lower case, e.g. \".corp.internal\" or \"10.0.0.0/8\".", paramtype.Quote(e))
			continue
		}
		if j, dup := seen[e]; dup {
			ps.add(at, "Duplicate no_proxy entry", "%s is also no_proxy[%d]; list it once.", paramtype.Quote(e), j)
			continue
		}
		seen[e] = i
	}
	return ps
}

// prefixBounds are the prefix lengths the pack allows for a network
// parameter (its spec's min and max), or the defaults where it sets none.
func prefixBounds(pack *protocol.ScenarioPack, name string, defMin, defMax int) (int, int) {
	if pack == nil {
		return defMin, defMax
	}
	spec := pack.Parameters[name]
	lo, hi := defMin, defMax
	if spec.Min != nil {
		lo = int(*spec.Min)
	}
	if spec.Max != nil {
		hi = int(*spec.Max)
	}
	return lo, hi
}

// checkNet checks an IPv4 network in canonical form with a prefix length
// in [minBits, maxBits]; it returns the network when it passed.
func checkNet(ps *Problems, p Path, v string, minBits, maxBits int, why string) netip.Prefix {
	if v == "" {
		return netip.Prefix{}
	}
	if err := paramtype.Check(protocol.ParamSpec{Type: paramtype.IPv4CIDR}, v); err != nil {
		ps.add(p, "Invalid network",
			"%s is not an IPv4 network in canonical form such as \"10.244.0.0/16\" (the kubernetes pack builds IPv4 clusters; host bits must be zero).", paramtype.Quote(v))
		return netip.Prefix{}
	}
	n := netip.MustParsePrefix(v)
	if n.Bits() < minBits || n.Bits() > maxBits {
		rng := fmt.Sprintf("between /%d and /%d", minBits, maxBits)
		if minBits == maxBits {
			rng = fmt.Sprintf("a /%d", minBits)
		}
		ps.add(p, "Invalid network size", "%s is a /%d; it must be %s: %s.", v, n.Bits(), rng, why)
		return netip.Prefix{}
	}
	return n
}

// CheckMirrors checks registry mirror URLs: http(s) URLs, none holding a
// comma (the pack receives them as one comma-separated list).
func CheckMirrors(base Path, mirrors []string) Problems {
	var ps Problems
	seen := map[string]int{}
	for i, u := range mirrors {
		p := base.Index(i)
		if strings.Contains(u, ",") {
			ps.add(p, "Invalid registry mirror",
				"%s holds a comma; list each mirror as its own element of registry_mirrors, e.g. [\"https://a.internal:5000\", \"https://b.internal\"].", paramtype.Quote(u))
			continue
		}
		if err := paramtype.Check(protocol.ParamSpec{Type: paramtype.URL}, u); err != nil {
			ps.add(p, "Invalid registry mirror", "%s is not an http(s) URL such as \"https://mirror.internal:5000\".", paramtype.Quote(u))
			continue
		}
		if j, dup := seen[u]; dup {
			ps.add(p, "Duplicate registry mirror", "%s is also registry_mirrors[%d]; list each mirror once.", paramtype.Quote(u), j)
			continue
		}
		seen[u] = i
	}
	return ps
}

func packRef(p *protocol.ScenarioPack) string {
	if p == nil {
		return "kubernetes"
	}
	return p.Ref()
}
