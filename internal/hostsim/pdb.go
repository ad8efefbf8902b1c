package hostsim

import (
	"math"
	"strconv"
	"strings"
)

// simPod is a pod the simulator places on a node for kubectl drain.
type simPod struct {
	Namespace, Name string
	Labels          map[string]string
	Owner           *Object
}

// podLabels are the labels of a workload's pods (its template's).
func podLabels(o *Object) map[string]string {
	out := map[string]string{}
	meta := mapAt(o.body(), "spec", "template", "metadata", "labels")
	for k, v := range meta {
		if s, ok := v.(string); ok {
			out[k] = s
		}
	}
	return out
}

// podEligible reports whether a workload's pods may run on node n: the
// template's nodeSelector matches the node's labels (and its
// kubernetes.io/hostname) and its tolerations allow the node's NoSchedule
// and NoExecute taints.
func podEligible(o *Object, n *Node) bool {
	spec := podTemplate(o)
	labels := map[string]string{"kubernetes.io/hostname": n.Name}
	for k, v := range n.Labels {
		labels[k] = v
	}
	for k, v := range mapAt(spec, "nodeSelector") {
		if s, _ := v.(string); labels[k] != s {
			return false
		}
	}
	for _, t := range n.Taints {
		kv, effect, _ := strings.Cut(t, ":")
		if effect != "NoSchedule" && effect != "NoExecute" {
			continue
		}
		key, _, _ := strings.Cut(kv, "=")
		if !tolerated(spec, key) {
			return false
		}
	}
	return true
}

// tolerated reports whether a pod spec tolerates a taint key (a
// toleration naming the key, or operator Exists without a key).
func tolerated(spec map[string]any, key string) bool {
	for _, v := range asList(spec["tolerations"]) {
		t, _ := v.(map[string]any)
		k, _ := t["key"].(string)
		if k == key || (k == "" && t["operator"] == "Exists") {
			return true
		}
	}
	return false
}

// podsOnNode are the pods of the Deployments and StatefulSets whose pods
// run (podBlocker) that the simulator places on n: a workload's replicas
// go round-robin over the nodes its pods may run on (podEligible), in
// node name order, the first nodes taking one more when they do not
// divide evenly. Cordoning a node does not move the pods already on it.
func (s *sim) podsOnNode(st *State, n *Node) []simPod {
	var out []simPod
	for _, o := range s.objects(st) {
		if (o.Kind != "Deployment" && o.Kind != "StatefulSet") || s.podBlocker(st, o) != "" {
			continue
		}
		var nodes []*Node
		idx := -1
		for _, m := range sortedNodes(st) {
			if podEligible(o, m) {
				if m.Name == n.Name {
					idx = len(nodes)
				}
				nodes = append(nodes, m)
			}
		}
		if idx < 0 {
			continue
		}
		replicas := num(mapAt(o.body(), "spec")["replicas"], 1)
		for r := idx; r < replicas; r += len(nodes) {
			name := o.Name + "-" + strconv.Itoa(r)
			if o.Kind == "Deployment" {
				name = o.Name + "-" + shortHash(o.Namespace+"/"+o.Name) + shortHash(o.Name) + "-" + shortHash(o.Name+"/"+strconv.Itoa(r))
			}
			out = append(out, simPod{Namespace: o.Namespace, Name: name, Labels: podLabels(o), Owner: o})
		}
	}
	return out
}

// pdbSelects reports whether a PodDisruptionBudget's matchLabels select
// pods with these labels (an empty selector selects every pod).
func pdbSelects(pdb *Object, labels map[string]string) bool {
	for k, v := range mapAt(pdb.body(), "spec", "selector", "matchLabels") {
		if s, _ := v.(string); labels[k] != s {
			return false
		}
	}
	return true
}

// scaled is minAvailable or maxUnavailable of expected pods: an integer,
// or a percentage rounded up as the disruption controller does.
func scaled(v any, expected int) (int, bool) {
	switch x := v.(type) {
	case float64:
		return int(x), true
	case int:
		return x, true
	case string:
		if p, ok := strings.CutSuffix(x, "%"); ok {
			if f, err := strconv.ParseFloat(p, 64); err == nil {
				return int(math.Ceil(f * float64(expected) / 100)), true
			}
		}
		if i, err := strconv.Atoi(x); err == nil {
			return i, true
		}
	}
	return 0, false
}

// pdbStatus is the status the disruption controller writes: the pods the
// budget selects in its namespace (the replicas of the Deployments and
// StatefulSets whose pod labels it matches; healthy when they run) and
// how many of them may be disrupted now.
func (s *sim) pdbStatus(st *State, pdb *Object) map[string]any {
	expected, healthy := 0, 0
	for _, o := range s.objects(st) {
		if (o.Kind != "Deployment" && o.Kind != "StatefulSet") || o.Namespace != pdb.Namespace || !pdbSelects(pdb, podLabels(o)) {
			continue
		}
		r := num(mapAt(o.body(), "spec")["replicas"], 1)
		expected += r
		if s.podBlocker(st, o) == "" {
			healthy += r
		}
	}
	spec := mapAt(pdb.body(), "spec")
	desired := 0
	if v, ok := scaled(spec["minAvailable"], expected); ok {
		desired = v
	} else if v, ok := scaled(spec["maxUnavailable"], expected); ok {
		desired = expected - v
	}
	allowed := max(0, healthy-desired)
	return map[string]any{"observedGeneration": pdb.Generation, "expectedPods": expected, "currentHealthy": healthy,
		"desiredHealthy": desired, "disruptionsAllowed": allowed}
}

// disruptionBudgets are the PodDisruptionBudgets of a cluster with the
// disruptions each still allows during one drain.
type disruptionBudgets struct {
	pdbs    []*Object
	allowed []int
}

func (s *sim) budgets(st *State) *disruptionBudgets {
	b := &disruptionBudgets{}
	for _, o := range s.objects(st) {
		if o.Kind == "PodDisruptionBudget" {
			b.pdbs = append(b.pdbs, o)
			b.allowed = append(b.allowed, num(s.pdbStatus(st, o)["disruptionsAllowed"], 0))
		}
	}
	return b
}

// evict reports whether the eviction API evicts pod: no budget of its
// namespace that selects it is out of disruptions. An eviction uses one
// disruption of each budget selecting the pod.
func (b *disruptionBudgets) evict(pod simPod) bool {
	var sel []int
	for i, o := range b.pdbs {
		if o.Namespace == pod.Namespace && pdbSelects(o, pod.Labels) {
			if b.allowed[i] == 0 {
				return false
			}
			sel = append(sel, i)
		}
	}
	for _, i := range sel {
		b.allowed[i]--
	}
	return true
}
