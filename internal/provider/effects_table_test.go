package provider

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// effectsTable is the table of every HCL argument and every pack YAML
// field, its effect and the test that fails without it.
const effectsTable = "../../docs/effects.md"

// TestEffectsTable keeps docs/effects.md true: every argument of the
// provider's schemas and every field of the pack format has a row, every
// row names a path that exists, an effect and test functions that exist.
func TestEffectsTable(t *testing.T) {
	rows := readEffectRows(t, effectsTable)
	want := map[string]bool{}
	for _, p := range schemaArgumentPaths(t) {
		want[p] = true
	}
	for _, p := range packFieldPaths() {
		want[p] = true
	}
	tests := repoTestFuncs(t, "../..")

	var missing []string
	for p := range want {
		if _, ok := rows[p]; !ok {
			missing = append(missing, p)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("%s has no row for %d arguments or pack fields; add a row `path | effect | test` for each:\n%s",
			effectsTable, len(missing), strings.Join(missing, "\n"))
	}
	for _, p := range protocol.SortedKeys(rows) {
		r := rows[p]
		if !want[p] {
			t.Errorf("%s line %d: %s is neither an argument of the schema nor a pack field; remove the row or fix its path", effectsTable, r.line, p)
		}
		if r.effect == "" {
			t.Errorf("%s line %d: %s has no effect; say what changes when it is set", effectsTable, r.line, p)
		}
		if len(r.tests) == 0 {
			t.Errorf("%s line %d: %s names no test; name the test that fails when the effect is removed", effectsTable, r.line, p)
		}
		for _, name := range r.tests {
			fn, _, _ := strings.Cut(name, "/")
			if !tests[fn] {
				t.Errorf("%s line %d: %s names test %s, but no *_test.go declares func %s(", effectsTable, r.line, p, name, fn)
			}
		}
	}
}

// effectRow is one row of the effects table.
type effectRow struct {
	line   int
	effect string
	tests  []string
}

var (
	rowPath  = regexp.MustCompile("^`([^`]+)`$")
	testName = regexp.MustCompile("`(Test[A-Za-z0-9_]+(?:/[^`]+)?)`")
)

// readEffectRows reads the rows of the Markdown tables in file, keyed by
// path. A row is `| `path` | effect | `TestX`, `TestY/sub` |`; header and
// separator rows are skipped.
func readEffectRows(t *testing.T, file string) map[string]effectRow {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("read %s: %v", file, err)
	}
	rows := map[string]effectRow{}
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "|") {
			continue
		}
		cells := splitRow(line)
		if len(cells) != 3 {
			t.Errorf("%s line %d: a row has 3 cells (path | effect | test), this one %d: %s", file, i+1, len(cells), line)
			continue
		}
		m := rowPath.FindStringSubmatch(cells[0])
		if m == nil {
			// The header (path | effect | test) and the separator.
			if cells[0] != "path" && !strings.HasPrefix(cells[0], "---") {
				t.Errorf("%s line %d: the path cell must be one `path` in backquotes: %s", file, i+1, cells[0])
			}
			continue
		}
		if prev, ok := rows[m[1]]; ok {
			t.Errorf("%s line %d: %s already has a row (line %d)", file, i+1, m[1], prev.line)
		}
		r := effectRow{line: i + 1, effect: cells[1]}
		for _, tm := range testName.FindAllStringSubmatch(cells[2], -1) {
			r.tests = append(r.tests, tm[1])
		}
		rows[m[1]] = r
	}
	if len(rows) == 0 {
		t.Fatalf("%s holds no rows", file)
	}
	return rows
}

