package agentdef

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/agwatch/ag/filters/panes"
	"github.com/agwatch/ag/filters/shquote"
	"github.com/agwatch/ag/providers/hookdialect"
	"github.com/agwatch/ag/providers/provider"
)

// checker compiles one file's sections and collects what is wrong with
// them, each at its key's line: a definition is refused whole, and its
// author should see every fault at once.
type checker struct {
	file  string
	lines lines
	errs  []error
}

func (c *checker) fail(path, format string, a ...any) {
	c.errs = append(c.errs, &Error{File: c.file, Line: c.lines.at(path), Msg: path + ": " + fmt.Sprintf(format, a...)})
}

// re compiles a pattern of the definition, "" being none.
func (c *checker) re(path, pattern string) *regexp.Regexp {
	if pattern == "" {
		return nil
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		c.fail(path, "%v", strings.TrimPrefix(err.Error(), "error parsing regexp: "))
		return nil
	}
	return re
}

// must compiles a pattern that has to be there.
func (c *checker) must(path, pattern string) *regexp.Regexp {
	if pattern == "" {
		c.fail(path, "missing")
		return nil
	}
	return c.re(path, pattern)
}

// syntax are the shapes a definition's words must have, compiled when a
// definition is first read: every program links this package, and a
// prompt segment must not compile them at its start.
var syntax = sync.OnceValue(func() *shapes {
	re := regexp.MustCompile
	return &shapes{
		id:    re(`^[a-z][a-z0-9_-]{0,31}$`),
		state: re(`^[a-z0-9][a-z0-9_-]{0,39}$`),
		word:  re(`^[a-z0-9][a-z0-9._+-]*$`),
		flag:  re(`^--?[a-z0-9][a-z0-9-]*$`),
		// A tmux key name: a printable character, or a named key with
		// modifiers (C-c, M-Enter, S-Tab, F5, BTab …).
		key: re(`^(?:[CMS]-)*(?:[[:graph:]]|Enter|Escape|Tab|BTab|Space|BSpace|Up|Down|Left|Right|Home|End|PageUp|PageDown|PPage|NPage|PgUp|PgDn|Insert|Delete|IC|DC|F[1-9]|F1[0-2])$`),
		// A pattern that can match only from a line's start (after flags
		// such as (?i)).
		anchored: re(`^(?:\(\?[a-zA-Z]+\))*\^`),
	}
})

type shapes struct{ id, state, word, flag, key, anchored *regexp.Regexp }

// process is provider.ProcRules.
func (c *checker) process(p *Process) provider.ProcRules {
	r := provider.ProcRules{Names: p.Names, Prefixes: p.Prefixes, Paths: p.Paths, Not: p.Not, NotNames: p.NotNames,
		Runtimes: p.Runtimes, LauncherInterpreters: p.Launchers}
	lower := func(key string, list []string) {
		for i, s := range list {
			switch {
			case s == "":
				c.fail(key+"["+strconv.Itoa(i)+"]", "empty")
			case s != strings.ToLower(s):
				c.fail(key+"["+strconv.Itoa(i)+"]", "%q: processes are compared in lower case, write %q", s, strings.ToLower(s))
			}
		}
	}
	lower("process.names", p.Names)
	lower("process.prefixes", p.Prefixes)
	lower("process.paths", p.Paths)
	lower("process.not", p.Not)
	lower("process.not_names", p.NotNames)
	for i, n := range p.Names {
		if provider.IsOneOf(n, provider.Shells()) || provider.IsOneOf(n, provider.Wrappers()) || provider.IsOneOf(n, provider.Interpreters()) {
			c.fail("process.names["+strconv.Itoa(i)+"]", "%q is a shell, launcher or runtime ag looks through, not an agent: name what it runs (process.runtimes and the script's name)", n)
		}
	}
	for i, s := range p.Patterns {
		if re := c.re("process.patterns["+strconv.Itoa(i)+"]", s); re != nil {
			r.Patterns = append(r.Patterns, re)
		}
	}
	for i, s := range p.Runtimes {
		if !syntax().word.MatchString(s) {
			c.fail("process.runtimes["+strconv.Itoa(i)+"]", "%q is not a program's name", s)
		}
	}
	for i, s := range p.Launchers {
		if !slices.Contains(p.Runtimes, s) && !slices.Contains(provider.Interpreters(), s) {
			c.fail("process.launchers["+strconv.Itoa(i)+"]", "%q is neither in process.runtimes nor one of %s", s, strings.Join(provider.Interpreters(), ", "))
		}
	}
	if len(p.Names)+len(p.Prefixes)+len(p.Paths)+len(p.Patterns) == 0 {
		c.fail("process", "matches no process: give names, prefixes, paths or patterns")
	}
	return r
}

