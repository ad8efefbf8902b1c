package hostsim

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// jsonpath evaluates the subset of kubectl's JSONPath templates scripts
// use: text, {.a.b}, {.items[*].x}, [N], [*], [?(@.k=="v")] filters,
// {range ...}{end}, quoted literals ({"\n"}) and {$}.
func jsonpath(tmpl string, data any) (string, error) {
	nodes, rest, err := parseTemplate(tmpl, false)
	if err != nil {
		return "", err
	}
	if rest != "" {
		return "", fmt.Errorf("error parsing jsonpath %s: unexpected {end}", tmpl)
	}
	var b strings.Builder
	if err := execTemplate(&b, nodes, data, data); err != nil {
		return "", err
	}
	return b.String(), nil
}

type tnode struct {
	text  string // literal text
	expr  string // path expression
	isLit bool
	body  []tnode // range body when rangeOver
	rng   bool
}

// parseTemplate parses until the end of input or an {end} (inRange).
func parseTemplate(s string, inRange bool) ([]tnode, string, error) {
	var out []tnode
	for len(s) > 0 {
		i := strings.IndexByte(s, '{')
		if i < 0 {
			out = append(out, tnode{text: s, isLit: true})
			return out, "", nil
		}
		if i > 0 {
			out = append(out, tnode{text: s[:i], isLit: true})
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			return nil, "", fmt.Errorf("error parsing jsonpath: unclosed action")
		}
		action := strings.TrimSpace(s[i+1 : i+j])
		s = s[i+j+1:]
		switch {
		case action == "end":
			if !inRange {
				return nil, "", fmt.Errorf("error parsing jsonpath: not in range, nothing to end")
			}
			return out, "end", nil
		case strings.HasPrefix(action, "range "):
			body, rest, err := parseTemplate(s, true)
			if err != nil {
				return nil, "", err
			}
			if rest != "end" {
				return nil, "", fmt.Errorf("error parsing jsonpath: range without end")
			}
			// the remaining template after {end} was consumed by the
			// recursive call; find it again.
			out = append(out, tnode{rng: true, expr: strings.TrimSpace(strings.TrimPrefix(action, "range ")), body: body})
			s = afterEnd(s)
		case strings.HasPrefix(action, `"`) || strings.HasPrefix(action, "'"):
			lit, err := strconv.Unquote(`"` + strings.Trim(action, `"'`) + `"`)
			if err != nil {
				return nil, "", fmt.Errorf("error parsing jsonpath literal %s: %w", action, err)
			}
			out = append(out, tnode{text: lit, isLit: true})
		default:
			out = append(out, tnode{expr: action})
		}
	}
	if inRange {
		return out, "", nil
	}
	return out, "", nil
}

// afterEnd skips past the {end} matching a range whose body starts at s.
func afterEnd(s string) string {
	depth := 0
	for {
		i := strings.IndexByte(s, '{')
		if i < 0 {
			return ""
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			return ""
		}
		action := strings.TrimSpace(s[i+1 : i+j])
		s = s[i+j+1:]
		if strings.HasPrefix(action, "range ") {
			depth++
		} else if action == "end" {
			if depth == 0 {
				return s
			}
			depth--
		}
	}
}

func execTemplate(b *strings.Builder, nodes []tnode, root, cur any) error {
	for _, n := range nodes {
		switch {
		case n.isLit:
			b.WriteString(n.text)
		case n.rng:
			vals, err := evalPath(n.expr, root, cur)
			if err != nil {
				return err
			}
			for _, v := range vals {
				if err := execTemplate(b, n.body, root, v); err != nil {
					return err
				}
			}
		default:
			vals, err := evalPath(n.expr, root, cur)
			if err != nil {
				return err
			}
			for i, v := range vals {
				if i > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(render(v))
			}
		}
	}
	return nil
}

func render(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case nil:
		return ""
	case map[string]any, []any:
		j, _ := json.Marshal(x)
		return string(j)
	}
	return fmt.Sprint(v)
}

