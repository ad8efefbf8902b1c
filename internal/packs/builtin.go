package packs

import (
	"embed"
	"fmt"
	"io/fs"
)

// builtinFS holds the packs shipped with the provider, one directory each.
//
//go:embed all:builtin
var builtinFS embed.FS

// BuiltinSource is ScenarioPack.Source prefix of the embedded packs.
const BuiltinSource = "builtin"

// LoadBuiltin loads the packs embedded in the provider.
func LoadBuiltin() (*Catalog, error) {
	sub, err := fs.Sub(builtinFS, "builtin")
	if err != nil {
		return nil, fmt.Errorf("open builtin scenario packs: %w", err)
	}
	cat, err := loadTree(sub, BuiltinSource, BuiltinSource)
	if err != nil {
		return nil, fmt.Errorf("builtin scenario packs are invalid (a bug in the provider build): %w", err)
	}
	return cat, nil
}