var kinds = map[string]panes.Kind{"wait": panes.Wait, "idle": panes.Idle, "busy": panes.Busy}

var attentions = []string{"permission", "question", "plan"}

// kind checks a state's kind and attention together.
func (c *checker) kind(path, kind, attention string) panes.Kind {
	k, ok := kinds[kind]
	switch {
	case !ok:
		c.fail(path+".kind", "%q is not wait, idle or busy", kind)
	case k == panes.Wait && !slices.Contains(attentions, attention):
		c.fail(path+".attention", "a wait needs attention permission, question or plan (got %q)", attention)
	case k != panes.Wait && attention != "":
		c.fail(path+".attention", "only a wait has an attention (this is %s)", kind)
	}
	return k
}

// screen is panes.Rules.
func (c *checker) screen(s *Screen) panes.Rules {
	r := panes.Rules{Lines: s.Lines, Turns: s.Turns == nil || *s.Turns}
	if s.Lines < 0 || s.Lines > 200 {
		c.fail("screen.lines", "%d: between 1 and 200 (0 means 40)", s.Lines)
	}
	names := map[string]bool{}
	name := func(path, n string) {
		switch {
		case !syntax().state.MatchString(n):
			c.fail(path+".name", "%q: a state's name is lower-case letters, digits, - and _", n)
		case names[n]:
			c.fail(path+".name", "%q is named twice", n)
		}
		names[n] = true
	}
	for i, t := range s.Titles {
		path := "screen.title[" + strconv.Itoa(i) + "]"
		name(path, t.Name)
		k := c.kind(path, t.Kind, t.Attention)
		if re := c.must(path+".match", t.Match); re != nil {
			r.Titles = append(r.Titles, panes.Title{Name: t.Name, Kind: k, Attention: t.Attention, Re: re})
		}
	}
	for i := range s.States {
		path := "screen.state[" + strconv.Itoa(i) + "]"
		name(path, s.States[i].Name)
		// Kept even when refused: the keys are checked against every
		// state the file names, so one fault is said once, not again as
		// keys that name no state.
		st, _ := c.state(path, &s.States[i])
		r.States = append(r.States, st)
	}
	if len(s.States)+len(s.Titles) == 0 {
		c.fail("screen", "no [[screen.state]] and no [[screen.title]]")
	}
	return r
}

// MaxBottom bounds a wait's Bottom: a dialog is drawn at the bottom of the
// screen, and a looser rule would take the same lines quoted higher up.
const MaxBottom = 15

