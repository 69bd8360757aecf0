package copilot

import "github.com/agwatch/ag/providers/provider"

var (
	_ provider.Transcripts      = (*Provider)(nil)
	_ provider.TranscriptParser = (*Events)(nil)
)

// TranscriptRoots: $COPILOT_HOME/session-state/<uuid>/events.jsonl.
// Copilot appends a line and closes the file (it holds session.db open,
// not the log), so file events see every write.
func (*Provider) TranscriptRoots(env provider.Env) []provider.Root {
	return []provider.Root{{Dir: SessionsDir(env), Globs: []string{"*/events.jsonl"}}}
}

// NewTranscriptParser returns the parser for one session's events.jsonl.
func (*Provider) NewTranscriptParser(path string) provider.TranscriptParser {
	return NewEvents(path)
}
