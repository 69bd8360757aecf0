package antigravity

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"

	"github.com/agwatch/ag/providers/antigravity/agyhook"
	"github.com/agwatch/ag/providers/internal/hookjson"
	"github.com/agwatch/ag/providers/provider"
)

// Name is ag's entry in hooks.json. Its top-level keys are hook names;
// ag owns exactly this one and keeps every other key as it is. Names are
// deduplicated across files, last one wins: another hooks file with an
// "ag" entry would shadow this one.
const Name = "ag"

// HookTimeout is each handler's timeout in seconds (agy's default is 30).
const HookTimeout = 10

var _ provider.Installer = (*Provider)(nil)

// ConfigPath is ~/.gemini/config/hooks.json.
func (*Provider) ConfigPath(env provider.Env) string { return HooksFile(env) }

type handler struct {
	Type    string `json:"type"`
	Command string `json:"command"`
	Timeout int    `json:"timeout"`
}

// want is ag's entry for the ag-hook at hook.
func want(hook string) json.RawMessage {
	h := handler{Type: "command", Command: hookjson.Quote(hook) + " " + ID, Timeout: HookTimeout}
	var b bytes.Buffer
	b.WriteByte('{')
	for i, ev := range agyhook.Hooks {
		if i > 0 {
			b.WriteByte(',')
		}
		hb, _ := json.Marshal([]handler{h})
		fmt.Fprintf(&b, "%q:%s", ev, hb)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// Install writes ag's entry (replacing an old one of ours).
func (p *Provider) Install(ie provider.InstallEnv) (provider.InstallResult, error) {
	w := want(ie.Hook)
	return hookjson.EditMember(ie, p.ConfigPath(ie.Env), Name, func(old json.RawMessage) (json.RawMessage, []string, error) {
		if old != nil {
			if err := ours(old); err != nil {
				return nil, nil, err
			}
			if same(old, w) {
				return nil, nil, nil
			}
			return w, []string{"~ " + Name + ": " + hookjson.Quote(ie.Hook) + " " + ID}, nil
		}
		return w, []string{"+ " + Name + ": " + hookjson.Quote(ie.Hook) + " " + ID + " on " + fmt.Sprint(agyhook.Hooks)}, nil
	})
}

// Uninstall removes ag's entry and nothing else.
func (p *Provider) Uninstall(ie provider.InstallEnv) (provider.InstallResult, error) {
	return hookjson.EditMember(ie, p.ConfigPath(ie.Env), Name, func(old json.RawMessage) (json.RawMessage, []string, error) {
		if old == nil {
			return nil, nil, nil
		}
		if err := ours(old); err != nil {
			return nil, nil, err
		}
		return nil, []string{"- " + Name}, nil
	})
}

// Status reads the entry: absent, exactly what install writes, or ours
// but different (the reasons say how).
func (p *Provider) Status(ie provider.InstallEnv) (provider.InstallStatus, error) {
	path := p.ConfigPath(ie.Env)
	st := provider.InstallStatus{Path: path}
	old, err := hookjson.ReadMember(path, Name)
	if err != nil || old == nil {
		return st, err
	}
	if same(old, want(ie.Hook)) {
		st.State = provider.Installed
		return st, nil
	}
	st.State = provider.NeedsRepair
	var got map[string][]handler
	if json.Unmarshal(old, &got) != nil {
		st.Reasons = []string{Name + ": not an object of event handlers"}
		return st, nil
	}
	cmd := hookjson.Quote(ie.Hook) + " " + ID
	for _, ev := range agyhook.Hooks {
		switch hs := got[ev]; {
		case len(hs) == 0:
			st.Reasons = append(st.Reasons, ev+": missing")
		case len(hs) > 1:
			st.Reasons = append(st.Reasons, fmt.Sprintf("%s: %d handlers", ev, len(hs)))
		case hs[0].Command != cmd:
			st.Reasons = append(st.Reasons, fmt.Sprintf("%s: runs %s, want %s", ev, hs[0].Command, cmd))
		case hs[0] != (handler{"command", cmd, HookTimeout}):
			st.Reasons = append(st.Reasons, ev+": hand-edited")
		}
	}
	var extra []string
	for ev := range got {
		if !slices.Contains(agyhook.Hooks, ev) {
			extra = append(extra, ev)
		}
	}
	sort.Strings(extra)
	for _, ev := range extra {
		why := ": not an event ag hooks"
		if ev == "PreToolUse" {
			why = ": registered, and agy denies every tool call a hook answers {} to there"
		}
		st.Reasons = append(st.Reasons, ev+why)
	}
	if len(st.Reasons) == 0 {
		st.Reasons = []string{Name + ": hand-edited"}
	}
	return st, nil
}

// ours refuses an "ag" entry that is not ag's: one whose handlers run
// something else is the user's, and install will not overwrite it.
func ours(raw json.RawMessage) error {
	var got map[string][]handler
	if json.Unmarshal(raw, &got) != nil {
		return errors.New(`the "ag" entry is not ag's (not an object of handler lists)`)
	}
	owned := hookjson.OwnedBy("ag-hook", ID)
	for ev, hs := range got {
		for _, h := range hs {
			if !owned(h.Command, nil) {
				return fmt.Errorf(`the "ag" entry is not ag's: %s runs %q`, ev, h.Command)
			}
		}
	}
	return nil
}

// same compares two entries' meaning.
func same(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}
