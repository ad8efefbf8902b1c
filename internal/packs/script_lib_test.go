package packs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

// readScript is a builtin script (PACK/scripts/NAME.sh) as the engine
// ships it: its library includes replaced by the libraries' text.
func readScript(t *testing.T, script string) string {
	t.Helper()
	body := readFile(t, filepath.Join("builtin", script))
	pack := strings.SplitN(script, "/", 2)[0]
	libs := map[string][]byte{}
	files, _ := filepath.Glob(filepath.Join("builtin", pack, LibDir, "*.sh"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		libs[filepath.Base(f)] = b
	}
	out, _, errs := ExpandLibs([]byte(body), libs)
	if len(errs) > 0 {
		t.Fatalf("%s: %v", script, errs)
	}
	return string(out)
}

// A pack with a library: the loader ships each script with the text of
// the libraries it includes in place of the include line; an include of
// a library the pack lacks, another way of reading lib/, a library that
// includes another and a library no script includes are refused with the
// file and line.
func TestScriptLibraries(t *testing.T) {
	const include = "# shellcheck source=../lib/greet.sh\nsource \"${BASH_SOURCE[0]%/*}/../lib/greet.sh\"\n"
	const lib = "#!/usr/bin/env bash\n# shellcheck shell=bash\n# greet NAME prints a greeting.\ngreet() { echo \"hi $1\"; }\n"
	pack := func(files map[string]string) fstest.MapFS {
		fs := minimalPackFS(t)
		for name, body := range files {
			fs[name] = &fstest.MapFile{Data: []byte(body), Mode: 0o644}
		}
		return fs
	}
	script := "#!/usr/bin/env bash\nset -euo pipefail\n" + include + "greet world\n"
	p, err := Load(pack(map[string]string{"scripts/run.sh": script, "lib/greet.sh": lib}), "test")
	if err != nil {
		t.Fatalf("a pack with a library: %v", err)
	}
	got := string(p.Scripts["scripts/run.sh"])
	want := "#!/usr/bin/env bash\nset -euo pipefail\n# shellcheck source=../lib/greet.sh\n# --- lib/greet.sh\n# greet NAME prints a greeting.\ngreet() { echo \"hi $1\"; }\n# --- end of lib/greet.sh\ngreet world\n"
	if got != want {
		t.Errorf("shipped script:\n%s\nwant:\n%s", got, want)
	}
	if strings.Contains(got, "source ") {
		t.Errorf("the include line was shipped: it reads a file the host does not have")
	}

	for name, c := range map[string]struct {
		files map[string]string
		want  string
	}{
		"missing library": {map[string]string{"scripts/run.sh": script}, "scripts/run.sh:4: includes lib/greet.sh, which the pack does not have"},
		"other form":      {map[string]string{"scripts/run.sh": ". ../lib/greet.sh\n", "lib/greet.sh": lib}, "scripts/run.sh:1: reads a file under lib/ otherwise than by an include line"},
		"nested":          {map[string]string{"scripts/run.sh": script, "lib/greet.sh": lib + include}, "lib/greet.sh:6: a library includes another"},
		"unused":          {map[string]string{"scripts/run.sh": "echo\n", "lib/greet.sh": lib}, "lib/greet.sh: no script includes this library"},
		"not a library":   {map[string]string{"scripts/run.sh": script, "lib/greet.sh": lib, "lib/notes.txt": "x"}, "lib/notes.txt: a pack's lib/ holds shell libraries NAME.sh only"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Load(pack(c.files), "test")
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want %q", err, c.want)
			}
		})
	}
	// A system file under /usr/lib is no library include.
	if _, err := Load(pack(map[string]string{"scripts/run.sh": ". /usr/lib/os-release\n"}), "test"); err != nil {
		t.Errorf(". /usr/lib/os-release refused: %v", err)
	}
}

// minimalPackFS is the valid demo pack as a map of files.
func minimalPackFS(t *testing.T) fstest.MapFS {
	t.Helper()
	return demoWith(t, "-", "", "").(fstest.MapFS)
}
