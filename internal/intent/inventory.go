package intent

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// Inventory is a cluster's hosts given by file (cp_kubernetes_cluster's
// inventory_file): masters and workers with exactly the fields of the
// resource's host blocks. YAML, of which JSON is a subset.
type Inventory struct {
	Masters []InventoryHost `yaml:"masters" json:"masters"`
	Workers []InventoryHost `yaml:"workers" json:"workers,omitempty"`
	// SHA256 is the hex SHA-256 of the file's bytes.
	SHA256 string `yaml:"-" json:"sha256"`
}

// InventoryHost is one master or worker of an inventory; pointers and
// empty values are what the file leaves out.
type InventoryHost struct {
	Name              string            `yaml:"name" json:"name"`
	Address           string            `yaml:"address" json:"address"`
	Port              *int64            `yaml:"port" json:"port,omitempty"`
	NodeAddress       string            `yaml:"node_address" json:"node_address,omitempty"`
	WireGuardEndpoint string            `yaml:"wireguard_endpoint" json:"wireguard_endpoint,omitempty"`
	Labels            map[string]string `yaml:"labels" json:"labels,omitempty"`
	Taints            []string          `yaml:"taints" json:"taints,omitempty"`
	SSH               *InventorySSH     `yaml:"ssh" json:"ssh,omitempty"`
}

// InventorySSH is a host's own SSH settings.
type InventorySSH struct {
	User           string `yaml:"user" json:"user,omitempty"`
	PrivateKeyFile string `yaml:"private_key_file" json:"private_key_file,omitempty"`
}

var (
	inventoryTopKeys  = []string{"masters", "workers"}
	inventoryHostKeys = []string{"address", "labels", "name", "node_address", "port", "ssh", "taints", "wireguard_endpoint"}
	inventorySSHKeys  = []string{"private_key_file", "user"}
)

// maxInventoryBytes bounds the file read: 64 MiB is far beyond 60,000
// hosts of a few hundred bytes each.
const maxInventoryBytes = 64 << 20

// ReadInventory reads and parses the inventory file at name (relative to
// the working directory, as OpenTofu resolves paths).
func ReadInventory(name string) (Inventory, error) {
	f, err := os.Open(name)
	if err != nil {
		return Inventory{}, fmt.Errorf("cannot read the inventory file: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxInventoryBytes+1))
	if err != nil {
		return Inventory{}, fmt.Errorf("cannot read the inventory file %s: %w", name, err)
	}
	if len(b) > maxInventoryBytes {
		return Inventory{}, fmt.Errorf("%s: larger than %d MiB; an inventory holds hosts only", name, maxInventoryBytes>>20)
	}
	return ParseInventory(name, b)
}

// ParseInventory parses an inventory's bytes; name (the file) starts
// every error, with the host's position and the key, e.g.
// "hosts.yaml: workers[3].port: ...". Unknown keys are refused, so a
// misspelt field is never silently ignored. The hosts' values are checked
// by the checks of the resource's host blocks (CheckHosts, CheckCluster),
// not here.
func ParseInventory(name string, b []byte) (Inventory, error) {
	sum := sha256.Sum256(b)
	inv := Inventory{SHA256: hex.EncodeToString(sum[:])}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return inv, fmt.Errorf("%s: empty; list the hosts under masters: (and workers:)", name)
		}
		return inv, fmt.Errorf("%s: not YAML or JSON: %w", name, err)
	}
	var more yaml.Node
	if err := dec.Decode(&more); !errors.Is(err, io.EOF) {
		return inv, fmt.Errorf("%s: holds more than one YAML document; keep one with masters: and workers:", name)
	}
	top := &doc
	if top.Kind == yaml.DocumentNode && len(top.Content) == 1 {
		top = top.Content[0]
	}
	if top.Kind != yaml.MappingNode {
		return inv, fmt.Errorf("%s: line %d: want a mapping with the keys masters and workers", name, top.Line)
	}
	if err := checkKeys(name, "", top, inventoryTopKeys); err != nil {
		return inv, err
	}
	for i := 0; i+1 < len(top.Content); i += 2 {
		key, val := top.Content[i].Value, top.Content[i+1]
		hosts, err := parseInventoryHosts(name, key, val)
		if err != nil {
			return inv, err
		}
		if key == "masters" {
			inv.Masters = hosts
		} else {
			inv.Workers = hosts
		}
	}
	return inv, nil
}

