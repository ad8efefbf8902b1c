package hostsim

import (
	"fmt"
	"regexp"
	"strings"
)

// This file holds a small tokenizer of bash and POSIX sh, enough to find
// where scripts invoke the emulated tools and with which words: simple
// commands split at newlines, ;, |, ||, &&, &, ( and ); line
// continuations; quotes; comments; heredoc bodies skipped; $(...) and
// `...` scanned as commands of their own; redirections dropped; arrays
// assigned in the script (kc=(--kubeconfig "$f")) expanded where
// "${kc[@]}" is used. A word holding an expansion is opaque: it is an
// argument whose value the script decides.

// opaque stands for a word whose value is only known when the script runs.
const opaque = opaqueValue

// word is one shell word.
type word struct {
	text    string // the literal value; opaque when it holds an expansion
	quoted  bool   // some part was quoted
	array   string // the name when the word is "${name[@]}" (or ${name[*]})
	assign  []word // elements of name=(...) when the word is that assignment
	line    int
	literal bool   // no expansion in it
	prefix  string // the literal text before the first expansion
}

// invocation is one call of a tool found in a script.
type invocation struct {
	where string   // file:line
	tool  string   // the program name
	args  []string // its arguments; opaque for a word decided at run time
}

func (inv invocation) String() string {
	var b strings.Builder
	b.WriteString(inv.tool)
	for _, a := range inv.args {
		a = strings.ReplaceAll(a, opaque, "$…")
		b.WriteString(" " + a)
	}
	return b.String()
}

type lexer struct {
	src      []rune
	pos      int
	line     int
	heredocs []string // delimiters whose bodies start at the next newline
	cmds     [][]word // simple commands found, in order of their end
}

// scanScript returns the simple commands of a script.
func scanScript(src string) ([][]word, error) {
	lx := &lexer{src: []rune(src), line: 1}
	if err := lx.commands(0); err != nil {
		return nil, err
	}
	return lx.cmds, nil
}

// commands lexes simple commands until the end of input or, when
// closing is set, until that closing character (of $( or `).
func (lx *lexer) commands(closing rune) error {
	var cur []word
	flush := func() {
		if len(cur) > 0 {
			lx.cmds = append(lx.cmds, cur)
			cur = nil
		}
	}
	depth := 0 // ( ) inside a $( ), so a subshell does not end it
	for lx.pos < len(lx.src) {
		c := lx.src[lx.pos]
		switch {
		case c == '\\' && lx.peek(1) == '\n':
			lx.pos += 2
			lx.line++
		case c == ' ' || c == '\t':
			lx.pos++
		case c == '\n':
			lx.pos++
			lx.line++
			flush()
			if err := lx.skipHeredocs(); err != nil {
				return err
			}
		case c == '#':
			for lx.pos < len(lx.src) && lx.src[lx.pos] != '\n' {
				lx.pos++
			}
		case closing != 0 && c == closing && depth == 0:
			lx.pos++
			flush()
			return nil
		case c == '(' || c == ')':
			if closing == ')' {
				if c == '(' {
					depth++
				} else {
					depth--
				}
			}
			lx.pos++
			flush()
		case c == ';' || c == '|' || c == '&':
			lx.pos++
			flush()
		case c == '<' || c == '>' || (isDigit(c) && lx.redirectAfterDigits()):
			if err := lx.redirect(); err != nil {
				return err
			}
		default:
			w, err := lx.word()
			if err != nil {
				return err
			}
			cur = append(cur, w)
		}
	}
	if closing != 0 {
		return fmt.Errorf("line %d: unterminated %q", lx.line, closing)
	}
	flush()
	return nil
}

func (lx *lexer) peek(n int) rune {
	if lx.pos+n < len(lx.src) {
		return lx.src[lx.pos+n]
	}
	return 0
}

func isDigit(c rune) bool { return c >= '0' && c <= '9' }

// redirectAfterDigits reports whether digits at pos start a redirection (2>).
func (lx *lexer) redirectAfterDigits() bool {
	i := lx.pos
	for i < len(lx.src) && isDigit(lx.src[i]) {
		i++
	}
	return i < len(lx.src) && (lx.src[i] == '>' || lx.src[i] == '<')
}

// redirect consumes a redirection and its target word; a heredoc's
// delimiter is queued so its body is skipped.
func (lx *lexer) redirect() error {
	for isDigit(lx.src[lx.pos]) {
		lx.pos++
	}
	start := lx.pos
	for lx.pos < len(lx.src) && strings.ContainsRune("<>&|-", lx.src[lx.pos]) {
		lx.pos++
	}
	op := string(lx.src[start:lx.pos])
	if strings.HasSuffix(op, "&") || op == ">&" {
		// >&2, 2>&1: the target is a descriptor.
		for lx.pos < len(lx.src) && (isDigit(lx.src[lx.pos]) || lx.src[lx.pos] == '-') {
			lx.pos++
		}
		if lx.pos > start && isDigit(lx.src[lx.pos-1]) {
			return nil
		}
	}
	for lx.pos < len(lx.src) && (lx.src[lx.pos] == ' ' || lx.src[lx.pos] == '\t') {
		lx.pos++
	}
	w, err := lx.word()
	if err != nil {
		return err
	}
	if op == "<<" || op == "<<-" {
		lx.heredocs = append(lx.heredocs, w.raw())
	}
	return nil
}