func (c *checker) state(path string, s *State) (panes.State, bool) {
	n := len(c.errs)
	st := panes.State{Name: s.Name, Attention: s.Attention, Bottom: s.Bottom, Aside: s.Aside, Tool: s.Tool}
	st.Kind = c.kind(path, s.Kind, s.Attention)
	st.Anchor = c.must(path+".anchor", s.Anchor)
	for i, need := range s.Needs {
		if need == "" || need != strings.ToLower(need) {
			c.fail(path+".needs["+strconv.Itoa(i)+"]", "%q: needs are compared with the lower-cased screen, write them in lower case", need)
		}
	}
	st.Needs = s.Needs
	near := func(key string, list []Near) []panes.Near {
		var out []panes.Near
		for i, nr := range list {
			p := path + "." + key + "[" + strconv.Itoa(i) + "]"
			if nr.From > nr.To {
				c.fail(p, "from %d is below to %d: from is the first line (negative above the anchor), to the last", nr.From, nr.To)
			}
			if re := c.must(p+".match", nr.Match); re != nil {
				out = append(out, panes.Near{Re: re, From: nr.From, To: nr.To})
			}
		}
		return out
	}
	st.All, st.Any, st.None = near("all", s.All), near("any", s.Any), near("none", s.None)
	if s.Bottom < 0 {
		c.fail(path+".bottom", "%d: how many non-blank lines may follow the anchor, 0 for any", s.Bottom)
	}
	if st.Kind == panes.Wait {
		// The quoted-prose rule (doc/agent-definitions.md): a wait is the
		// dialog's structure at the bottom of the screen, never a phrase
		// the agent may also write in a reply.
		switch {
		case s.Anchor != "" && !syntax().anchored.MatchString(s.Anchor):
			c.fail(path+".anchor", "a wait's anchor must start with ^ (a whole line of the dialog, not a phrase anywhere)")
		case len(s.All) == 0:
			c.fail(path+".all", "a wait needs at least one other line of its dialog (all), not its anchor alone")
		case s.Bottom < 1 || s.Bottom > MaxBottom:
			c.fail(path+".bottom", "a wait must sit at the bottom of the screen: bottom between 1 and %d (got %d)", MaxBottom, s.Bottom)
		}
	}
	for i, t := range s.Tools {
		p := path + ".tools[" + strconv.Itoa(i) + "]"
		re := c.must(p+".match", t.Match)
		if re != nil && t.Tool == "" && re.NumSubexp() < 1 {
			c.fail(p+".match", "no tool given and no group to take it from")
		}
		if re != nil {
			st.Tools = append(st.Tools, panes.ToolLine{Re: re, Tool: t.Tool, Within: t.Within})
		}
	}
	if (s.Tool != "" || len(s.Tools) > 0) && st.Kind != panes.Wait {
		c.fail(path+".tool", "only a wait names a pending tool")
	}
	if t := s.Text; t != nil {
		p := path + ".text"
		tx := &panes.Text{Within: t.Within, Up: t.Up, Lines: t.Lines, Max: t.Max, Inline: t.Inline}
		tx.From = c.must(p+".start", t.Start)
		tx.Skip, tx.Stop, tx.Cut = c.re(p+".skip", t.Skip), c.re(p+".stop", t.Stop), c.re(p+".cut", t.Cut)
		tx.CutEnd = c.re(p+".cut_end", t.CutEnd)
		if t.Inline && tx.From != nil && tx.From.NumSubexp() < 1 {
			c.fail(p+".start", "inline takes the text from the start line's first group: it has none")
		}
		if t.Lines < 0 || t.Max < 0 || t.Within < 0 {
			c.fail(p, "lines, max and within are counts: not negative")
		}
		st.Text = tx
	}
	if rw := s.Rows; rw != nil {
		p := path + ".rows"
		st.Rows = &panes.Rows{Row: c.must(p+".row", rw.Row), Cursor: c.must(p+".cursor", rw.Cursor),
			Target: c.must(p+".target", rw.Target), Not: c.re(p+".not", rw.Not), Within: rw.Within}
		if rw.Within < 1 {
			c.fail(p+".within", "how many lines above the anchor the picker may start: at least 1")
		}
	}
	return st, len(c.errs) == n
}

