package packs

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// doc is one decoded pack file with the line of every field path in it.
type doc struct {
	path  string         // relative to the pack directory
	lines map[string]int // field path -> line
}

// line returns the line of field, or of its closest parent that has one.
func (d *doc) line(field string) int {
	for f := field; ; {
		if l, ok := d.lines[f]; ok {
			return l
		}
		if f == "" {
			return 0
		}
		f = parentPath(f)
	}
}

// parentPath strips the last segment of a field path: a.b[2] -> a.b -> a -> "".
func parentPath(f string) string {
	if strings.HasSuffix(f, "]") {
		if i := strings.LastIndex(f, "["); i >= 0 {
			return f[:i]
		}
	}
	if i := strings.LastIndex(f, "."); i >= 0 {
		return f[:i]
	}
	return ""
}

var yamlLine = regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`)

// splitYAMLError returns the line and the message of a yaml.v3 error.
func splitYAMLError(msg string) (int, string) {
	msg = strings.TrimPrefix(msg, "yaml: unmarshal errors:\n")
	msg = strings.TrimSpace(msg)
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n, m[2]
	}
	return 0, strings.TrimPrefix(msg, "yaml: ")
}

// decodeFile parses data, checks that its only top-level key is top, walks
// the value against the type of out reporting unknown keys and values of the
// wrong type with their lines, and decodes what is left into out. It returns
// nil when the file could not be parsed at all.
func decodeFile(rep *reporter, path string, data []byte, top string, out any) *doc {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		line, msg := splitYAMLError(err.Error())
		rep.add(path, line, "", "YAML syntax error: %s; fix the indentation or quoting", msg)
		return nil
	}
	d := &doc{path: path, lines: map[string]int{}}
	if root.Kind == 0 || len(root.Content) == 0 {
		rep.add(path, 0, "", "file is empty; it must hold a %s: mapping", top)
		return nil
	}
	m := root.Content[0]
	if m.Kind != yaml.MappingNode {
		rep.add(path, m.Line, "", "the document must be a mapping with the single key %s:", top)
		return nil
	}
	var value *yaml.Node
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if k.Value == top && value == nil {
			value = v
			d.lines[""] = k.Line
			continue
		}
		rep.add(path, k.Line, k.Value, "unknown key %q at the top level; the file holds one %s: mapping", k.Value, top)
	}
	if value == nil {
		rep.add(path, m.Line, "", "missing top-level key %s:", top)
		return nil
	}
	w := walker{rep: rep, doc: d}
	w.walk(value, reflect.TypeOf(out).Elem(), "")
	if err := value.Decode(out); err != nil {
		var te *yaml.TypeError
		if errors.As(err, &te) {
			for _, e := range te.Errors {
				line, msg := splitYAMLError(e)
				rep.add(path, line, "", "%s", msg)
			}
		} else {
			line, msg := splitYAMLError(err.Error())
			rep.add(path, line, "", "%s", msg)
		}
	}
	return d
}

// walker checks a YAML node tree against a Go type.
type walker struct {
	rep *reporter
	doc *doc
}

var unmarshalerType = reflect.TypeOf((*yaml.Unmarshaler)(nil)).Elem()

// walk checks n against t. Offending nodes are reported and replaced by
// null so that the final decode keeps going and reports nothing twice.
func (w *walker) walk(n *yaml.Node, t reflect.Type, path string) {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if _, ok := w.doc.lines[path]; !ok {
		w.doc.lines[path] = n.Line
	}
	if isNull(n) {
		return
	}
	if reflect.PointerTo(t).Implements(unmarshalerType) && (t.Kind() != reflect.Struct || n.Kind != yaml.MappingNode) {
		// A struct that also reads a scalar form (a gate option written
		// as a bare string) is checked key by key when written as a
		// mapping.
		w.leaf(n, t, path)
		return
	}
	switch t.Kind() {
	case reflect.Pointer:
		w.walk(n, t.Elem(), path)
	case reflect.Struct:
		w.mapping(n, path, func(key *yaml.Node, value *yaml.Node) bool {
			f, ok := structField(t, key.Value)
			if why, removed := removedField(t, key.Value); !ok && removed {
				w.rep.add(w.doc.path, key.Line, join(path, key.Value), "key %q was removed from the pack format: %s; delete it", key.Value, why)
				return false
			}
			if !ok {
				w.rep.add(w.doc.path, key.Line, join(path, key.Value), "unknown key %q; known keys here: %s",
					key.Value, strings.Join(knownKeys(t), ", "))
				return false
			}
			w.doc.lines[join(path, key.Value)] = key.Line
			w.walk(value, f.Type, join(path, key.Value))
			return true
		})
	case reflect.Map:
		w.mapping(n, path, func(key *yaml.Node, value *yaml.Node) bool {
			w.doc.lines[join(path, key.Value)] = key.Line
			w.walk(value, t.Elem(), join(path, key.Value))
			return true
		})
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			w.rep.add(w.doc.path, n.Line, path, "expected a list, got %s", kindName(n))
			nullify(n)
			return
		}
		for i, item := range n.Content {
			w.walk(item, t.Elem(), fmt.Sprintf("%s[%d]", path, i))
		}
	case reflect.Interface:
	default:
		w.leaf(n, t, path)
	}
}

// mapping walks the pairs of a mapping node, dropping the pairs visit
// rejects and duplicate keys.
func (w *walker) mapping(n *yaml.Node, path string, visit func(k, v *yaml.Node) bool) {
	if n.Kind != yaml.MappingNode {
		w.rep.add(w.doc.path, n.Line, path, "expected a mapping, got %s", kindName(n))
		nullify(n)
		return
	}
	seen := map[string]int{}
	var kept []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if first, dup := seen[k.Value]; dup {
			w.rep.add(w.doc.path, k.Line, join(path, k.Value), "key %q is already set at line %d; remove one of them", k.Value, first)
			continue
		}
		seen[k.Value] = k.Line
		if visit(k, v) {
			kept = append(kept, k, v)
		}
	}
	n.Content = kept
}

// leaf decodes a scalar into a fresh value of t to check its type.
func (w *walker) leaf(n *yaml.Node, t reflect.Type, path string) {
	if n.Kind != yaml.ScalarNode {
		w.rep.add(w.doc.path, n.Line, path, "expected a single value, got %s", kindName(n))
		nullify(n)
		return
	}
	if err := n.Decode(reflect.New(t).Interface()); err != nil {
		_, msg := splitYAMLError(err.Error())
		w.rep.add(w.doc.path, n.Line, path, "%s", msg)
		nullify(n)
	}
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

func nullify(n *yaml.Node) {
	*n = yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Line: n.Line, Column: n.Column}
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	default:
		return fmt.Sprintf("the value %q", n.Value)
	}
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// structField finds the field of t whose yaml name is key.
func structField(t reflect.Type, key string) (reflect.StructField, bool) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if name, ok := yamlName(f); ok && name == key {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// knownKeys lists the yaml names of t's fields, sorted.
func knownKeys(t reflect.Type) []string {
	var out []string
	for i := 0; i < t.NumField(); i++ {
		if name, ok := yamlName(t.Field(i)); ok {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// yamlName is the key yaml.v3 uses for a field, and whether it is decoded.
func yamlName(f reflect.StructField) (string, bool) {
	if !f.IsExported() {
		return "", false
	}
	tag := f.Tag.Get("yaml")
	if tag == "-" {
		return "", false
	}
	name, _, _ := strings.Cut(tag, ",")
	if name == "" {
		name = strings.ToLower(f.Name)
	}
	return name, true
}