// raw is a heredoc delimiter's text without quotes.
func (w word) raw() string { return w.text }

// skipHeredocs skips the bodies of the heredocs queued on the line just ended.
func (lx *lexer) skipHeredocs() error {
	for _, delim := range lx.heredocs {
		for {
			if lx.pos >= len(lx.src) {
				return fmt.Errorf("heredoc %q is not terminated", delim)
			}
			end := lx.pos
			for end < len(lx.src) && lx.src[end] != '\n' {
				end++
			}
			line := strings.TrimLeft(string(lx.src[lx.pos:end]), "\t")
			lx.pos = min(end+1, len(lx.src))
			lx.line++
			if line == delim {
				break
			}
		}
	}
	lx.heredocs = nil
	return nil
}

var arrayRef = regexp.MustCompile(`^\$\{([A-Za-z_][A-Za-z0-9_]*)\[[@*]\]\}$`)

// word lexes one word.
func (lx *lexer) word() (word, error) {
	w := word{line: lx.line, literal: true}
	var b strings.Builder
	var raw strings.Builder // the source text, to recognise "${a[@]}"
	for lx.pos < len(lx.src) {
		c := lx.src[lx.pos]
		if c == '\\' && lx.peek(1) == '\n' {
			lx.pos += 2
			lx.line++
			continue
		}
		if strings.ContainsRune(" \t\n;|&<>()", c) {
			if c == '(' && strings.HasSuffix(b.String(), "=") && w.literal && b.Len() > 1 {
				// name=( ... ): an array assignment.
				lx.pos++
				elems, err := lx.arrayElems()
				if err != nil {
					return w, err
				}
				w.assign = elems
				if w.assign == nil {
					w.assign = []word{}
				}
				continue
			}
			break
		}
		switch c {
		case '\\':
			b.WriteRune(lx.peek(1))
			raw.WriteRune(c)
			raw.WriteRune(lx.peek(1))
			lx.pos += 2
		case '\'':
			w.quoted = true
			end := lx.pos + 1
			for end < len(lx.src) && lx.src[end] != '\'' {
				if lx.src[end] == '\n' {
					lx.line++
				}
				end++
			}
			if end >= len(lx.src) {
				return w, fmt.Errorf("line %d: unterminated single quote", w.line)
			}
			b.WriteString(string(lx.src[lx.pos+1 : end]))
			raw.WriteString(string(lx.src[lx.pos : end+1]))
			lx.pos = end + 1
		case '"':
			w.quoted = true
			start := lx.pos
			lx.pos++
			for {
				if lx.pos >= len(lx.src) {
					return w, fmt.Errorf("line %d: unterminated double quote", w.line)
				}
				d := lx.src[lx.pos]
				if d == '"' {
					lx.pos++
					break
				}
				switch d {
				case '\\':
					if lx.peek(1) == '\n' {
						lx.line++
					} else {
						b.WriteRune(lx.peek(1))
					}
					lx.pos += 2
				case '$', '`':
					if w.literal {
						w.prefix = b.String()
					}
					if err := lx.expansion(); err != nil {
						return w, err
					}
					w.literal = false
				default:
					if d == '\n' {
						lx.line++
					}
					b.WriteRune(d)
					lx.pos++
				}
			}
			raw.WriteString(string(lx.src[start:lx.pos]))
		case '$', '`':
			start := lx.pos
			if c == '$' && !strings.ContainsRune("({`abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789@*#?!-", lx.peek(1)) {
				b.WriteRune(c) // a lone $ is literal
				raw.WriteRune(c)
				lx.pos++
				continue
			}
			if w.literal {
				w.prefix = b.String()
			}
			if err := lx.expansion(); err != nil {
				return w, err
			}
			raw.WriteString(string(lx.src[start:lx.pos]))
			w.literal = false
		default:
			b.WriteRune(c)
			raw.WriteRune(c)
			lx.pos++
		}
	}
	w.text = b.String()
	if !w.literal {
		w.text = opaque
		r := strings.Trim(raw.String(), `"`)
		if m := arrayRef.FindStringSubmatch(r); m != nil {
			w.array = m[1]
		}
	}
	return w, nil
}

// arrayElems lexes the elements of name=( ... ) up to the closing paren.
func (lx *lexer) arrayElems() ([]word, error) {
	var out []word
	for lx.pos < len(lx.src) {
		c := lx.src[lx.pos]
		switch {
		case c == ')':
			lx.pos++
			return out, nil
		case c == ' ' || c == '\t':
			lx.pos++
		case c == '\n':
			lx.pos++
			lx.line++
		default:
			w, err := lx.word()
			if err != nil {
				return nil, err
			}
			if w.text == "" && !w.quoted {
				return nil, fmt.Errorf("line %d: unexpected %q in an array", lx.line, c)
			}
			out = append(out, w)
		}
	}
	return nil, fmt.Errorf("line %d: unterminated array", lx.line)
}

