package hostsim

import (
	"fmt"
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

// pod is a simulated pod.
type pod struct {
	Namespace, Name, Node, Phase string
	Ready                        bool
	Created                      time.Time
}

// pods lists the pods the cluster would run: control plane static pods,
// kube-proxy and CNI agents per node, CoreDNS, and one pod per Helm
// release; sorted by namespace and name.
func (s *sim) pods(st *State) []pod {
	var out []pod
	anyReady := ""
	for _, n := range sortedNodes(st) {
		if s.nodeReady(st, n) && anyReady == "" {
			anyReady = n.Name
		}
	}
	for _, n := range sortedNodes(st) {
		ready := s.nodeReady(st, n)
		run := func(ns, name string, needNet bool) {
			p := pod{Namespace: ns, Name: name, Node: n.Name, Phase: "Running", Ready: true, Created: n.Joined}
			if k := st.host(n.Host).Services["kubelet.service"]; k == nil || !k.Active {
				p.Phase, p.Ready = "Unknown", false
			} else if needNet && !ready {
				p.Phase, p.Ready = "Pending", false
			}
			out = append(out, p)
		}
		if n.ControlPlane {
			for _, c := range []string{"etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler"} {
				run("kube-system", c+"-"+n.Name, false)
			}
		}
		suffix := shortHash(n.Name)
		run("kube-system", "kube-proxy-"+suffix, false)
		switch st.CNI {
		case "calico":
			run("kube-system", "calico-node-"+suffix, false)
		case "cilium":
			run("kube-system", "cilium-"+suffix, false)
		case "flannel":
			run("kube-flannel", "kube-flannel-ds-"+suffix, false)
		}
	}
	addon := func(ns, name string) {
		p := pod{Namespace: ns, Name: name, Phase: "Pending", Created: time.Time{}}
		if st.API != nil {
			p.Created = st.API.Since
		}
		if anyReady != "" {
			p.Node, p.Phase, p.Ready = anyReady, "Running", true
		}
		out = append(out, p)
	}
	if st.API != nil {
		addon("kube-system", "coredns-7c65d6cfc9-"+shortHash(st.Cluster+"a"))
		addon("kube-system", "coredns-7c65d6cfc9-"+shortHash(st.Cluster+"b"))
		switch st.CNI {
		case "calico":
			addon("kube-system", "calico-kube-controllers-6879d4fcdc-"+shortHash("calico"))
		case "cilium":
			addon("kube-system", "cilium-operator-5c7867ccd5-"+shortHash("cilium"))
		}
	}
	for _, r := range sortedReleases(st) {
		addon(r.Namespace, r.Name+"-0")
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Namespace != out[j].Namespace {
			return out[i].Namespace < out[j].Namespace
		}
		return out[i].Name < out[j].Name
	})
	return out
}

func (p pod) object() map[string]any {
	status := "True"
	if !p.Ready {
		status = "False"
	}
	return map[string]any{
		"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{"name": p.Name, "namespace": p.Namespace, "creationTimestamp": p.Created.UTC().Format(time.RFC3339)},
		"spec":     map[string]any{"nodeName": p.Node},
		"status":   map[string]any{"phase": p.Phase, "conditions": []any{map[string]any{"type": "Ready", "status": status}}},
	}
}

func sortedReleases(st *State) []*Release {
	out := make([]*Release, 0, len(st.Releases))
	for _, r := range st.Releases {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Namespace != out[j].Namespace {
			return out[i].Namespace < out[j].Namespace
		}
		return out[i].Name < out[j].Name
	})
	return out
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

func readyString(p pod) string {
	if p.Ready {
		return "1/1"
	}
	return "0/1"
}

var _ = fmt.Sprint

// NodeReady reports whether the named node is registered and Ready, as
// `kubectl get node` would show it.
func (st *State) NodeReady(name string) bool {
	n, ok := st.Nodes[name]
	if !ok {
		return false
	}
	return (&sim{}).nodeReady(st, n)
}
