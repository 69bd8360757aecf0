package providers

import "strings"

// IDs names every agent, in the list's order: "claude, codex, …", for the
// message that refuses one that is not there.
func IDs() string {
	var ids []string
	for _, p := range All() {
		ids = append(ids, p.ID())
	}
	return strings.Join(ids, ", ")
}
