// Package gemini is the Gemini CLI provider: hook install into
// settings.json, chat transcripts (JSONL, and the whole-file JSON older
// versions rewrote in place), the context windows, detection data, key
// maps and resume/spawn templates. The hook payload mapping is in
// geminihook, which ag-hook links alone.
//
// Gemini keeps everything in ~/.gemini: settings.json, and one chat file
// per session in tmp/<project>/chats/. $GEMINI_CLI_HOME stands in for the
// home directory (Gemini's own homedir(): the folder is then
// $GEMINI_CLI_HOME/.gemini).
package gemini

import (
	"path/filepath"

	"github.com/agwatch/ag/filters/paths"
	"github.com/agwatch/ag/providers/gemini/geminihook"
)

// ID is Gemini CLI's agent id in events.
const ID = geminihook.ID

// Provider is Gemini CLI.
type Provider struct{}

// New returns the Gemini CLI provider.
func New() *Provider { return &Provider{} }

func (*Provider) ID() string   { return ID }
func (*Provider) Name() string { return "Gemini CLI" }

// OneSessionPerProcess: a gemini process runs one chat at a time; /clear
// and /resume move it to another session.
func (*Provider) OneSessionPerProcess() bool { return true }

// HookEndsTurns: AfterAgent ends every turn but a denied one (whose end
// the chat records as cancelled); the chat's own end of a turn is a guess,
// an answer that may still make tool calls.
func (*Provider) HookEndsTurns() bool { return true }

// Dir is Gemini's folder: $GEMINI_CLI_HOME/.gemini, else ~/.gemini.
func Dir(env paths.Env) string {
	h := env("GEMINI_CLI_HOME")
	if h == "" {
		h = paths.Home(env)
	}
	return filepath.Join(h, ".gemini")
}

// SettingsFile is the user settings.json Gemini reads its hooks from.
func SettingsFile(env paths.Env) string { return filepath.Join(Dir(env), "settings.json") }

// TmpDir holds a folder per project, each with its chats/.
func TmpDir(env paths.Env) string { return filepath.Join(Dir(env), "tmp") }