func parseInventoryHosts(file, key string, list *yaml.Node) ([]InventoryHost, error) {
	if list.Kind == yaml.ScalarNode && list.Tag == "!!null" {
		return nil, nil
	}
	if list.Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("%s: %s: line %d: want a list of hosts, each with name and address", file, key, list.Line)
	}
	out := make([]InventoryHost, 0, len(list.Content))
	for i, n := range list.Content {
		at := fmt.Sprintf("%s[%d]", key, i)
		if n.Kind != yaml.MappingNode {
			return nil, fmt.Errorf("%s: %s: line %d: want a host, a mapping with name and address", file, at, n.Line)
		}
		if err := checkKeys(file, at, n, inventoryHostKeys); err != nil {
			return nil, err
		}
		var h InventoryHost
		for j := 0; j+1 < len(n.Content); j += 2 {
			k, v := n.Content[j].Value, n.Content[j+1]
			if err := decodeHostField(file, at, k, v, &h); err != nil {
				return nil, err
			}
		}
		out = append(out, h)
	}
	return out, nil
}

// decodeHostField decodes one key of a host, naming it in the error.
func decodeHostField(file, at, key string, v *yaml.Node, h *InventoryHost) error {
	where := fmt.Sprintf("%s: %s.%s: line %d", file, at, key, v.Line)
	scalar := func(dst *string) error {
		if v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
			return fmt.Errorf("%s: want a string", where)
		}
		*dst = v.Value
		return nil
	}
	switch key {
	case "name":
		return scalar(&h.Name)
	case "address":
		return scalar(&h.Address)
	case "node_address":
		return scalar(&h.NodeAddress)
	case "wireguard_endpoint":
		return scalar(&h.WireGuardEndpoint)
	case "port":
		var p int64
		if v.Kind != yaml.ScalarNode || v.Tag != "!!int" || v.Decode(&p) != nil {
			return fmt.Errorf("%s: want a whole number (the SSH port), not %q", where, v.Value)
		}
		h.Port = &p
	case "labels":
		if v.Kind != yaml.MappingNode {
			return fmt.Errorf("%s: want a mapping of label keys to values", where)
		}
		h.Labels = map[string]string{}
		for j := 0; j+1 < len(v.Content); j += 2 {
			lv := v.Content[j+1]
			if lv.Kind != yaml.ScalarNode || lv.Tag == "!!null" {
				return fmt.Errorf("%s: label %q: want a string value", where, v.Content[j].Value)
			}
			h.Labels[v.Content[j].Value] = lv.Value
		}
	case "taints":
		if v.Kind != yaml.SequenceNode {
			return fmt.Errorf("%s: want a list of taints such as \"dedicated=infra:NoSchedule\"", where)
		}
		for _, t := range v.Content {
			if t.Kind != yaml.ScalarNode || t.Tag == "!!null" {
				return fmt.Errorf("%s: line %d: want a taint string", where, t.Line)
			}
			h.Taints = append(h.Taints, t.Value)
		}
	case "ssh":
		if v.Kind != yaml.MappingNode {
			return fmt.Errorf("%s: want a mapping with user and private_key_file", where)
		}
		if err := checkKeys(file, at+".ssh", v, inventorySSHKeys); err != nil {
			return err
		}
		h.SSH = &InventorySSH{}
		for j := 0; j+1 < len(v.Content); j += 2 {
			sk, sv := v.Content[j].Value, v.Content[j+1]
			if sv.Kind != yaml.ScalarNode || sv.Tag == "!!null" {
				return fmt.Errorf("%s: %s.ssh.%s: line %d: want a string", file, at, sk, sv.Line)
			}
			if sk == "user" {
				h.SSH.User = sv.Value
			} else {
				h.SSH.PrivateKeyFile = sv.Value
			}
		}
	}
	return nil
}

// checkKeys refuses a key of m not in known (and a key given twice).
func checkKeys(file, at string, m *yaml.Node, known []string) error {
	seen := map[string]bool{}
	prefix := file + ": "
	if at != "" {
		prefix += at + ": "
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := m.Content[i]
		if k.Kind != yaml.ScalarNode {
			return fmt.Errorf("%sline %d: want a key, one of %s", prefix, k.Line, strings.Join(known, ", "))
		}
		if !containsString(known, k.Value) {
			return fmt.Errorf("%sline %d: unknown key %q; the keys are %s", prefix, k.Line, k.Value, strings.Join(known, ", "))
		}
		if seen[k.Value] {
			return fmt.Errorf("%sline %d: key %q given twice", prefix, k.Line, k.Value)
		}
		seen[k.Value] = true
	}
	return nil
}

func containsString(list []string, s string) bool {
	i := sort.SearchStrings(list, s)
	return i < len(list) && list[i] == s
}

// Encode is the inventory as JSON, as kept in private state; the hosts
// in their order, the SHA-256 of the file they came from.
func (inv Inventory) Encode() ([]byte, error) {
	b, err := json.Marshal(inv)
	if err != nil {
		return nil, fmt.Errorf("encode the inventory: %w", err)
	}
	return b, nil
}

// DecodeInventory reads what Encode wrote.
func DecodeInventory(b []byte) (Inventory, error) {
	var inv Inventory
	if err := json.Unmarshal(b, &inv); err != nil {
		return inv, fmt.Errorf("decode the kept inventory: %w", err)
	}
	return inv, nil
}