// expansion consumes $name, ${...}, $((...)), $(...) or `...`; command
// substitutions are scanned for commands of their own.
func (lx *lexer) expansion() error {
	c := lx.src[lx.pos]
	if c == '`' {
		lx.pos++
		return lx.commands('`')
	}
	lx.pos++ // $
	switch n := lx.peek(0); {
	case n == '(' && lx.peek(1) == '(':
		depth := 0
		for lx.pos < len(lx.src) {
			switch lx.src[lx.pos] {
			case '(':
				depth++
			case ')':
				depth--
			}
			lx.pos++
			if depth == 0 {
				return nil
			}
		}
		return fmt.Errorf("line %d: unterminated $((", lx.line)
	case n == '(':
		lx.pos++
		return lx.commands(')')
	case n == '{':
		depth := 0
		for lx.pos < len(lx.src) {
			switch lx.src[lx.pos] {
			case '{':
				depth++
			case '}':
				depth--
			case '\n':
				lx.line++
			}
			lx.pos++
			if depth == 0 {
				return nil
			}
		}
		return fmt.Errorf("line %d: unterminated ${", lx.line)
	default:
		if strings.ContainsRune("@*#?!-$0123456789", n) {
			lx.pos++
			return nil
		}
		for lx.pos < len(lx.src) {
			r := lx.src[lx.pos]
			if !(r == '_' || isDigit(r) || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')) {
				break
			}
			lx.pos++
		}
	}
	return nil
}

var assignRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*\+?=`)

// shellKeywords may come before a command's name.
var shellKeywords = map[string]bool{"if": true, "then": true, "elif": true, "else": true, "do": true, "while": true,
	"until": true, "!": true, "{": true, "}": true, "time": true, "fi": true, "done": true, "esac": true}

// findInvocations returns the calls of the named tools in a script:
// the first word of a simple command after keywords, assignments and
// the wrappers sudo, env, exec and command (command -v only looks a
// program up).
func findInvocations(file, src string, tools map[string]bool) ([]invocation, error) {
	cmds, err := scanScript(src)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	arrays := map[string][]word{}
	// alternatives holds every value an array was assigned: an array
	// run as the command ("${etcd[@]}" member list) may hold any of them
	// (cmd=(etcdctl ...); command -v etcdutl && cmd=(etcdutl ...)).
	alternatives := map[string][][]word{}
	var out []invocation
	var pending [][]word
	for len(cmds) > 0 || len(pending) > 0 {
		var cmd []word
		if len(pending) > 0 {
			cmd, pending = pending[0], pending[1:]
		} else {
			cmd, cmds = cmds[0], cmds[1:]
		}
		i := 0
		for i < len(cmd) {
			w := cmd[i]
			switch {
			case w.assign != nil:
				name, plus := strings.CutSuffix(strings.TrimSuffix(w.text, "="), "+")
				if plus {
					arrays[name] = append(arrays[name], w.assign...)
					for k := range alternatives[name] {
						alternatives[name][k] = append(alternatives[name][k], w.assign...)
					}
				} else {
					arrays[name] = w.assign
					alternatives[name] = append(alternatives[name], w.assign)
				}
				i++
				continue
			case w.literal && !w.quoted && (shellKeywords[w.text] || assignRE.MatchString(w.text)):
				i++
				continue
			case w.literal && (w.text == "sudo" || w.text == "env" || w.text == "exec"):
				i++
				for i < len(cmd) && strings.HasPrefix(cmd[i].text, "-") {
					i++
				}
				continue
			case w.literal && w.text == "command":
				if i+1 < len(cmd) && (cmd[i+1].text == "-v" || cmd[i+1].text == "-V") {
					i = len(cmd)
					continue
				}
				i++
				continue
			}
			break
		}
		if i < len(cmd) && cmd[i].array != "" {
			// The array is the command: scan it once per value it was given.
			for _, alt := range alternatives[cmd[i].array] {
				if len(alt) > 0 {
					pending = append(pending, append(append([]word{}, alt...), cmd[i+1:]...))
				}
			}
			continue
		}
		if i >= len(cmd) || !cmd[i].literal {
			continue
		}
		name := cmd[i].text
		if j := strings.LastIndexByte(name, '/'); j >= 0 {
			name = name[j+1:]
		}
		if !tools[name] {
			continue
		}
		inv := invocation{where: fmt.Sprintf("%s:%d", file, cmd[i].line), tool: name}
		for _, a := range cmd[i+1:] {
			if a.array != "" {
				elems, known := arrays[a.array]
				if !known {
					inv.args = append(inv.args, opaque)
				}
				for _, e := range elems {
					inv.args = append(inv.args, e.text)
				}
				continue
			}
			if a.text == opaque && strings.HasPrefix(a.prefix, "-") {
				// --timeout="$t": the flag is known, its value is not.
				inv.args = append(inv.args, a.prefix+opaque)
				continue
			}
			inv.args = append(inv.args, a.text)
		}
		out = append(out, inv)
	}
	return out, nil
}
