package provider

import (
	"path"
	"strings"

	"github.com/agwatch/ag/filters/event"
)

// Transcripts is a provider whose agent writes append-only line-oriented
// transcripts (Claude Code's projects/*/*.jsonl, Codex's rollouts) that
// ag-tail discovers, follows and turns into events.
type Transcripts interface {
	Provider
	// TranscriptRoots says where to look given the environment. Roots that
	// do not exist yet are fine: a follower watches for them to appear.
	TranscriptRoots(env Env) []Root
	// NewTranscriptParser returns a parser for the file at path (one of the
	// files a root matched). It keeps the per-file state a line needs
	// (current prompt, open tools, seen message ids).
	NewTranscriptParser(path string) TranscriptParser
}

// Root is one directory tree of transcripts.
type Root struct {
	Dir string
	// Globs are slash-separated patterns relative to Dir, one path.Match
	// pattern per directory level ("*/*.jsonl", "*/*/subagents/agent-*.jsonl").
	Globs []string
	// NeedsPoll marks agents that append to a file they hold open in a way
	// some platforms' notifications miss (Codex rollouts); a follower then
	// also stats those files on a timer.
	NeedsPoll bool
}

// Match reports whether rel (slash-separated, relative to r.Dir) is a
// transcript (file) or a directory on the way to one (dir).
func (r Root) Match(rel string) (file, dir bool) {
	rel = strings.Trim(path.Clean("/"+rel), "/")
	if rel == "" {
		return false, true
	}
	segs := strings.Split(rel, "/")
	for _, g := range r.Globs {
		pat := strings.Split(g, "/")
		if len(segs) > len(pat) {
			continue
		}
		ok := true
		for i, s := range segs {
			if m, _ := path.Match(pat[i], s); !m {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		if len(segs) == len(pat) {
			file = true
		} else {
			dir = true
		}
	}
	return file, dir
}

// TranscriptParser turns one transcript's lines into events, in order.
// Lines are whole (no trailing newline); a reader hands over a line only
// once its newline was written, so a partial last line is never parsed.
type TranscriptParser interface {
	// Parse handles one line. It calls emit for every event the line
	// yields (the event is reused after emit returns). A line that carries
	// nothing of interest returns nil; only a line that is not valid JSON
	// where the parser needed to read it returns an error, which the
	// caller reports with file:line and goes on. line is valid only
	// during the call and must not be written to: it may be the reader's
	// buffer or a read-only mapping of the file that is gone once the
	// reader moves on.
	Parse(line []byte, emit func(*event.Event)) error
	// Reset forgets per-file state: the file was truncated or replaced and
	// will be read again from its start.
	Reset()
}

// TranscriptDrainer is a TranscriptParser that may hold events back until
// a later line completes them (Codex writes a turn's prompt after its
// start). A reader calls Drain once it has read all that was written so
// far — the end of the file with --once, each pause when following — and
// the parser emits what it holds.
type TranscriptDrainer interface {
	TranscriptParser
	Drain(emit func(*event.Event))
}

// WholeFileParser is a TranscriptParser for a transcript the agent
// rewrites whole, in place or by renaming a new copy over it (Gemini CLI's
// older chats/session-*.json: one JSON document, messages[] growing). A
// reader never hands it lines: it hands the whole file each time the file
// changed (ParseWhole), and keeps the same parser when a new copy replaces
// the file, because the parser — not the reader — knows what is new. The
// parser emits only what it has not emitted before (messages are upserted
// by id), so a rewrite that changes nothing emits nothing. Reset still
// means "forget everything": the file is a different conversation. data is
// the reader's buffer, valid only during the call. A reader that catches
// a file half rewritten (the parse fails) tries again shortly and reports
// the error only if the file stays that way.
type WholeFileParser interface {
	TranscriptParser
	ParseWhole(data []byte, emit func(*event.Event)) error
}

// MaxWholeFile bounds what a reader hands to ParseWhole; a larger file is
// reported once and skipped until it shrinks.
const MaxWholeFile = 64 << 20

// Stores is a provider whose agent keeps its sessions in a database rather
// than in transcripts (OpenCode's SQLite opencode.db). ag-tail reads each
// store once with --once, and with --follow again whenever one of its
// files changes (the database and its write-ahead log), and on a slow
// timer in case a change went unnoticed.
type Stores interface {
	Provider
	// StorePaths are the database files given the environment; they may
	// not exist yet (a follower waits for them to appear).
	StorePaths(env Env) []string
	// NewStoreReader opens nothing yet: the first Read does.
	NewStoreReader(path string) StoreReader
}

// StoreReader reads one store. It must never block or slow the agent's
// writers (read-only, no locks held between reads).
type StoreReader interface {
	// Read emits, in order, every event recorded since the last Read (all
	// of them the first time). A store that does not exist (yet) is no
	// error: Read returns nil and tries again next time.
	Read(emit func(*event.Event)) error
	// Watch lists the files whose change means new data: the database and
	// its -wal (and -shm) files.
	Watch() []string
	// Close releases the database.
	Close() error
}

// Checkpointer is a TranscriptParser (line or whole-file) or a StoreReader
// whose position can be saved, so a restarted `ag-tail --follow` goes on
// where it stopped instead of reading the history again. ag-tail saves
// the checkpoint with its cursor (beside the file's offset and identity)
// every few seconds while it follows, and restores it into a fresh parser
// or reader when it resumes.
//
// Without it, a line transcript is read again from its start with nothing
// emitted up to the saved offset (exact, but it costs a read of the whole
// file on every restart); a whole file that did not change is read again
// the same way, and one that changed while ag-tail was down, or a store,
// is read as if new: its events come again, and ag-fold counts their
// tokens twice. Whole-file parsers and store readers should implement it.
type Checkpointer interface {
	// Checkpoint returns what the parser or reader knows now — after the
	// last line, whole file or Read handed to it, and after Drain — that
	// a fresh one needs to handle what comes next exactly as this one
	// would: the open turn, open tool calls, the ids that may be seen
	// again (a store: its newest row read). Keep it small (a few KB at
	// most: it is rewritten every few seconds for every file); what only
	// dedups against events long past may be bounded. The format is the
	// provider's own; put a version in it.
	Checkpoint() ([]byte, error)
	// Restore puts a fresh parser or reader (no other call made yet) where
	// a Checkpoint left it. An error means the bytes are not usable (an
	// older format): ag-tail then reads the file or store from its start
	// with a fresh one and says nothing.
	Restore(state []byte) error
}