// splitRow splits a Markdown table row into its trimmed cells; a pipe
// inside backquotes does not split.
func splitRow(line string) []string {
	line = strings.TrimSuffix(strings.TrimPrefix(line, "|"), "|")
	var cells []string
	var cur strings.Builder
	code := false
	for _, r := range line {
		switch {
		case r == '`':
			code = !code
			cur.WriteRune(r)
		case r == '|' && !code:
			cells = append(cells, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteRune(r)
		}
	}
	return append(cells, strings.TrimSpace(cur.String()))
}

// schemaArgumentPaths lists every argument (required or optional
// attribute, nested ones with their dotted path, and blocks) of the
// provider, its resources, data sources and ephemeral resources, read
// from the provider's own schemas.
func schemaArgumentPaths(t *testing.T) []string {
	t.Helper()
	srv := providerserver.NewProtocol6(New("test")())()
	resp, err := srv.GetProviderSchema(context.Background(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatalf("GetProviderSchema: %v", err)
	}
	for _, d := range resp.Diagnostics {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			t.Fatalf("GetProviderSchema: %s: %s", d.Summary, d.Detail)
		}
	}
	var out []string
	out = append(out, blockArguments("provider", resp.Provider.Block)...)
	for name, s := range resp.ResourceSchemas {
		out = append(out, blockArguments(name, s.Block)...)
	}
	for name, s := range resp.DataSourceSchemas {
		out = append(out, blockArguments("data."+name, s.Block)...)
	}
	for name, s := range resp.EphemeralResourceSchemas {
		out = append(out, blockArguments("ephemeral."+name, s.Block)...)
	}
	sort.Strings(out)
	return out
}

// blockArguments lists the arguments of a schema block under prefix.
func blockArguments(prefix string, b *tfprotov6.SchemaBlock) []string {
	if b == nil {
		return nil
	}
	var out []string
	for _, a := range b.Attributes {
		if !a.Required && !a.Optional {
			continue // computed only: not an argument
		}
		p := prefix + "." + a.Name
		out = append(out, p)
		if a.NestedType != nil {
			out = append(out, objectArguments(p+nestingSuffix(a.NestedType.Nesting), a.NestedType)...)
		}
	}
	for _, nb := range b.BlockTypes {
		p := prefix + "." + nb.TypeName
		out = append(out, p)
		suffix := ""
		switch nb.Nesting {
		case tfprotov6.SchemaNestedBlockNestingModeList, tfprotov6.SchemaNestedBlockNestingModeSet:
			suffix = "[]"
		case tfprotov6.SchemaNestedBlockNestingModeMap:
			suffix = ".*"
		}
		out = append(out, blockArguments(p+suffix, nb.Block)...)
	}
	return out
}

// objectArguments lists the arguments of a nested attribute's object.
func objectArguments(prefix string, o *tfprotov6.SchemaObject) []string {
	var out []string
	for _, a := range o.Attributes {
		if !a.Required && !a.Optional {
			continue
		}
		p := prefix + "." + a.Name
		out = append(out, p)
		if a.NestedType != nil {
			out = append(out, objectArguments(p+nestingSuffix(a.NestedType.Nesting), a.NestedType)...)
		}
	}
	return out
}

// nestingSuffix is what a nested attribute's path gets before its
// children: [] for a list or a set, .* for a map, nothing for an object.
func nestingSuffix(n tfprotov6.SchemaObjectNestingMode) string {
	switch n {
	case tfprotov6.SchemaObjectNestingModeList, tfprotov6.SchemaObjectNestingModeSet:
		return "[]"
	case tfprotov6.SchemaObjectNestingModeMap:
		return ".*"
	}
	return ""
}

// packFieldPaths lists every field of the pack format: the yaml tags of
// the types a pack's files decode into (pack.yaml, plan templates, jobs),
// with their dotted paths. A list adds [], a map .*; a type that holds
// itself (a parameter's items) is not expanded again.
func packFieldPaths() []string {
	var out []string
	roots := []struct {
		name string
		t    reflect.Type
	}{
		{"scenario_pack", reflect.TypeOf(protocol.ScenarioPack{})},
		{"plan_template", reflect.TypeOf(protocol.PlanTemplate{})},
		{"job", reflect.TypeOf(protocol.Job{})},
	}
	for _, r := range roots {
		out = append(out, structFields(r.name, r.t, map[reflect.Type]bool{})...)
	}
	sort.Strings(out)
	return out
}

// structFields lists the yaml fields of struct type t under prefix.
func structFields(prefix string, t reflect.Type, open map[reflect.Type]bool) []string {
	open[t] = true
	defer delete(open, t)
	var out []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if tag == "-" || !f.IsExported() {
			continue
		}
		if tag == "" {
			tag = strings.ToLower(f.Name)
		}
		p := prefix + "." + tag
		ft, suffix := f.Type, ""
		for {
			switch ft.Kind() {
			case reflect.Pointer:
				ft = ft.Elem()
				continue
			case reflect.Slice:
				ft, suffix = ft.Elem(), suffix+"[]"
				continue
			case reflect.Map:
				ft, suffix = ft.Elem(), suffix+".*"
				continue
			}
			break
		}
		if ft.Kind() != reflect.Struct || open[ft] {
			out = append(out, p)
			continue
		}
		out = append(out, structFields(p+suffix, ft, open)...)
	}
	return out
}

var testFunc = regexp.MustCompile(`(?m)^func (Test[A-Za-z0-9_]+)\(`)

// repoTestFuncs returns the names of the test functions declared in the
// repository's *_test.go files.
func repoTestFuncs(t *testing.T, root string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && path != root || d.Name() == "bin" || d.Name() == "vendor") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range testFunc.FindAllStringSubmatch(string(data), -1) {
			out[m[1]] = true
		}
		return nil
	})
	if err != nil {
		t.Fatalf("scan test files: %v", err)
	}
	return out
}
