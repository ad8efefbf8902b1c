package packs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/intentops/terraform-provider-cp/internal/protocol"
)

// Catalog holds scenario packs by id and version.
type Catalog struct {
	packs map[string]map[string]*protocol.ScenarioPack // id -> version -> pack
}

// NewCatalog returns an empty catalog.
func NewCatalog() *Catalog {
	return &Catalog{packs: map[string]map[string]*protocol.ScenarioPack{}}
}

// Add puts a pack into the catalog. A pack with the same id and version
// already present is an error naming both sources.
func (c *Catalog) Add(p *protocol.ScenarioPack) error {
	if _, err := ParseVersion(p.Version); err != nil {
		return fmt.Errorf("add pack %s from %s: %w", p.Ref(), p.Source, err)
	}
	versions := c.packs[p.ID]
	if versions == nil {
		versions = map[string]*protocol.ScenarioPack{}
		c.packs[p.ID] = versions
	}
	if old, dup := versions[p.Version]; dup {
		return fmt.Errorf("pack %s from %s is already in the catalog from %s; give the new pack another id or version",
			p.Ref(), p.Source, old.Source)
	}
	versions[p.Version] = p
	return nil
}

// Merge adds every pack of other, e.g. user packs to the builtin ones. It
// reports every clash and adds the packs that do not clash.
func (c *Catalog) Merge(other *Catalog) error {
	var errs []error
	for _, p := range other.List() {
		if err := c.Add(p); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Get returns the highest version of pack id that satisfies constraint
// (see ParseConstraint; "" means any version).
func (c *Catalog) Get(id, constraint string) (*protocol.ScenarioPack, error) {
	versions := c.packs[id]
	if len(versions) == 0 {
		return nil, fmt.Errorf("no scenario pack %q in the catalog (packs: %s); add a pack directory with id: %s",
			id, strings.Join(c.ids(), ", "), id)
	}
	con, err := ParseConstraint(constraint)
	if err != nil {
		return nil, fmt.Errorf("get pack %q: %w", id, err)
	}
	var best *protocol.ScenarioPack
	var bestV Version
	var all []string
	for _, p := range sortedVersions(versions) {
		v, _ := ParseVersion(p.Version) // checked by Add
		all = append(all, p.Version)
		if con.Check(v) && (best == nil || v.Compare(bestV) > 0) {
			best, bestV = p, v
		}
	}
	if best == nil {
		return nil, fmt.Errorf("scenario pack %q: no version satisfies %q (available: %s)", id, constraint, strings.Join(all, ", "))
	}
	return best, nil
}

// List returns every pack sorted by id, then by version ascending.
func (c *Catalog) List() []*protocol.ScenarioPack {
	var out []*protocol.ScenarioPack
	for _, id := range c.ids() {
		out = append(out, sortedVersions(c.packs[id])...)
	}
	return out
}

func (c *Catalog) ids() []string {
	return protocol.SortedKeys(c.packs)
}

func sortedVersions(m map[string]*protocol.ScenarioPack) []*protocol.ScenarioPack {
	out := make([]*protocol.ScenarioPack, 0, len(m))
	for _, p := range m {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool {
		a, _ := ParseVersion(out[i].Version)
		b, _ := ParseVersion(out[j].Version)
		return a.Compare(b) < 0
	})
	return out
}

// LoadDir loads user packs from dir: either a pack directory itself (it
// holds pack.yaml) or a directory whose subdirectories are packs. Every
// problem of every pack is reported at once.
func LoadDir(dir string) (*Catalog, error) {
	info, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("load scenario packs from %s: %w; pass a pack directory or a directory of packs", dir, err)
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("load scenario packs from %s: not a directory; pass a pack directory or a directory of packs", dir)
	}
	clean := filepath.Clean(dir)
	return loadTree(os.DirFS(clean), filepath.ToSlash(clean), filepath.ToSlash(clean))
}

// loadTree loads the packs of fsys: the root itself when it holds pack.yaml,
// otherwise every subdirectory that does. source labels the root.
func loadTree(fsys fs.FS, source, prefix string) (*Catalog, error) {
	cat := NewCatalog()
	if _, err := fs.Stat(fsys, PackFile); err == nil {
		p, err := load(fsys, source, prefix)
		if err != nil {
			return nil, err
		}
		if err := cat.Add(p); err != nil {
			return nil, err
		}
		return cat, nil
	}
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, fmt.Errorf("load scenario packs from %s: %w", source, err)
	}
	var problems Problems
	var errs []error
	found := 0
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		sub, err := fs.Sub(fsys, e.Name())
		if err != nil {
			return nil, fmt.Errorf("load scenario pack %s/%s: %w", source, e.Name(), err)
		}
		if _, err := fs.Stat(sub, PackFile); err != nil {
			problems = append(problems, Problem{File: path.Join(prefix, e.Name()), Message: "directory has no pack.yaml; every subdirectory of a pack directory must be a pack"})
			continue
		}
		found++
		p, err := load(sub, path.Join(source, e.Name()), path.Join(prefix, e.Name()))
		var ps Problems
		switch {
		case errors.As(err, &ps):
			problems = append(problems, ps...)
		case err != nil:
			errs = append(errs, err)
		default:
			if err := cat.Add(p); err != nil {
				errs = append(errs, err)
			}
		}
	}
	if found == 0 && len(problems) == 0 {
		return nil, fmt.Errorf("load scenario packs from %s: no pack.yaml in it nor in its subdirectories", source)
	}
	if len(problems) > 0 {
		problems.Sort()
		errs = append([]error{problems}, errs...)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return cat, nil
}
