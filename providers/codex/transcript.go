package codex

import "github.com/agwatch/ag/providers/provider"

var (
	_ provider.Transcripts       = (*Provider)(nil)
	_ provider.TranscriptDrainer = (*Rollout)(nil)
)

// TranscriptRoots: $CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl. Codex
// holds each rollout open and appends through it, which macOS file events
// miss: followers poll these.
func (*Provider) TranscriptRoots(env provider.Env) []provider.Root {
	return []provider.Root{{
		Dir:       SessionsDir(env),
		Globs:     []string{"[0-9][0-9][0-9][0-9]/[0-9][0-9]/[0-9][0-9]/rollout-*.jsonl"},
		NeedsPoll: HoldsLogOpen,
	}}
}

// NewTranscriptParser returns the parser for one rollout.
func (*Provider) NewTranscriptParser(path string) provider.TranscriptParser {
	return NewRollout(path)
}
