package claude

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agwatch/ag/providers/internal/hookjson"
	"github.com/agwatch/ag/providers/provider"
)

// Claude runs one statusLine command. ag's install wraps the one the user
// had instead of replacing it ("only one statusLine wins", and installers
// that overwrote it lost users' lines): the command becomes
//
//	'<ag-hook>' statusline --then '<the old command>'
//
// so the old command keeps printing the line, and uninstall reads it back
// out of ours, byte for byte. Every other member of the statusLine object
// (padding, refreshInterval, ...) is kept.

// statusLineKey is the settings.json member.
const statusLineKey = "statusLine"

var _ provider.StatusLiner = (*Provider)(nil)

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

// statusLineObject reads the statusLine value: its members, the command
// and whether it is a command at all.
func statusLineObject(raw json.RawMessage) (members []hookjson.Member, command string, err error) {
	if raw == nil || string(bytes.TrimSpace(raw)) == "null" {
		return nil, "", nil
	}
	members, err = hookjson.Members(raw)
	if err != nil {
		return nil, "", fmt.Errorf("%q is not an object", statusLineKey)
	}
	for _, m := range members {
		switch m.Key {
		case "type":
			var typ string
			if json.Unmarshal(m.Raw, &typ) != nil || typ != "command" {
				return nil, "", fmt.Errorf("%s.type is %s, not \"command\"", statusLineKey, m.Raw)
			}
		case "command":
			if json.Unmarshal(m.Raw, &command) != nil {
				return nil, "", fmt.Errorf("%s.command is not a string", statusLineKey)
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

// InstallStatusLine makes settings.json's statusLine run ag-hook
// statusline, passing on to the command that was there. Installing again
// only repairs the ag-hook path: the old command is never wrapped twice.
func (p *Provider) InstallStatusLine(ie provider.InstallEnv) (provider.InstallResult, error) {
	return hookjson.EditMember(ie, p.ConfigPath(ie.Env), statusLineKey, func(old json.RawMessage) (json.RawMessage, []string, error) {
		members, command, err := statusLineObject(old)
		if err != nil {
			return nil, nil, err
		}
		then, rest := command, []string(nil)
		if ours, _, t, r := ourStatusLine(command); ours {
			then, rest = t, r
		}
		want := statusLineCommand(ie.Hook, then, rest)
		if command == want {
			return nil, nil, nil
		}
		members = setMember(members, "type", hookjson.String("command"))
		members = setMember(members, "command", hookjson.String(want))
		action := "+ statusLine: " + want
		if command != "" {
			action = "~ statusLine: " + command + " → " + want
		}
		return hookjson.Object(members), []string{action}, nil
	})
}

// UninstallStatusLine gives back the statusLine command ag wrapped, exactly,
// or removes the statusLine ag added where there was none.
func (p *Provider) UninstallStatusLine(ie provider.InstallEnv) (provider.InstallResult, error) {
	return hookjson.EditMember(ie, p.ConfigPath(ie.Env), statusLineKey, func(old json.RawMessage) (json.RawMessage, []string, error) {
		members, command, err := statusLineObject(old)
		if err != nil {
			return nil, nil, err
		}
		ours, _, then, _ := ourStatusLine(command)
		if !ours {
			return nil, nil, nil
		}
		if then == "" {
			return nil, []string{"- statusLine: " + command}, nil
		}
		members = setMember(members, "command", hookjson.String(then))
		return hookjson.Object(members), []string{"~ statusLine: " + command + " → " + then}, nil
	})
}

// StatusLineStatus reads the statusLine: Installed when it runs this
// ag-hook, NeedsRepair when it runs another (or a missing) one, else
// NotInstalled. Reasons say what it runs and what it passes on to.
func (p *Provider) StatusLineStatus(ie provider.InstallEnv) (provider.InstallStatus, error) {
	path := p.ConfigPath(ie.Env)
	st := provider.InstallStatus{Path: path}
	raw, err := hookjson.ReadMember(path, statusLineKey)
	if err != nil {
		return st, err
	}
	_, command, err := statusLineObject(raw)
	if err != nil {
		st.Reasons = []string{err.Error()}
		return st, nil
	}
	ours, hook, then, _ := ourStatusLine(command)
	switch {
	case command == "":
		st.Reasons = []string{"no statusLine"}
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
