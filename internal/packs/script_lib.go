package packs

import (
	"bytes"
	"fmt"
	"io/fs"
	"regexp"
	"strings"
)

// LibDir holds a pack's shell libraries: fragments that scripts include,
// so a helper every script needs (the proxy settings reader, the TOML
// editor of containerd's config, the drain's uncordon trap) is written
// once.
const LibDir = "lib"

// A script includes a library with exactly these two lines (the first lets
// shellcheck -x follow the library when it checks the script on disk; the
// second is what a shell runs from the pack directory):
//
//	# shellcheck source=../lib/NAME.sh
//	source "${BASH_SOURCE[0]%/*}/../lib/NAME.sh"
//
// The loader replaces the source line with the library's text, so the
// script the engine ships to a host, hashes and resumes from is one
// self-contained file, and a change of a library changes the script of
// every job that includes it.
var (
	libInclude = regexp.MustCompile(`^source "\$\{BASH_SOURCE\[0\]%/\*\}/\.\./lib/([a-z0-9][a-z0-9-]*\.sh)"$`)
	// libMention is any other line that reads a file under lib/ with source
	// or ".": refused, so no include escapes the expansion.
	libMention = regexp.MustCompile(`(^|[;&|(]\s*)(source|\.)\s+("?\S*\.\./lib/|"?lib/)`)
)

// readLibs reads lib/*.sh (no subdirectories).
func (l *loaded) readLibs() map[string][]byte {
	libs := map[string][]byte{}
	entries, err := fs.ReadDir(l.fsys, LibDir)
	if err != nil {
		return libs
	}
	for _, e := range entries {
		name := LibDir + "/" + e.Name()
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".sh") {
			l.rep.add(name, 0, "", "a pack's lib/ holds shell libraries NAME.sh only; move or delete it")
			continue
		}
		data, err := fs.ReadFile(l.fsys, name)
		if err != nil {
			l.rep.add(name, 0, "", "cannot read library: %v", err)
			continue
		}
		libs[e.Name()] = data
	}
	return libs
}

// expandLibs replaces each library include of every script with the
// library's text, and reports includes of libraries that do not exist,
// other ways of reading lib/, libraries that include others and
// libraries no script includes.
func (l *loaded) expandLibs() {
	libs := l.readLibs()
	used := map[string]bool{}
	for name, data := range libs {
		for i, line := range strings.Split(string(data), "\n") {
			if libInclude.MatchString(line) || libMention.MatchString(line) {
				l.rep.add(LibDir+"/"+name, i+1, "", "a library includes another; include both from the script instead")
			}
		}
	}
	for p, body := range l.pack.Scripts {
		out, names, errs := ExpandLibs(body, libs)
		for _, e := range errs {
			l.rep.add(p, e.line, "", "%s", e.msg)
		}
		for _, n := range names {
			used[n] = true
		}
		l.pack.Scripts[p] = out
	}
	for name := range libs {
		if !used[name] {
			l.rep.add(LibDir+"/"+name, 0, "", "no script includes this library; include it or delete it")
		}
	}
}

// libError is a problem at a line of a script.
type libError struct {
	line int
	msg  string
}

// ExpandLibs returns body with each include line replaced by the text of
// the library it names (its shellcheck directives and a leading shebang
// dropped), the names included, and the problems found.
func ExpandLibs(body []byte, libs map[string][]byte) ([]byte, []string, []libError) {
	if !bytes.Contains(body, []byte("lib/")) {
		return body, nil, nil
	}
	var out strings.Builder
	var names []string
	var errs []libError
	lines := strings.Split(string(body), "\n")
	for i, line := range lines {
		m := libInclude.FindStringSubmatch(line)
		switch {
		case m != nil:
			lib, ok := libs[m[1]]
			if !ok {
				errs = append(errs, libError{i + 1, fmt.Sprintf("includes lib/%s, which the pack does not have; add it to lib/ or remove the include", m[1])})
				continue
			}
			names = append(names, m[1])
			out.WriteString(libText(m[1], lib))
		case libMention.MatchString(line):
			errs = append(errs, libError{i + 1, `reads a file under lib/ otherwise than by an include line; write: source "${BASH_SOURCE[0]%/*}/../lib/NAME.sh"`})
			out.WriteString(line)
		default:
			out.WriteString(line)
		}
		if i < len(lines)-1 {
			out.WriteByte('\n')
		}
	}
	return []byte(out.String()), names, errs
}

// libText is a library's text as it stands in a script: between two
// marker comments, without a shebang and without shellcheck directives
// (which belong to the file checked on disk).
func libText(name string, lib []byte) string {
	var b strings.Builder
	b.WriteString("# --- lib/" + name + "\n")
	for _, l := range strings.Split(strings.TrimRight(string(lib), "\n"), "\n") {
		if strings.HasPrefix(l, "#!") || strings.HasPrefix(l, "# shellcheck shell=") {
			continue
		}
		b.WriteString(l + "\n")
	}
	b.WriteString("# --- end of lib/" + name)
	return b.String()
}
