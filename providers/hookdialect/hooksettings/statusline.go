package hooksettings

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agwatch/ag/providers/hookdialect"
	"github.com/agwatch/ag/providers/internal/hookjson"
	"github.com/agwatch/ag/providers/provider"
)

// Claude Code runs one statusLine command (Qwen Code one ui.statusLine,
// fed the same JSON shape). ag's install wraps the one the user had
// instead of replacing it ("only one statusLine wins", and installers that
// overwrote it lost users' lines): the command becomes
//
//	'<ag-hook>' statusline [--agent qwen] --then '<the old command>'
//
// so the old command keeps printing the line, and uninstall reads it back
// out of ours, byte for byte. Every other member of the statusLine object
// (padding, refreshInterval, ...) is kept.

// StatusLine edits the statusLine command of D's agent, at the member
// path D.Install.StatusLine names, in the settings file Installer edits.
type StatusLine struct{ D *hookdialect.Dialect }

func (sl StatusLine) path(env provider.Env) string { return Installer{D: sl.D}.ConfigPath(env) }

func (sl StatusLine) format() hookjson.Format {
	return hookjson.Format{Comments: sl.D.Install.Comments, Settings: sl.D.Install.Settings}
}

// name is the member path as people write it: "ui.statusLine".
func (sl StatusLine) name() string { return strings.Join(sl.D.Install.StatusLine, ".") }

// args are the arguments ag's command must carry (StatusLineArgs) before
// the user's own, any --agent of theirs replaced.
func (sl StatusLine) args(rest []string) []string {
	want := sl.D.Install.StatusLineArgs
	if len(want) == 0 {
		return rest
	}
	out := slices.Clone(want)
	for i := 0; i < len(rest); i++ {
		switch {
		case rest[i] == "--agent" && i+1 < len(rest):
			i++
		case strings.HasPrefix(rest[i], "--agent="):
		default:
			out = append(out, rest[i])
		}
	}
	return out
}

// ourStatusLine reads a statusLine command: ours when it runs ag-hook's
// statusline command; then is its --then command ("" when none) and rest
// the other arguments, in order.
func ourStatusLine(command string) (ours bool, hook, then string, rest []string) {
	w := hookjson.Words(command)
	if len(w) < 2 || filepath.Base(w[0]) != "ag-hook" || w[1] != "statusline" {
		return false, "", "", nil
	}
	for i := 2; i < len(w); i++ {
		switch {
		case w[i] == "--then" && i+1 < len(w):
			then = w[i+1]
			i++
		case strings.HasPrefix(w[i], "--then="):
			then = strings.TrimPrefix(w[i], "--then=")
		default:
			rest = append(rest, w[i])
		}
	}
	return true, w[0], then, rest
}

// statusLineCommand is the command install writes.
func statusLineCommand(hook, then string, rest []string) string {
	var b strings.Builder
	b.WriteString(hookjson.Quote(hook) + " statusline")
	for _, a := range rest {
		b.WriteString(" " + shellWord(a))
	}
	if then != "" {
		b.WriteString(" --then " + hookjson.Quote(then))
	}
	return b.String()
}

// shellWord quotes a word only when the shell would read it differently.
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=@%+,") == "" {
		return s
	}
	return hookjson.Quote(s)
}

// statusLineObject reads the statusLine value (named name): its members,
// the command and whether it is a command at all.
func statusLineObject(name string, raw json.RawMessage) (members []hookjson.Member, command string, err error) {
	if raw == nil || string(bytes.TrimSpace(raw)) == "null" {
		return nil, "", nil
	}
	members, err = hookjson.Members(raw)
	if err != nil {
		return nil, "", fmt.Errorf("%q is not an object", name)
	}
	for _, m := range members {
		switch m.Key {
		case "type":
			var typ string
			if json.Unmarshal(m.Raw, &typ) != nil || typ != "command" {
				return nil, "", fmt.Errorf("%s.type is %s, not \"command\"", name, m.Raw)
			}
		case "command":
			if json.Unmarshal(m.Raw, &command) != nil {
				return nil, "", fmt.Errorf("%s.command is not a string", name)
			}
		}
	}
	return members, command, nil
}

// setMember sets key in members, appending it when missing.
func setMember(members []hookjson.Member, key string, raw json.RawMessage) []hookjson.Member {
	for i := range members {
		if members[i].Key == key {
			members[i].Raw = raw
			return members
		}
	}
	return append(members, hookjson.Member{Key: key, Raw: raw})
}

// edit rewrites the statusLine member through change, staged in ie's
// transaction: a top-level member in place; one inside an object ("ui")
// by rewriting that object, which is dropped when nothing is left in it.
func (sl StatusLine) edit(ie provider.InstallEnv, change func(old json.RawMessage) (json.RawMessage, []string, error)) (provider.InstallResult, error) {
	keys, f, path := sl.D.Install.StatusLine, sl.format(), sl.path(ie.Env)
	if len(keys) == 1 {
		return f.ReplaceMember(ie, path, keys[0], change)
	}
	return f.ReplaceMember(ie, path, keys[0], func(outer json.RawMessage) (json.RawMessage, []string, error) {
		return inside(strings.Join(keys[:1], "."), keys[1:], outer, change)
	})
}

