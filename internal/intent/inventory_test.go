package intent

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const inventoryYAML = `masters:
  - name: master-1
    address: 10.0.0.11
    port: 2222
    node_address: 192.168.0.11
    wireguard_endpoint: 203.0.113.11
    labels: { tier: control, zone: "1" }
    taints: ["dedicated=infra:NoSchedule"]
    ssh: { user: ops, private_key_file: ~/.ssh/ops }
workers:
  - { name: worker-1, address: 10.0.0.21 }
  - { name: worker-2, address: 10.0.0.22 }
`

func TestParseInventoryEveryField(t *testing.T) {
	inv, err := ParseInventory("hosts.yaml", []byte(inventoryYAML))
	if err != nil {
		t.Fatal(err)
	}
	port := int64(2222)
	want := Inventory{
		Masters: []InventoryHost{{Name: "master-1", Address: "10.0.0.11", Port: &port, NodeAddress: "192.168.0.11", WireGuardEndpoint: "203.0.113.11",
			Labels: map[string]string{"tier": "control", "zone": "1"}, Taints: []string{"dedicated=infra:NoSchedule"},
			SSH: &InventorySSH{User: "ops", PrivateKeyFile: "~/.ssh/ops"}}},
		Workers: []InventoryHost{{Name: "worker-1", Address: "10.0.0.21"}, {Name: "worker-2", Address: "10.0.0.22"}},
	}
	sum := sha256.Sum256([]byte(inventoryYAML))
	want.SHA256 = hex.EncodeToString(sum[:])
	if !reflect.DeepEqual(inv, want) {
		t.Fatalf("got %+v\nwant %+v", inv, want)
	}
	// Kept in private state and read back the same.
	b, err := inv.Encode()
	if err != nil {
		t.Fatal(err)
	}
	back, err := DecodeInventory(b)
	if err != nil || !reflect.DeepEqual(back, want) {
		t.Fatalf("round trip: %+v, %v", back, err)
	}
}

func TestParseInventoryJSON(t *testing.T) {
	js := `{"masters": [{"name": "m1", "address": "10.0.0.1", "port": 22}], "workers": [{"name": "w1", "address": "10.0.0.2", "labels": {"a": "b"}}]}`
	inv, err := ParseInventory("hosts.json", []byte(js))
	if err != nil {
		t.Fatal(err)
	}
	if len(inv.Masters) != 1 || *inv.Masters[0].Port != 22 || inv.Workers[0].Labels["a"] != "b" {
		t.Fatalf("got %+v", inv)
	}
}

func TestParseInventoryRefusals(t *testing.T) {
	for name, tc := range map[string]struct{ in, want string }{
		"unknown top key":    {"masters: []\nnodes: []\n", `hosts.yaml: line 2: unknown key "nodes"; the keys are masters, workers`},
		"unknown host key":   {"masters:\n  - { name: m1, address: 10.0.0.1 }\nworkers:\n  - { name: w1, adress: 10.0.0.2 }\n", `hosts.yaml: workers[0]: line 4: unknown key "adress"; the keys are address, labels, name, node_address, port, ssh, taints, wireguard_endpoint`},
		"unknown ssh key":    {"masters:\n  - name: m1\n    address: 10.0.0.1\n    ssh: { user: a, password: b }\n", `hosts.yaml: masters[0].ssh: line 4: unknown key "password"`},
		"key twice":          {"masters:\n  - { name: m1, address: 10.0.0.1, name: m2 }\n", `hosts.yaml: masters[0]: line 2: key "name" given twice`},
		"masters twice":      {"masters: []\nmasters: []\n", `hosts.yaml: line 2: key "masters" given twice`},
		"port not a number":  {"masters:\n  - { name: m1, address: 10.0.0.1, port: \"22\" }\n", `hosts.yaml: masters[0].port: line 2: want a whole number (the SSH port), not "22"`},
		"address not string": {"masters:\n  - { name: m1, address: [a] }\n", `hosts.yaml: masters[0].address: line 2: want a string`},
		"label not string":   {"masters:\n  - { name: m1, address: a, labels: { x: [1] } }\n", `hosts.yaml: masters[0].labels: line 2: label "x": want a string value`},
		"taints not list":    {"masters:\n  - { name: m1, address: a, taints: x }\n", `hosts.yaml: masters[0].taints: line 2: want a list of taints`},
		"host not mapping":   {"masters:\n  - 10.0.0.1\n", `hosts.yaml: masters[0]: line 2: want a host, a mapping with name and address`},
		"masters not list":   {"masters: 10.0.0.1\n", `hosts.yaml: masters: line 1: want a list of hosts`},
		"not a mapping":      {"- a\n", `hosts.yaml: line 1: want a mapping with the keys masters and workers`},
		"empty":              {"", `hosts.yaml: empty; list the hosts under masters:`},
		"two documents":      {"masters: []\n---\nworkers: []\n", `hosts.yaml: holds more than one YAML document`},
		"not yaml":           {"masters: [\n", `hosts.yaml: not YAML or JSON`},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := ParseInventory("hosts.yaml", []byte(tc.in))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestReadInventoryMissingFile(t *testing.T) {
	_, err := ReadInventory(filepath.Join(t.TempDir(), "hosts.yaml"))
	if err == nil || !strings.Contains(err.Error(), "cannot read the inventory file") || !strings.Contains(err.Error(), "hosts.yaml") {
		t.Fatalf("got %v", err)
	}
	f := filepath.Join(t.TempDir(), "hosts.yaml")
	if err := os.WriteFile(f, []byte(inventoryYAML), 0o600); err != nil {
		t.Fatal(err)
	}
	inv, err := ReadInventory(f)
	if err != nil || len(inv.Workers) != 2 {
		t.Fatalf("got %+v, %v", inv, err)
	}
}
