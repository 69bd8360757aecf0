package codex

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/agwatch/ag/providers/codex/codexhook"
	"github.com/agwatch/ag/providers/configtx"
	"github.com/agwatch/ag/providers/internal/hookjson"
	"github.com/agwatch/ag/providers/provider"
)

// HookTimeout is the timeout (seconds) install gives each handler; ag-hook
// takes milliseconds. Codex clamps SessionEnd handlers to 3 s and lists a
// warning in /hooks for anything longer.
const HookTimeout = 3

// TrustHow is how the user trusts ag's hooks, which Codex skips until
// someone has reviewed them; TrustHint says why first, for install.
const (
	TrustHow  = "start codex, type /hooks, open each event and trust the ag-hook entry (or run codex --dangerously-bypass-hook-trust)"
	TrustHint = "Codex runs new hooks only after you trust them: " + TrustHow
)

var _ provider.Installer = (*Provider)(nil)

// hookEntries: every event Codex has that ag maps, no matchers (a Codex
// group without one matches every tool and source). Events an older Codex
// does not know are ignored by it (PermissionRequest needs 0.122).
func hookEntries() []hookjson.Entry {
	e := make([]hookjson.Entry, len(codexhook.Hooks))
	for i, h := range codexhook.Hooks {
		e[i] = hookjson.Entry{Event: h}
	}
	return e
}

// ConfigPath is the hooks.json install edits; the feature flag goes in
// config.toml beside it.
func (*Provider) ConfigPath(env provider.Env) string { return HooksFile(env) }

// spec is the install for the ag-hook at hook. Codex runs the command
// through a shell, so the path is single-quoted.
func (*Provider) spec(hook string) *hookjson.Spec {
	return &hookjson.Spec{
		Entries: hookEntries(),
		Command: hookjson.Quote(hook) + " " + ID,
		Timeout: HookTimeout,
		Owns:    hookjson.OwnedBy("ag-hook", ID),
	}
}

// Install adds ag's hooks to hooks.json and turns the hooks feature on in
// config.toml, then reminds the user to trust the hooks. Both files go in
// one transaction: a file ag cannot edit leaves both unchanged.
func (p *Provider) Install(ie provider.InstallEnv) (provider.InstallResult, error) {
	return ie.Edit(func(tx *configtx.Tx) (provider.InstallResult, error) {
		in := ie
		in.Tx = tx
		flag, err := enableFlag(tx, ConfigFile(ie.Env))
		if err != nil {
			return provider.InstallResult{Path: HooksFile(ie.Env)}, err
		}
		res, err := hookjson.Install(in, HooksFile(ie.Env), p.spec(ie.Hook))
		if err != nil {
			return res, err
		}
		res.Actions = append(res.Actions, flag...)
		res.Changed = res.Changed || len(flag) > 0
		if len(res.Actions) > 0 {
			res.Actions = append(res.Actions, "! "+TrustHint)
		}
		return res, nil
	})
}

// Uninstall removes ag's hooks from hooks.json. The feature flag stays:
// the user may have turned it on for hooks of their own, and with no
// handlers it does nothing.
func (p *Provider) Uninstall(ie provider.InstallEnv) (provider.InstallResult, error) {
	return hookjson.Uninstall(ie, HooksFile(ie.Env), p.spec(ie.Hook))
}

// Status reads hooks.json, the feature flag and the trust Codex recorded.
// An install that is complete but not yet trusted stays Installed, with
// the reason saying so.
func (p *Provider) Status(ie provider.InstallEnv) (provider.InstallStatus, error) {
	st, err := hookjson.Status(HooksFile(ie.Env), p.spec(ie.Hook))
	if err != nil || st.State == provider.NotInstalled {
		return st, err
	}
	cfg, err := os.ReadFile(ConfigFile(ie.Env))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return st, err
	}
	flag, err := ReadHooksFlag(cfg)
	if err != nil {
		return st, fmt.Errorf("%s: %w", ConfigFile(ie.Env), err)
	}
	switch {
	case flag.Set && !flag.On():
		st.State = provider.NeedsRepair
		st.Reasons = append(st.Reasons, fmt.Sprintf("config.toml: [features] %s is off", flag.Key))
	case !flag.Set:
		st.State = provider.NeedsRepair
		st.Reasons = append(st.Reasons, "config.toml: no [features] hooks = true")
	}
	trust, err := HookTrust(ie.Env)
	if err != nil {
		return st, err
	}
	if n := trust.Untrusted(); n > 0 && st.State == provider.Installed {
		// Codex runs none of them: that is not an install that works.
		st.State = provider.Untrusted
		if n == len(trust) {
			st.Reasons = append(st.Reasons, fmt.Sprintf("Codex runs none of ag's %d hooks until you trust them", n))
		} else {
			st.Reasons = append(st.Reasons, fmt.Sprintf("Codex skips %d of ag's %d hooks until you trust them", n, len(trust)))
		}
		st.Hint = TrustHow
	}
	return st, nil
}

// enableFlag stages the hooks feature turned on in config.toml (creating
// the file if need be).
func enableFlag(tx *configtx.Tx, path string) ([]string, error) {
	old, _, err := tx.Read(path)
	if err != nil {
		return nil, err
	}
	out, changed, err := EnableHooksFlag(old)
	if err != nil {
		return nil, fmt.Errorf("%s: %w (left unchanged)", path, err)
	}
	if !changed {
		return nil, nil
	}
	st, _ := ReadHooksFlag(out)
	actions := []string{fmt.Sprintf("~ %s: [features] %s = true", path, st.Key)}
	if off, ok := TurnedOff(old); ok {
		// The user turned hooks off: say so, or their comment now lies
		// and their own hooks start running again unannounced.
		why := ""
		if off.Comment != "" {
			why = fmt.Sprintf(" (%q)", off.Comment)
		}
		actions = append(actions, fmt.Sprintf("! %s:%d: you had turned %s off%s; it is on now, so Codex runs your own hooks again too",
			path, off.Line, off.Key, why))
	}
	return actions, tx.Write(path, out)
}
