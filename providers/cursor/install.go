package cursor

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/agwatch/ag/providers/cursor/cursorhook"
	"github.com/agwatch/ag/providers/internal/flathooks"
	"github.com/agwatch/ag/providers/internal/hookjson"
	"github.com/agwatch/ag/providers/provider"
)

var _ provider.Installer = (*Provider)(nil)

// MinVersion is the first cursor-agent that runs hooks (2026.1.16): an
// older one ignores hooks.json, silently.
var MinVersion = [3]int{2026, 1, 16}

// ConfigPath is ~/.cursor/hooks.json.
func (*Provider) ConfigPath(env provider.Env) string { return HooksFile(env) }

// spec is the install for the ag-hook at hook: `'<ag-hook>' cursor` on
// every event (Cursor's payloads name their event), run by zsh, so the
// path is single-quoted. No timeout: Cursor's default bounds a wedged disk.
func (*Provider) spec(hook string) *flathooks.Spec {
	cmd := hookjson.Quote(hook) + " " + ID
	return &flathooks.Spec{
		Events:  cursorhook.Hooks,
		Command: "command",
		Want:    func(string) []hookjson.Member { return []hookjson.Member{{Key: "command", Raw: hookjson.String(cmd)}} },
		Owns: func(command, _ string) bool {
			w := hookjson.Words(command)
			return len(w) == 2 && filepath.Base(w[0]) == "ag-hook" && w[1] == ID
		},
		Defaults: []hookjson.Member{version},
	}
}

// version is what Cursor's hooks.json must say at its top.
var version = hookjson.Member{Key: "version", Raw: json.RawMessage("1")}

// Install adds ag's hooks to hooks.json (with "version": 1 when it has
// none; the user's is kept), and says so when the cursor-agent on PATH is
// too old to run them.
func (p *Provider) Install(ie provider.InstallEnv) (provider.InstallResult, error) {
	res, err := flathooks.Install(ie, HooksFile(ie.Env), p.spec(ie.Hook), version)
	if err == nil {
		if w := versionWarning(ie.Env); w != "" {
			res.Actions = append(res.Actions, "! "+w)
		}
	}
	return res, err
}

// Uninstall removes ag's hooks from hooks.json; "version" and everything
// else stay.
func (p *Provider) Uninstall(ie provider.InstallEnv) (provider.InstallResult, error) {
	return flathooks.Uninstall(ie, HooksFile(ie.Env), p.spec(ie.Hook))
}

// Status reads hooks.json; a cursor-agent too old for hooks is a reason.
func (p *Provider) Status(ie provider.InstallEnv) (provider.InstallStatus, error) {
	st, err := flathooks.Status(HooksFile(ie.Env), p.spec(ie.Hook))
	if err == nil && st.State != provider.NotInstalled {
		if w := versionWarning(ie.Env); w != "" {
			st.Reasons = append(st.Reasons, w)
		}
	}
	return st, err
}

// versionWarning says why hooks will not run when the cursor-agent (or
// agent) first on $PATH is older than MinVersion; "" when it is new
// enough, not found, or says no version it can read.
func versionWarning(env provider.Env) string {
	bin := lookPath(env("PATH"), "cursor-agent", "agent")
	if bin == "" {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--version")
	cmd.Stdin = nil
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	v, ok := ParseVersion(string(out))
	if !ok || !Older(v, MinVersion) {
		return ""
	}
	return fmt.Sprintf("%s is %d.%d.%d: cursor-agent runs hooks only from %d.%d.%d on (older ones ignore hooks.json); update it (cursor-agent update)",
		bin, v[0], v[1], v[2], MinVersion[0], MinVersion[1], MinVersion[2])
}

// lookPath finds the first of names in the directories of path.
func lookPath(path string, names ...string) string {
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			continue
		}
		for _, n := range names {
			p := filepath.Join(dir, n)
			if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
				return p
			}
		}
	}
	return ""
}

var versionRe = regexp.MustCompile(`\b(20\d\d)\.(\d{1,2})\.(\d{1,2})\b`)

// ParseVersion reads a cursor-agent version ("2026.07.01-41b2de7",
// "2026.1.16") out of its --version output.
func ParseVersion(s string) ([3]int, bool) {
	m := versionRe.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return [3]int{}, false
	}
	var v [3]int
	for i := range v {
		v[i], _ = strconv.Atoi(m[i+1])
	}
	return v, true
}

// Older reports whether a comes before b.
func Older(a, b [3]int) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}