// inside applies change to the member at keys within the object outer
// (named name).
func inside(name string, keys []string, outer json.RawMessage, change func(json.RawMessage) (json.RawMessage, []string, error)) (json.RawMessage, []string, error) {
	var members []hookjson.Member
	if outer != nil && string(bytes.TrimSpace(outer)) != "null" {
		var err error
		if members, err = hookjson.Members(outer); err != nil {
			return nil, nil, fmt.Errorf("%q is not an object", name)
		}
	}
	idx := slices.IndexFunc(members, func(m hookjson.Member) bool { return m.Key == keys[0] })
	var cur json.RawMessage
	if idx >= 0 {
		cur = members[idx].Raw
	}
	var val json.RawMessage
	var actions []string
	var err error
	if len(keys) == 1 {
		val, actions, err = change(cur)
	} else {
		val, actions, err = inside(name+"."+keys[0], keys[1:], cur, change)
	}
	if err != nil || len(actions) == 0 {
		return nil, actions, err
	}
	switch {
	case val == nil && idx >= 0:
		members = slices.Delete(members, idx, idx+1)
	case val != nil:
		members = setMember(members, keys[0], val)
	}
	if len(members) == 0 {
		return nil, actions, nil // an object only ag's member was in
	}
	return hookjson.Object(members), actions, nil
}

// read is the statusLine member's value, nil when missing.
func (sl StatusLine) read(env provider.Env) (json.RawMessage, error) {
	keys := sl.D.Install.StatusLine
	raw, err := sl.format().ReadMember(sl.path(env), keys[0])
	for _, k := range keys[1:] {
		if err != nil || raw == nil || string(bytes.TrimSpace(raw)) == "null" {
			return nil, err
		}
		members, merr := hookjson.Members(raw)
		if merr != nil {
			return nil, nil // not an object: no statusLine in it
		}
		raw = nil
		for _, m := range members {
			if m.Key == k {
				raw = m.Raw
			}
		}
	}
	return raw, err
}

// InstallStatusLine makes the statusLine run ag-hook statusline, passing
// on to the command that was there. Installing again only repairs the
// ag-hook path: the old command is never wrapped twice.
func (sl StatusLine) InstallStatusLine(ie provider.InstallEnv) (provider.InstallResult, error) {
	name := sl.name()
	return sl.edit(ie, func(old json.RawMessage) (json.RawMessage, []string, error) {
		members, command, err := statusLineObject(name, old)
		if err != nil {
			return nil, nil, err
		}
		then, rest := command, []string(nil)
		if ours, _, t, r := ourStatusLine(command); ours {
			then, rest = t, r
		}
		want := statusLineCommand(ie.Hook, then, sl.args(rest))
		if command == want {
			return nil, nil, nil
		}
		members = setMember(members, "type", hookjson.String("command"))
		members = setMember(members, "command", hookjson.String(want))
		action := "+ " + name + ": " + want
		if command != "" {
			action = "~ " + name + ": " + command + " → " + want
		}
		return hookjson.Object(members), []string{action}, nil
	})
}

// UninstallStatusLine gives back the statusLine command ag wrapped, exactly,
// or removes the statusLine ag added where there was none.
func (sl StatusLine) UninstallStatusLine(ie provider.InstallEnv) (provider.InstallResult, error) {
	name := sl.name()
	return sl.edit(ie, func(old json.RawMessage) (json.RawMessage, []string, error) {
		members, command, err := statusLineObject(name, old)
		if err != nil {
			return nil, nil, err
		}
		ours, _, then, _ := ourStatusLine(command)
		if !ours {
			return nil, nil, nil
		}
		if then == "" {
			return nil, []string{"- " + name + ": " + command}, nil
		}
		members = setMember(members, "command", hookjson.String(then))
		return hookjson.Object(members), []string{"~ " + name + ": " + command + " → " + then}, nil
	})
}

// StatusLineStatus reads the statusLine: Installed when it runs this
// ag-hook, NeedsRepair when it runs another (or a missing) one, else
// NotInstalled. Reasons say what it runs and what it passes on to.
func (sl StatusLine) StatusLineStatus(ie provider.InstallEnv) (provider.InstallStatus, error) {
	st := provider.InstallStatus{Path: sl.path(ie.Env)}
	raw, err := sl.read(ie.Env)
	if err != nil {
		return st, err
	}
	name := sl.name()
	_, command, err := statusLineObject(name, raw)
	if err != nil {
		st.Reasons = []string{err.Error()}
		return st, nil
	}
	ours, hook, then, _ := ourStatusLine(command)
	switch {
	case command == "":
		st.Reasons = []string{"no " + name}
	case !ours:
		st.Reasons = []string{"runs " + command}
	default:
		st.State = provider.Installed
		if hook != ie.Hook {
			st.State = provider.NeedsRepair
			why := "runs " + hook
			if fi, err := os.Stat(hook); err != nil || fi.IsDir() {
				why += " (missing)"
			}
			st.Reasons = append(st.Reasons, why+", want "+ie.Hook)
		}
		if then != "" {
			st.Reasons = append(st.Reasons, "then "+then)
		}
	}
	return st, nil
}
