package operation

import "testing"

func TestParseNodes(t *testing.T) {
	js := `{"items":[
 {"metadata":{"name":"worker-1","labels":{}},"status":{"conditions":[{"type":"Ready","status":"False"}],"addresses":[{"type":"InternalIP","address":"10.0.0.5"}],"nodeInfo":{"kubeletVersion":"v1.31.2"}}},
 {"metadata":{"name":"master-1","labels":{"node-role.kubernetes.io/control-plane":""}},"status":{"conditions":[{"type":"Ready","status":"True"}],"addresses":[{"type":"InternalIP","address":"10.0.0.2"}],"nodeInfo":{"kubeletVersion":"v1.31.2"}}}]}`
	nodes, err := parseNodes([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	if len(nodes) != 2 || nodes[0].Name != "master-1" || !nodes[0].ControlPlane || !nodes[0].Ready || nodes[1].Ready || nodes[1].InternalIP != "10.0.0.5" {
		t.Fatalf("got: %+v", nodes)
	}
	if _, err := parseNodes([]byte("not json")); err == nil {
		t.Fatal("got: nil error want: parse error")
	}
}

// Refresh compares labels and taints with the configuration: they are read
// from the same node list, taints as key[=value]:Effect.
func TestParseNodesLabelsAndTaints(t *testing.T) {
	js := `{"items":[{"metadata":{"name":"worker-1","labels":{"tier":"app","kubernetes.io/hostname":"worker-1"}},
 "spec":{"taints":[{"key":"dedicated","value":"db","effect":"NoSchedule"},{"key":"gpu","effect":"NoExecute"}]},
 "status":{"conditions":[{"type":"Ready","status":"True"}]}}]}`
	nodes, err := parseNodes([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	n := nodes[0]
	if n.Labels["tier"] != "app" || n.Labels["kubernetes.io/hostname"] != "worker-1" || len(n.Labels) != 2 {
		t.Errorf("labels = %v", n.Labels)
	}
	if len(n.Taints) != 2 || n.Taints[0] != "dedicated=db:NoSchedule" || n.Taints[1] != "gpu:NoExecute" {
		t.Errorf("taints = %q, want [dedicated=db:NoSchedule gpu:NoExecute]", n.Taints)
	}
}