// keys is provider.KeyMap, checked against the screen states it names.
func (c *checker) keys(k *Keys, states map[string]panes.State) provider.KeyMap {
	km := provider.KeyMap{Approve: k.Approve, Deny: k.Deny, PlanApprove: k.PlanApprove, PlanDeny: k.PlanDeny,
		SubDeny: k.SubDeny, SubDenyThen: k.SubDenyThen,
		FinishedPrelude: k.Reply, PermissionPrelude: k.PermissionReply, PlanPrelude: k.PlanReply, AnswerPrelude: k.Answer,
		AnswerRow: provider.RowKeys(k.AnswerRow), AnswerSubmit: k.AnswerSubmit, AnswerSubmitOn: k.AnswerSubmitOn, Fields: k.Fields, Input: k.Input, Unsent: k.Unsent, NoReply: k.NoReply,
		Paste: k.Paste, DefuseLeading: k.DefuseLeading}
	named := func(path string, list ...[]string) {
		for _, l := range list {
			for i, key := range l {
				if !syntax().key.MatchString(key) {
					c.fail(path+"["+strconv.Itoa(i)+"]", "%q is not a tmux key name (Enter, Escape, Tab, Up, C-c, y, 1 …)", key)
				}
			}
		}
	}
	named("keys.approve", k.Approve)
	named("keys.deny", k.Deny)
	named("keys.plan_approve", k.PlanApprove)
	named("keys.plan_deny", k.PlanDeny)
	named("keys.sub_deny", k.SubDeny)
	named("keys.reply", k.Reply)
	named("keys.permission_reply", k.PermissionReply)
	named("keys.plan_reply", k.PlanReply)
	named("keys.answer", k.Answer)
	named("keys.answer_submit", k.AnswerSubmit)
	waits := map[string]bool{}
	for _, st := range states {
		if st.Kind == panes.Wait {
			waits[st.Attention] = true
		}
	}
	need := func(path, attention string, given bool) {
		if given && !waits[attention] {
			c.fail(path, "no wait state with attention %s: these keys would never be typed", attention)
		}
	}
	need("keys.approve", "permission", len(k.Approve) > 0)
	need("keys.deny", "permission", len(k.Deny) > 0)
	need("keys.permission_reply", "permission", k.PermissionReply != nil)
	need("keys.plan_approve", "plan", len(k.PlanApprove) > 0)
	need("keys.plan_deny", "plan", len(k.PlanDeny) > 0)
	need("keys.plan_reply", "plan", k.PlanReply != nil)
	need("keys.answer", "question", k.Answer != nil)
	need("keys.answer_row", "question", k.AnswerRow != "")
	if len(k.Approve) > 0 && slices.Equal(k.Approve, k.Deny) {
		c.fail("keys.deny", "the same keys as keys.approve: one of them would do the other's work")
	}
	if len(k.PlanApprove) > 0 && slices.Equal(k.PlanApprove, k.PlanDeny) {
		c.fail("keys.plan_deny", "the same keys as keys.plan_approve")
	}
	switch km.AnswerRow {
	case "", provider.RowsByDown, provider.RowsByDigit, provider.LabelsByDigit:
	default:
		c.fail("keys.answer_row", "%q is not down, digit or labels", k.AnswerRow)
	}
	if km.AnswerRow == provider.RowsByDown || km.AnswerRow == provider.RowsByDigit {
		rows := false
		for _, st := range states {
			rows = rows || st.Attention == "question" && st.Rows != nil
		}
		if !rows {
			c.fail("keys.answer_row", "%s needs a question state that reads its picker's rows (rows = …)", k.AnswerRow)
		}
	}
	state := func(path, name string, wait bool) {
		st, ok := states[name]
		switch {
		case !ok:
			c.fail(path, "no screen state %q", name)
		case wait && st.Kind != panes.Wait:
			c.fail(path, "state %q is no wait", name)
		}
	}
	for _, name := range sortedKeys(k.Screens) {
		state("keys.screens."+name, name, true)
		named("keys.screens."+name+".approve", k.Screens[name].Approve)
		named("keys.screens."+name+".deny", k.Screens[name].Deny)
		if km.Screens == nil {
			km.Screens = map[string]provider.ScreenKeys{}
		}
		km.Screens[name] = provider.ScreenKeys{Approve: k.Screens[name].Approve, Deny: k.Screens[name].Deny}
	}
	for _, list := range []struct {
		key   string
		names []string
	}{{"keys.fields", k.Fields}, {"keys.input", k.Input}, {"keys.unsent", k.Unsent}} {
		for i, name := range list.names {
			state(list.key+"["+strconv.Itoa(i)+"]", name, false)
		}
	}
	for _, name := range sortedKeys(k.NoReply) {
		state("keys.no_reply."+name, name, false)
	}
	if k.SubDenyThen != "" {
		state("keys.sub_deny_then", k.SubDenyThen, false)
	}
	switch {
	case k.AnswerSubmitOn != "" && len(k.AnswerSubmit) == 0:
		c.fail("keys.answer_submit_on", "names the state that wants the answers confirmed, and keys.answer_submit gives no keys for it")
	case k.AnswerSubmitOn == "" && len(k.AnswerSubmit) > 0:
		c.fail("keys.answer_submit", "keys for the answers' confirmation, and keys.answer_submit_on names no state that asks for it")
	case k.AnswerSubmitOn != "":
		state("keys.answer_submit_on", k.AnswerSubmitOn, true)
		need("keys.answer_submit", "question", true)
	}
	if k.UnsafeReason != "" && k.UnsafeReply == "" {
		c.fail("keys.unsafe_reason", "says why keys.unsafe_reply refuses a reply, and there is none")
	}
	if re := c.re("keys.unsafe_reply", k.UnsafeReply); re != nil {
		why := k.UnsafeReason
		if why == "" {
			why = "the agent would not read it as a message: " + re.String()
		}
		km.UnsafeReply = func(text string) string {
			if re.MatchString(text) {
				return why
			}
			return ""
		}
	}
	return km
}

