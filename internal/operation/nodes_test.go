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
