package intent

import (
	"slices"
	"strings"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// Label and taint changes of existing nodes, and their drift:
// ClusterChanges plans the kubernetes pack's relabel action from
// NodeChanges, and a refresh records drift with ObservedLabels and
// ObservedTaints.

// NodeChanges compares the labels and taints of the hosts in both lists
// (by name) and returns the nodes that change, in the new list's order,
// and their changes in the relabel job's node_changes form, grouped by
// node: node/key=value sets a label, node/key- removes one,
// node/key[=value]:Effect sets a taint (a taint is its key and effect: a
// new value replaces the old one), node/key:Effect- removes one. Hosts
// only in one list are added or removed nodes, not relabelled.
func NodeChanges(oldHosts, newHosts []protocol.Host) (targets, changes []string) {
	for _, h := range newHosts {
		i := slices.IndexFunc(oldHosts, func(o protocol.Host) bool { return o.Name == h.Name })
		if i < 0 {
			continue
		}
		c := labelChanges(oldHosts[i].Labels, h.Labels)
		c = append(c, taintChanges(oldHosts[i].Taints, h.Taints)...)
		if len(c) == 0 {
			continue
		}
		targets = append(targets, h.Name)
		for _, x := range c {
			changes = append(changes, h.Name+"/"+x)
		}
	}
	return targets, changes
}

// labelChanges sets every new or changed label and removes the keys that
// are gone, sorted by key.
func labelChanges(oldL, newL map[string]string) []string {
	var out []string
	for _, k := range protocol.SortedKeys(newL) {
		if v, ok := oldL[k]; !ok || v != newL[k] {
			out = append(out, k+"="+newL[k])
		}
	}
	for _, k := range protocol.SortedKeys(oldL) {
		if _, ok := newL[k]; !ok {
			out = append(out, k+"-")
		}
	}
	return out
}

// taintChanges sets every new taint or new value of a key and effect, and
// removes the keys and effects that are gone, sorted.
func taintChanges(oldT, newT []string) []string {
	oldBy, newBy := taintsByID(oldT), taintsByID(newT)
	var out []string
	for _, id := range protocol.SortedKeys(newBy) {
		if o, ok := oldBy[id]; !ok || !sameTaint(o, newBy[id]) {
			out = append(out, newBy[id])
		}
	}
	for _, id := range protocol.SortedKeys(oldBy) {
		if _, ok := newBy[id]; !ok {
			out = append(out, id+"-")
		}
	}
	return out
}

// taintID is a taint's identity, key:Effect.
func taintID(t string) string {
	kv, effect, _ := strings.Cut(t, ":")
	key, _, _ := strings.Cut(kv, "=")
	return key + ":" + effect
}

// taintValue is a taint's value; "k=:E" and "k:E" both have none.
func taintValue(t string) string {
	kv, _, _ := strings.Cut(t, ":")
	_, v, _ := strings.Cut(kv, "=")
	return v
}

func sameTaint(a, b string) bool { return taintID(a) == taintID(b) && taintValue(a) == taintValue(b) }

func taintsByID(ts []string) map[string]string {
	m := make(map[string]string, len(ts))
	for _, t := range ts {
		m[taintID(t)] = t
	}
	return m
}

// ObservedLabels is what the API server has for the labels the
// configuration manages (the keys of managed): a changed value is taken
// from the API, a removed key is dropped. Labels the configuration does
// not set (those Kubernetes adds itself, or anyone else) are not looked
// at. It reports whether anything differed; managed is not modified.
func ObservedLabels(managed, api map[string]string) (map[string]string, bool) {
	if len(managed) == 0 {
		return managed, false
	}
	out := make(map[string]string, len(managed))
	drift := false
	for k, v := range managed {
		got, ok := api[k]
		switch {
		case !ok:
			drift = true
		case got != v:
			out[k], drift = got, true
		default:
			out[k] = v
		}
	}
	return out, drift
}

// ObservedTaints is what the API server has for the taints the
// configuration manages (by key and effect), in the configuration's order:
// a changed value is taken from the API, a removed taint dropped. Other
// taints (a control plane's, node.kubernetes.io/not-ready) are not looked
// at. The written form of an unchanged taint is kept.
func ObservedTaints(managed, api []string) ([]string, bool) {
	if len(managed) == 0 {
		return managed, false
	}
	apiBy := taintsByID(api)
	out := make([]string, 0, len(managed))
	drift := false
	for _, t := range managed {
		got, ok := apiBy[taintID(t)]
		switch {
		case !ok:
			drift = true
		case !sameTaint(got, t):
			out, drift = append(out, got), true
		default:
			out = append(out, t)
		}
	}
	return out, drift
}
