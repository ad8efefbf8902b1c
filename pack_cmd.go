package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/intentops/terraform-provider-cp/internal/packs"
)

// Exit codes of the pack command.
const (
	packExitValid    = 0 // every pack loaded
	packExitProblems = 1 // the loader reported problems
	packExitUsage    = 2 // the command line was wrong
)

const packUsage = `usage: terraform-provider-cp pack validate [--json] DIR

Loads DIR (one pack directory, or a directory of packs) with the loader the
provider uses for pack_dirs, together with the built-in packs, and reports
every problem as file:line: field: message. Exits 0 when every pack is
valid, 1 when there are problems, 2 on a usage error.

  --json   print {"dir", "valid", "packs", "problems"} as JSON on stdout
`

// packMain runs "terraform-provider-cp pack ..." and returns the exit code.
func packMain(args []string) int {
	return runPack(args, os.Stdout, os.Stderr)
}

// runPack is packMain with its output streams.
func runPack(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "validate" {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
			fmt.Fprint(stdout, packUsage)
			return packExitValid
		}
		fmt.Fprint(stderr, "terraform-provider-cp pack: the only subcommand is validate\n\n"+packUsage)
		return packExitUsage
	}
	asJSON := false
	var dirs []string
	for _, a := range args[1:] {
		switch a {
		case "--json", "-json":
			asJSON = true
		case "-h", "--help":
			fmt.Fprint(stdout, packUsage)
			return packExitValid
		default:
			if strings.HasPrefix(a, "-") {
				fmt.Fprintf(stderr, "terraform-provider-cp pack validate: unknown flag %q\n\n%s", a, packUsage)
				return packExitUsage
			}
			dirs = append(dirs, a)
		}
	}
	if len(dirs) != 1 {
		fmt.Fprintf(stderr, "terraform-provider-cp pack validate: give one directory, got %d\n\n%s", len(dirs), packUsage)
		return packExitUsage
	}
	rep := validatePackDir(dirs[0])
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			fmt.Fprintf(stderr, "terraform-provider-cp pack validate: write JSON: %v\n", err)
			return packExitProblems
		}
	} else {
		rep.writeText(stdout)
	}
	if !rep.Valid {
		return packExitProblems
	}
	return packExitValid
}

// packReport is the outcome of validating one directory; its JSON form is
// what --json prints.
type packReport struct {
	Dir      string          `json:"dir"`
	Valid    bool            `json:"valid"`
	Packs    []packSummary   `json:"packs"`
	Problems []packProblemJS `json:"problems"`
}

type packSummary struct {
	ID        string   `json:"id"`
	Version   string   `json:"version"`
	Source    string   `json:"source"`
	Templates []string `json:"templates"`
	Jobs      int      `json:"jobs"`
}

type packProblemJS struct {
	File    string `json:"file"`
	Line    int    `json:"line,omitempty"`
	Field   string `json:"field,omitempty"`
	Message string `json:"message"`
}

// validatePackDir loads dir as the provider loads a pack_dirs entry: with
// packs.LoadDir, then merged into the built-in catalog, so a pack reusing a
// built-in id@version is refused here as it would be at plan.
func validatePackDir(dir string) packReport {
	rep := packReport{Dir: dir, Packs: []packSummary{}, Problems: []packProblemJS{}}
	cat, err := packs.LoadDir(dir)
	if err == nil {
		builtin, berr := packs.LoadBuiltin()
		if berr != nil {
			err = fmt.Errorf("load the built-in packs to check %s against them: %w", dir, berr)
		} else if merr := builtin.Merge(cat); merr != nil {
			err = fmt.Errorf("%s clashes with a built-in pack: %w", dir, merr)
		}
	}
	if err != nil {
		rep.Problems = problemsOf(dir, err)
		return rep
	}
	for _, p := range cat.List() {
		s := packSummary{ID: p.ID, Version: p.Version, Source: p.Source, Jobs: len(p.Jobs), Templates: []string{}}
		for _, t := range p.PlanTemplates {
			s.Templates = append(s.Templates, t.ID)
		}
		sort.Strings(s.Templates)
		rep.Packs = append(rep.Packs, s)
	}
	sort.Slice(rep.Packs, func(i, j int) bool {
		if rep.Packs[i].ID != rep.Packs[j].ID {
			return rep.Packs[i].ID < rep.Packs[j].ID
		}
		return rep.Packs[i].Version < rep.Packs[j].Version
	})
	rep.Valid = true
	return rep
}

// problemsOf turns a load error into problems: the loader's own Problems
// as they are, any other error (a missing directory, a clash with a
// built-in pack) as one problem on dir. Joined errors are taken apart.
func problemsOf(dir string, err error) []packProblemJS {
	var out []packProblemJS
	var walk func(error)
	walk = func(err error) {
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			for _, e := range j.Unwrap() {
				walk(e)
			}
			return
		}
		var ps packs.Problems
		if errors.As(err, &ps) {
			for _, p := range ps {
				out = append(out, packProblemJS{File: p.File, Line: p.Line, Field: p.Field, Message: p.Message})
			}
			return
		}
		out = append(out, packProblemJS{File: dir, Message: err.Error()})
	}
	walk(err)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Field != b.Field {
			return a.Field < b.Field
		}
		return a.Message < b.Message
	})
	return out
}

// writeText prints the report for people: one problem a line as
// file:line: field: message, then a count; or the packs found.
func (r packReport) writeText(w io.Writer) {
	if r.Valid {
		for _, p := range r.Packs {
			fmt.Fprintf(w, "ok  %s@%s  %s  (%d templates: %s; %d jobs)\n", p.ID, p.Version, p.Source,
				len(p.Templates), strings.Join(p.Templates, ", "), p.Jobs)
		}
		fmt.Fprintf(w, "%s: %d pack(s), no problems\n", r.Dir, len(r.Packs))
		return
	}
	for _, p := range r.Problems {
		fmt.Fprintln(w, packs.Problem{File: p.File, Line: p.Line, Field: p.Field, Message: p.Message}.String())
	}
	fmt.Fprintf(w, "%s: %d problem(s)\n", r.Dir, len(r.Problems))
}
