// Package builtin holds the agent definitions ag ships, one ID.toml each,
// and nothing else: ag-hook reads a definition's [hooks] from here without
// linking the rest of providers/agentdef.
package builtin

import (
	"embed"
	"io/fs"
	"strings"
)

//go:embed *.toml
var files embed.FS

// IDs are the built-in definitions' agent ids, sorted.
func IDs() []string {
	entries, _ := fs.ReadDir(files, ".")
	ids := make([]string, 0, len(entries))
	for _, e := range entries {
		ids = append(ids, strings.TrimSuffix(e.Name(), ".toml"))
	}
	return ids
}

// Read is the built-in definition of id, false when there is none.
func Read(id string) ([]byte, bool) {
	data, err := files.ReadFile(id + ".toml")
	return data, err == nil
}

// Name is how a built-in definition is named in messages.
func Name(id string) string { return "builtin/" + id + ".toml" }
