package provider

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agwatch/ag/filters/shquote"
)

// Commands are the command lines that start an agent, as data: templates in
// sh syntax with placeholders, parsed and quote-checked by filters/shquote.
//
//	{bin}    the launcher (inert: must be a plain word)
//	{prompt} an initial prompt (must sit in single quotes)
//	{id}     a session id (must sit in single quotes)
//	{path}   a transcript path (must sit in single quotes)
//
// An empty template means the agent has no such command, and ag refuses
// rather than guessing (a print/one-shot flag would "work" and exit).
type Commands struct {
	Bin       string // default launcher: "claude"
	Resume    string // "{bin} --resume '{id}'"
	Spawn     string // interactive with an initial prompt: "{bin} '{prompt}'"
	Fork      string // new session id, same history: "{bin} --resume '{path}' --fork-session", or by {id}
	ModelFlag string // "--model"; after the launcher, or appended on a resume
}

// Commanded is a provider ag-keys can resume, spawn and fork.
type Commanded interface {
	Provider
	Commands() Commands
}

// Limits on what goes into a command line.
const (
	MaxSessionID = 128     // session ids are uuids (36) in practice
	MaxPrompt    = 1 << 16 // a prompt typed into a shell line
)

// placeholders are the names a command template may hold and how each must
// be quoted (a function, not a map variable: every program links this
// package, and a hook run should not build the map at start-up).
func placeholders() map[string]shquote.Kind {
	return map[string]shquote.Kind{"bin": shquote.Inert, "prompt": shquote.Quoted, "id": shquote.Quoted, "path": shquote.Quoted}
}

// Launch is what to build a command from. Bin overrides Commands.Bin.
type Launch struct {
	Bin, Model string
}

// ResumeCommand is the line that resumes session id in a shell: the id is
// length-checked, refused if it holds control characters, and single-quoted.
// It starts with "command " so a shell alias or function of the same name
// is not what runs.
func (c Commands) ResumeCommand(id string, l Launch) (string, error) {
	if err := CheckSessionID(id); err != nil {
		return "", err
	}
	return c.build("resume", c.Resume, "id", map[string]string{"id": id}, l, true)
}

// SpawnCommand is the line that starts an interactive session with prompt
// already submitted.
func (c Commands) SpawnCommand(prompt string, l Launch) (string, error) {
	switch {
	case prompt == "":
		return "", errors.New("empty prompt")
	case len(prompt) > MaxPrompt:
		return "", fmt.Errorf("prompt longer than %d bytes", MaxPrompt)
	case prompt[0] == '-':
		// Quoting keeps it one word, but the agent would still parse
		// "--dangerously-skip-permissions" as an option.
		return "", errors.New("prompt starts with - (the agent would read an option)")
	}
	return c.build("spawn", c.Spawn, "prompt", map[string]string{"prompt": prompt}, l, false)
}

// ForkCommand is the line that starts a new session continuing the history
// in transcript path (absolute; the caller checks it is readable).
func (c Commands) ForkCommand(path string, l Launch) (string, error) {
	switch {
	case !strings.HasPrefix(path, "/"):
		return "", fmt.Errorf("transcript %q is not an absolute path", path)
	case !strings.HasSuffix(path, ".jsonl"):
		return "", fmt.Errorf("transcript %q is not a .jsonl file", path)
	case hasControl(path):
		return "", fmt.Errorf("transcript %q has control characters", path)
	}
	if strings.Contains(c.Fork, "{id}") {
		// An agent whose fork names the session (Qwen Code, Droid): its
		// transcript is <session>.jsonl.
		id := strings.TrimSuffix(path[strings.LastIndexByte(path, '/')+1:], ".jsonl")
		if err := CheckSessionID(id); err != nil {
			return "", err
		}
		return c.build("fork", c.Fork, "id", map[string]string{"id": id}, l, false)
	}
	return c.build("fork", c.Fork, "path", map[string]string{"path": path}, l, false)
}

// ForksByID reports whether Fork names the source by its session id
// (Kilo: `kilo -s '{id}' --fork`, its sessions being rows of a database)
// rather than by its transcript's path.
func (c Commands) ForksByID() bool { return strings.Contains(c.Fork, "{id}") }

// ForkIDCommand is the line that starts a new session continuing session
// id's history, for a Fork that takes {id}.
func (c Commands) ForkIDCommand(id string, l Launch) (string, error) {
	if err := CheckSessionID(id); err != nil {
		return "", err
	}
	return c.build("fork", c.Fork, "id", map[string]string{"id": id}, l, false)
}

func (c Commands) build(what, tmpl, required string, vals map[string]string, l Launch, appendModel bool) (string, error) {
	if tmpl == "" {
		return "", fmt.Errorf("agent has no %s command", what)
	}
	t, err := shquote.Parse(tmpl, placeholders(), required)
	if err != nil {
		return "", err
	}
	bin := l.Bin
	if bin == "" {
		bin = c.Bin
	}
	if err := shquote.CheckWord(bin); err != nil {
		return "", fmt.Errorf("launcher: %w", err)
	}
	var model string
	if l.Model != "" {
		if c.ModelFlag == "" {
			return "", errors.New("agent has no model flag")
		}
		if err := shquote.CheckWord(l.Model); err != nil {
			return "", fmt.Errorf("model: %w", err)
		}
		model = c.ModelFlag + " " + l.Model
	}
	vals["bin"] = bin
	if model != "" && !appendModel {
		if !t.Has("bin") {
			return "", errors.New("the template has no {bin} to put the model flag after")
		}
		// Spliced right after the launcher: claude --model opus 'prompt'.
		vals["bin"] = bin + " " + model
	}
	line, err := t.Expand(vals)
	if err != nil {
		return "", err
	}
	if model != "" && appendModel {
		line += " " + model // a resume takes it last: codex resume <id> --model m
	}
	return "command " + line, nil
}

// CheckSessionID refuses ids that are empty, too long, or hold control
// characters (a newline would submit half a command to the shell).
func CheckSessionID(id string) error {
	switch {
	case id == "":
		return errors.New("empty session id")
	case len(id) > MaxSessionID:
		return fmt.Errorf("session id longer than %d bytes", MaxSessionID)
	case !utf8.ValidString(id):
		return errors.New("session id is not valid UTF-8")
	case hasControl(id):
		return fmt.Errorf("session id %q has control characters", id)
	case id[0] == '-':
		return fmt.Errorf("session id %q starts with - (the agent would read an option)", id)
	}
	return nil
}

func hasControl(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return unicode.IsControl(r) || r == 0x2028 || r == 0x2029 })
}

// StartCommand is the line that starts a new interactive session with no
// prompt.
func (c Commands) StartCommand(l Launch) (string, error) {
	return c.build("start", "{bin}", "bin", map[string]string{}, l, false)
}