// evalPath evaluates one path expression; it returns every match.
func evalPath(expr string, root, cur any) ([]any, error) {
	vals := []any{cur}
	switch {
	case strings.HasPrefix(expr, "$"):
		vals, expr = []any{root}, expr[1:]
	case strings.HasPrefix(expr, "@"):
		expr = expr[1:]
	}
	for len(expr) > 0 {
		switch {
		case strings.HasPrefix(expr, ".."):
			return nil, fmt.Errorf("recursive descent (..) is not simulated in jsonpath %q", expr)
		case expr[0] == '.':
			expr = expr[1:]
			end := 0
			for end < len(expr) && expr[end] != '.' && expr[end] != '[' {
				if expr[end] == '\\' {
					end++ // an escaped dot belongs to the key
				}
				end++
			}
			end = min(end, len(expr))
			key := strings.ReplaceAll(expr[:end], `\.`, ".")
			expr = expr[end:]
			if key == "" {
				continue
			}
			vals = step(vals, func(v any) []any {
				if key == "*" {
					return children(v)
				}
				if m, ok := v.(map[string]any); ok {
					if x, ok := m[key]; ok {
						return []any{x}
					}
				}
				return nil
			})
		case expr[0] == '[':
			end := matchingBracket(expr)
			if end < 0 {
				return nil, fmt.Errorf("unterminated [ in jsonpath %q", expr)
			}
			inner := expr[1:end]
			expr = expr[end+1:]
			var err error
			vals, err = subscript(vals, inner, root)
			if err != nil {
				return nil, err
			}
		default:
			return nil, fmt.Errorf("unrecognized character in jsonpath at %q", expr)
		}
	}
	return vals, nil
}

func matchingBracket(s string) int {
	depth, quote := 0, byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '[':
			depth++
		case c == ']':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

func step(vals []any, f func(any) []any) []any {
	var out []any
	for _, v := range vals {
		out = append(out, f(v)...)
	}
	return out
}

func children(v any) []any {
	switch x := v.(type) {
	case []any:
		return x
	case map[string]any:
		var out []any
		for _, k := range sortedKeys(x) {
			out = append(out, x[k])
		}
		return out
	}
	return nil
}

func subscript(vals []any, inner string, root any) ([]any, error) {
	inner = strings.TrimSpace(inner)
	switch {
	case inner == "*":
		return step(vals, children), nil
	case strings.HasPrefix(inner, "?(") && strings.HasSuffix(inner, ")"):
		cond := inner[2 : len(inner)-1]
		var out []any
		for _, v := range vals {
			for _, item := range children(v) {
				ok, err := filterMatch(cond, root, item)
				if err != nil {
					return nil, err
				}
				if ok {
					out = append(out, item)
				}
			}
		}
		return out, nil
	case strings.HasPrefix(inner, "'") || strings.HasPrefix(inner, `"`):
		key := strings.Trim(inner, `'"`)
		return step(vals, func(v any) []any {
			if m, ok := v.(map[string]any); ok {
				if x, ok := m[key]; ok {
					return []any{x}
				}
			}
			return nil
		}), nil
	}
	idx, err := strconv.Atoi(inner)
	if err != nil {
		return nil, fmt.Errorf("jsonpath subscript [%s] is not simulated (use [N], [*], [?(@.k==\"v\")])", inner)
	}
	return step(vals, func(v any) []any {
		arr, ok := v.([]any)
		if !ok {
			return nil
		}
		i := idx
		if i < 0 {
			i += len(arr)
		}
		if i < 0 || i >= len(arr) {
			return nil
		}
		return []any{arr[i]}
	}), nil
}

func filterMatch(cond string, root, item any) (bool, error) {
	for _, op := range []string{"==", "!="} {
		l, r, ok := strings.Cut(cond, op)
		if !ok {
			continue
		}
		lv, err := evalPath(strings.TrimSpace(l), root, item)
		if err != nil {
			return false, err
		}
		want := strings.Trim(strings.TrimSpace(r), `"'`)
		got := ""
		if len(lv) > 0 {
			got = render(lv[0])
		}
		if op == "==" {
			return len(lv) > 0 && got == want, nil
		}
		return got != want, nil
	}
	lv, err := evalPath(strings.TrimSpace(cond), root, item)
	return len(lv) > 0, err
}