// commands is provider.Commands, each template tried on a sample the way
// ag-keys will build it: the same quoting rules refuse it now.
func (c *checker) commands(cm *Commands) provider.Commands {
	cmds := provider.Commands{Bin: cm.Bin, Resume: cm.Resume, Spawn: cm.Spawn, Fork: cm.Fork, ModelFlag: cm.ModelFlag}
	if cm.Bin == "" {
		c.fail("commands.bin", "missing: the program the templates' {bin} starts")
	} else if err := shquote.CheckWord(cm.Bin); err != nil {
		c.fail("commands.bin", "%v", err)
	}
	if cm.ModelFlag != "" && !syntax().flag.MatchString(cm.ModelFlag) {
		c.fail("commands.model_flag", "%q is not a plain option (--model)", cm.ModelFlag)
	}
	l := provider.Launch{}
	if cm.ModelFlag != "" {
		l.Model = "sample-model"
	}
	try := func(key, tmpl string, build func() (string, error)) {
		if tmpl == "" {
			return
		}
		if _, err := build(); err != nil {
			c.fail("commands."+key, "%v", err)
		}
	}
	try("resume", cm.Resume, func() (string, error) {
		return cmds.ResumeCommand("3f9c1d2e-0000-4000-8000-000000000000", l)
	})
	try("spawn", cm.Spawn, func() (string, error) { return cmds.SpawnCommand("it's $(a) sample", l) })
	try("fork", cm.Fork, func() (string, error) { return cmds.ForkCommand("/tmp/sample.jsonl", l) })
	return cmds
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// hooks checks a hook dialect: the agent it speaks for, its processes,
// the events and notification types it maps onto Claude's, and where
// install writes.
func (c *checker) hooks(d *hookdialect.Dialect, id string) {
	switch {
	case d.Agent == "":
		d.Agent = id
	case d.Agent != id:
		c.fail("hooks.agent", "%q, but the definition is %q: leave it out", d.Agent, id)
	}
	if len(d.Processes) == 0 {
		c.fail("hooks.processes", "missing: the agent's process names (ps -o comm), which ag-hook walks up to")
	}
	for _, k := range sortedKeys(d.Events) {
		if !slices.Contains(claudeEvents, d.Events[k]) {
			c.fail("hooks.events."+k, "%q is none of Claude's hook events (%s)", d.Events[k], strings.Join(claudeEvents, ", "))
		}
	}
	for _, k := range sortedKeys(d.Notifications) {
		switch d.Notifications[k] {
		case hookdialect.NoticePermission, hookdialect.NoticeQuestion, hookdialect.NoticePlan, hookdialect.NoticeIdle:
		default:
			c.fail("hooks.notifications."+k, "%q is not permission, question, plan or idle", d.Notifications[k])
		}
	}
	in := &d.Install
	if in.File == "" && in.Dir == "" && len(in.Entries) == 0 {
		return // ag-hook maps its payloads; the user wires the hooks
	}
	if in.File == "" || in.Dir == "" || strings.Contains(in.File, "/") || strings.HasPrefix(in.Dir, "/") || strings.Contains(in.Dir, "..") {
		c.fail("hooks.install", "dir (the config folder under HOME, .mycli) and file (its settings file, settings.json) are both needed")
	}
	if len(in.Entries) == 0 {
		c.fail("hooks.install.entries", "missing: the events install writes a hook for")
	}
	switch in.TimeoutUnit {
	case "", hookdialect.Seconds, hookdialect.Milliseconds:
	default:
		c.fail("hooks.install.timeout_unit", "%q is not s or ms", in.TimeoutUnit)
	}
	if in.Timeout < 0 {
		c.fail("hooks.install.timeout", "%d: seconds, not negative", in.Timeout)
	}
	for _, k := range in.StatusLine {
		if k == "" {
			c.fail("hooks.install.status_line", "an empty key: the path to the statusLine object ([\"statusLine\"], [\"ui\", \"statusLine\"])")
		}
	}
	if len(in.StatusLineArgs) > 0 {
		c.fail("hooks.install.status_line_args", "leave it out: ag-hook statusline --agent %s is written", id)
	}
	if len(in.StatusLine) > 0 {
		in.StatusLineArgs = []string{"--agent", id} // its payloads read as this agent's
	}
}

// claudeEvents are the hook events of Claude's shape (hookdialect).
var claudeEvents = []string{hookdialect.HookSessionStart, hookdialect.HookUserPromptSubmit, hookdialect.HookPreToolUse,
	hookdialect.HookPermissionRequest, hookdialect.HookPostToolUse, hookdialect.HookPostToolUseFailure,
	hookdialect.HookNotification, hookdialect.HookSubagentStart, hookdialect.HookSubagentStop, hookdialect.HookPreCompact,
	hookdialect.HookPostCompact, hookdialect.HookStop, hookdialect.HookStopFailure, hookdialect.HookSessionEnd}
