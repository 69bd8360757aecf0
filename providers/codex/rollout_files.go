package codex

import (
	"github.com/agwatch/ag/providers/provider"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/agwatch/ag/filters/paths"
)

// HoldsLogOpen: Codex keeps the rollout's descriptor open for the whole
// session and appends through it. macOS file events miss such appends, so a
// follower must also stat-poll Codex rollouts.
const HoldsLogOpen = true

// IsRollout reports whether path names a Codex rollout file.
func IsRollout(path string) bool {
	b := filepath.Base(path)
	return strings.HasPrefix(b, "rollout-") && strings.HasSuffix(b, ".jsonl")
}

// SessionFromPath is the thread id at the end of a rollout's file name
// (rollout-2026-11-30T02-16-40-<uuid>.jsonl), or "".
func SessionFromPath(path string) string {
	b, ok := strings.CutSuffix(filepath.Base(path), ".jsonl")
	if !ok || len(b) < 36 || !provider.IsUUID(b[len(b)-36:]) {
		return ""
	}
	return strings.ToLower(b[len(b)-36:])
}

// Rollouts lists the rollout files under $CODEX_HOME/sessions modified at
// or after since (zero: all), oldest first. Only day folders that can hold
// such files are read (a day of slack for time zones: the folders are
// named in local time).
func Rollouts(env paths.Env, since time.Time) ([]string, error) {
	root := SessionsDir(env)
	days, err := filepath.Glob(filepath.Join(root, "[0-9][0-9][0-9][0-9]", "[0-9][0-9]", "[0-9][0-9]"))
	if err != nil {
		return nil, err
	}
	cut := ""
	if !since.IsZero() {
		cut = since.Add(-24 * time.Hour).Format("2006/01/02")
	}
	type file struct {
		path string
		mod  time.Time
	}
	var files []file
	for _, d := range days {
		rel, _ := filepath.Rel(root, d)
		if cut != "" && filepath.ToSlash(rel) < cut {
			continue
		}
		ents, err := os.ReadDir(d)
		if err != nil {
			continue // a day folder removed under us
		}
		for _, e := range ents {
			if e.IsDir() || !IsRollout(e.Name()) {
				continue
			}
			info, err := e.Info()
			if err != nil || (!since.IsZero() && info.ModTime().Before(since)) {
				continue
			}
			files = append(files, file{filepath.Join(d, e.Name()), info.ModTime()})
		}
	}
	sort.Slice(files, func(i, j int) bool { return files[i].mod.Before(files[j].mod) })
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = f.path
	}
	return out, nil
}
