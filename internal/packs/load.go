package packs

import (
	"errors"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// File names and directories of a pack.
const (
	PackFile     = "pack.yaml"
	TemplatesDir = "templates"
	JobsDir      = "jobs"
	ScriptsDir   = "scripts"
)

// loaded is a pack being read, with the documents it came from.
type loaded struct {
	rep       *reporter
	fsys      fs.FS
	pack      *protocol.ScenarioPack
	packDoc   *doc
	templates []*templateFile
	jobs      []*jobFile
}

type templateFile struct {
	doc *doc
	tpl *protocol.PlanTemplate
	ref int // index in pack.plan_templates, -1 when unreferenced
}

type jobFile struct {
	doc *doc
	job *protocol.Job
}

// Load reads and validates the pack whose directory is the root of fsys.
// source names where it comes from ("builtin/kubernetes" or a directory);
// it becomes ScenarioPack.Source and prefixes the file of every problem.
// The error is a Problems listing every mistake found.
func Load(fsys fs.FS, source string) (*protocol.ScenarioPack, error) {
	return load(fsys, source, source)
}

// load reads a pack, recording source in the pack and prefixing problems
// with prefix.
func load(fsys fs.FS, source, prefix string) (*protocol.ScenarioPack, error) {
	l := &loaded{rep: &reporter{prefix: prefix}, fsys: fsys}
	l.readPack()
	if l.pack != nil {
		l.readTemplates()
		l.readJobs()
		l.readScripts()
		l.expandLibs()
		l.validate()
	}
	if len(l.rep.problems) > 0 {
		l.rep.problems.Sort()
		return nil, l.rep.problems
	}
	l.pack.Source = source
	return l.pack, nil
}

func (l *loaded) readPack() {
	data, err := fs.ReadFile(l.fsys, PackFile)
	if err != nil {
		l.rep.add(PackFile, 0, "", "cannot read the pack contract: %v; a pack directory holds pack.yaml, templates/, jobs/ and scripts/", err)
		return
	}
	p := &protocol.ScenarioPack{}
	d := decodeFile(l.rep, PackFile, data, "scenario_pack", p)
	if d == nil {
		return
	}
	l.pack, l.packDoc = p, d
}

func (l *loaded) readTemplates() {
	referenced := map[string]bool{}
	for i, ref := range l.pack.PlanTemplates {
		field := indexed("plan_templates", i)
		if ref.File == "" {
			l.rep.add(PackFile, l.packDoc.line(field), field+".file", "template file is empty; set file: templates/%s.yaml", orDefault(ref.Action, "<action>"))
			continue
		}
		name := path.Clean(ref.File)
		referenced[name] = true
		data, err := fs.ReadFile(l.fsys, name)
		if err != nil {
			l.rep.add(PackFile, l.packDoc.line(field+".file"), field+".file",
				"template file %q does not exist in the pack (%v); create it or fix the path", ref.File, fsErr(err))
			continue
		}
		t := &protocol.PlanTemplate{}
		if d := decodeFile(l.rep, name, data, "plan_template", t); d != nil {
			t.Version = l.pack.Version
			l.templates = append(l.templates, &templateFile{doc: d, tpl: t, ref: i})
		}
	}
	for _, name := range l.glob(TemplatesDir) {
		if !referenced[name] {
			l.rep.add(name, 0, "", "template file is not listed in pack.yaml plan_templates; add it there or delete it")
		}
	}
}

func (l *loaded) readJobs() {
	for _, name := range l.glob(JobsDir) {
		data, err := fs.ReadFile(l.fsys, name)
		if err != nil {
			l.rep.add(name, 0, "", "cannot read job file: %v", err)
			continue
		}
		j := &protocol.Job{}
		if d := decodeFile(l.rep, name, data, "job", j); d != nil {
			l.jobs = append(l.jobs, &jobFile{doc: d, job: j})
		}
	}
}

func (l *loaded) readScripts() {
	l.pack.Scripts = map[string][]byte{}
	err := fs.WalkDir(l.fsys, ScriptsDir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() {
			return nil
		}
		data, err := fs.ReadFile(l.fsys, p)
		if err != nil {
			return err
		}
		l.pack.Scripts[p] = data
		return nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		l.rep.add(ScriptsDir, 0, "", "cannot read scripts: %v", err)
	}
}

// glob lists the YAML files of a pack directory, sorted.
func (l *loaded) glob(dir string) []string {
	var out []string
	for _, pat := range []string{"*.yaml", "*.yml"} {
		m, _ := fs.Glob(l.fsys, dir+"/"+pat)
		out = append(out, m...)
	}
	sort.Strings(out)
	return out
}

func indexed(field string, i int) string {
	return field + "[" + strconv.Itoa(i) + "]"
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// fsErr shortens fs errors to their cause.
func fsErr(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return strings.TrimSpace(pe.Err.Error())
	}
	return err.Error()
}
