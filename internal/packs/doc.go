// Package packs reads scenario packs: the pack.yaml contract, the plan
// templates, the job library and the scripts of one pack directory. It
// validates a pack as a whole and reports every problem it finds at once,
// each with the file, line and field it concerns. A Catalog holds the
// builtin packs embedded in the provider and the packs of user directories,
// by id and semantic version.
//
// The format is described in README.md beside this file.
package packs
