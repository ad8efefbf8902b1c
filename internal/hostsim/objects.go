package hostsim

import (
	"os"
	"sort"
	"strings"
	"time"
)

func sortedNodes(st *State) []*Node {
	out := make([]*Node, 0, len(st.Nodes))
	for _, n := range st.Nodes {
		out = append(out, n)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// nodeReady reports whether a node is Ready: registered, kubelet active
// on its host, a CNI installed and no node-not-ready fault.
func (s *sim) nodeReady(st *State, n *Node) bool {
	hs := st.host(n.Host)
	if k := hs.Services["kubelet.service"]; k == nil || !k.Active {
		return false
	}
	if _, ok := st.fault(FaultNodeNotReady, n.Host); ok {
		return false
	}
	return st.CNI != ""
}

// nodeVersion is the kubelet version of the node's host.
func nodeVersion(st *State, n *Node) string {
	if v := kubeVersion(st.host(n.Host).Packages["kubelet"]); v != "" {
		return v
	}
	return st.API.Version
}

func nodeRoles(n *Node) string {
	var roles []string
	for k := range n.Labels {
		if r, ok := strings.CutPrefix(k, "node-role.kubernetes.io/"); ok {
			roles = append(roles, r)
		}
	}
	sort.Strings(roles)
	if len(roles) == 0 {
		return "<none>"
	}
	return strings.Join(roles, ",")
}

func kernelVersion() string {
	b, _ := os.ReadFile("/proc/sys/kernel/osrelease")
	if v := strings.TrimSpace(string(b)); v != "" {
		return v
	}
	return "6.1.0-26-amd64"
}

// nodeObject renders a node as the API server would (as JSON-ready maps).
func (s *sim) nodeObject(st *State, n *Node) map[string]any {
	ready := s.nodeReady(st, n)
	cond := map[string]any{"type": "Ready", "status": "True", "reason": "KubeletReady", "message": "kubelet is posting ready status"}
	if !ready {
		cond = map[string]any{"type": "Ready", "status": "False", "reason": "KubeletNotReady", "message": "container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: cni plugin not initialized"}
		if k := st.host(n.Host).Services["kubelet.service"]; k == nil || !k.Active {
			cond = map[string]any{"type": "Ready", "status": "Unknown", "reason": "NodeStatusUnknown", "message": "Kubelet stopped posting node status."}
		}
	}
	labels := map[string]any{}
	for k, v := range n.Labels {
		labels[k] = v
	}
	var taints []any
	for _, t := range n.Taints {
		kv, effect, _ := strings.Cut(t, ":")
		k, v, _ := strings.Cut(kv, "=")
		m := map[string]any{"key": k, "effect": effect}
		if v != "" {
			m["value"] = v
		}
		taints = append(taints, m)
	}
	if !ready {
		taints = append(taints, map[string]any{"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule"})
	}
	if n.Unschedulable {
		taints = append(taints, map[string]any{"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"})
	}
	spec := map[string]any{"podCIDR": "10.244.0.0/24"}
	if len(taints) > 0 {
		spec["taints"] = taints
	}
	if n.Unschedulable {
		spec["unschedulable"] = true
	}
	return map[string]any{
		"apiVersion": "v1", "kind": "Node",
		"metadata": map[string]any{"name": n.Name, "labels": labels, "creationTimestamp": n.Joined.UTC().Format(time.RFC3339)},
		"spec":     spec,
		"status": map[string]any{
			"conditions": []any{cond},
			"addresses":  []any{map[string]any{"type": "InternalIP", "address": n.Address}, map[string]any{"type": "Hostname", "address": n.Name}},
			"nodeInfo": map[string]any{"kubeletVersion": nodeVersion(st, n), "containerRuntimeVersion": "containerd://" + containerdVersion,
				"osImage": "Debian GNU/Linux 12 (bookworm)", "kernelVersion": kernelVersion(), "architecture": "amd64", "operatingSystem": "linux"},
		},
	}
}

// shortHash is a stable 5-letter pod name suffix.
func shortHash(s string) string {
	const alphabet = "bcdfghjklmnpqrstvwxz2456789"
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h = (h ^ uint32(s[i])) * 16777619
	}
	b := make([]byte, 5)
	for i := range b {
		b[i] = alphabet[h%uint32(len(alphabet))]
		h /= uint32(len(alphabet))
		h = h*2654435761 + 1
	}
	return string(b)
}

func age(now, t time.Time) string {
	if t.IsZero() {
		return "<unknown>"
	}
	return humanDuration(now.Sub(t))
}

// NodeReady reports whether the named node is registered and Ready, as
// `kubectl get node` would show it.
func (st *State) NodeReady(name string) bool {
	n, ok := st.Nodes[name]
	if !ok {
		return false
	}
	return (&sim{}).nodeReady(st, n)
}
