package keyplan

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/panes"
	"github.com/agwatch/ag/filters/safetext"
	"github.com/agwatch/ag/providers/claude"
	"github.com/agwatch/ag/providers/droid"
	"github.com/agwatch/ag/providers/provider"
)

func st(status, attn string) event.Event {
	e := event.New(event.State, time.Unix(1700000000, 0), "claude", "s1")
	e.Status, e.Attention, e.Token = status, attn, "1700000000000.3"
	return e
}

func TestDecideClaude(t *testing.T) {
	km := claude.New().Keys()
	tests := []struct {
		name          string
		state         event.Event
		action, text  string
		token         string
		requireToken  bool
		want, refusal string
	}{
		{name: "approve permission", state: st("waiting", "permission"), action: "approve", want: "1"},
		{name: "deny permission", state: st("waiting", "permission"), action: "deny", want: "Escape"},
		{name: "approve on a plan wait is plan approve 2, never 1", state: st("waiting", "plan"), action: "approve", want: "2"},
		{name: "deny on a plan wait", state: st("waiting", "plan"), action: "deny", want: "Escape"},
		{name: "plan-approve", state: st("waiting", "plan"), action: "plan-approve", want: "2"},
		{name: "plan-deny", state: st("waiting", "plan"), action: "plan-deny", want: "Escape"},
		{name: "plan-approve on a permission wait", state: st("waiting", "permission"), action: "plan-approve", refusal: "not waiting on a plan"},
		{name: "approve a question", state: st("waiting", "question"), action: "approve", refusal: "waiting on a question"},
		{name: "approve with no attention", state: st("waiting", ""), action: "approve", refusal: "waiting on a none"},
		{name: "approve while working", state: st("working", ""), action: "approve", refusal: "not waiting for approval (status working)"},
		{name: "approve when done", state: st("done", ""), action: "approve", refusal: "not waiting"},
		{name: "answer a question: Escape prelude, settle", state: st("waiting", "question"), action: "answer", text: "use postgres", want: `Escape, 150ms, "use postgres", 150ms, Enter`},
		{name: "answer on a permission wait", state: st("waiting", "permission"), action: "answer", text: "x", refusal: "not waiting on a question"},
		{name: "reply on permission = deny with feedback", state: st("waiting", "permission"), action: "reply", text: "no, use rg", want: `Escape, 150ms, "no, use rg", 150ms, Enter`},
		{name: "reply on a plan wait", state: st("waiting", "plan"), action: "reply", text: "split step 2", want: `Escape, 150ms, "split step 2", 150ms, Enter`},
		{name: "reply on a question", state: st("waiting", "question"), action: "reply", text: "b", want: `Escape, 150ms, "b", 150ms, Enter`},
		{name: "reply when finished: no prelude", state: st("done", ""), action: "reply", text: "thanks, now test it", want: `"thanks, now test it", 150ms, Enter`},
		{name: "reply when idle: no prelude", state: st("idle", ""), action: "reply", text: "go on", want: `"go on", 150ms, Enter`},
		{name: "reply after a failed turn", state: st("failed", ""), action: "reply", text: "retry", want: `"retry", 150ms, Enter`},
		{name: "reply while working", state: st("working", ""), action: "reply", text: "x", refusal: "no reply while the session is working"},
		{name: "reply when gone", state: st("gone", ""), action: "reply", text: "x", refusal: "session is gone"},
		{name: "slash refused (2.1.332 runs it space or not)", state: st("done", ""), action: "reply", text: "/clear", refusal: "runs as a slash command"},
		{name: "bang defused with one space", state: st("done", ""), action: "reply", text: "!rm -rf ~", want: `" !rm -rf ~", 150ms, Enter`},
		{name: "leading space trimmed, slash refused", state: st("done", ""), action: "reply", text: "   /compact", refusal: "runs as a slash command"},
		{name: "leading space trimmed then defused", state: st("done", ""), action: "reply", text: "   !ls", want: `" !ls", 150ms, Enter`},
		{name: "mid-text slash untouched", state: st("done", ""), action: "reply", text: "see /tmp/x", want: `"see /tmp/x", 150ms, Enter`},
		{name: "multi-line reply becomes one line", state: st("done", ""), action: "reply", text: "a\nb\r\nc\x1b[31m", want: `"a b  c[31m", 150ms, Enter`},
		{name: "empty reply", state: st("done", ""), action: "reply", text: " \n\x07", refusal: "empty reply"},
		{name: "stale token", state: st("waiting", "permission"), action: "approve", token: "1700000000000.2", refusal: "stale"},
		{name: "matching token", state: st("waiting", "permission"), action: "approve", token: "1700000000000.3", want: "1"},
		{name: "token required", state: st("waiting", "permission"), action: "approve", requireToken: true, refusal: "quotes no state token"},
		{name: "focus", state: st("waiting", "permission"), action: "focus", refusal: "focus is not typed"},
		{name: "unknown", state: st("waiting", "permission"), action: "yes", refusal: `unknown action "yes"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Decide(Request{State: tc.state, Action: tc.action, Text: tc.text, Token: tc.token, RequireToken: tc.requireToken}, km)
			if tc.refusal != "" {
				var r *Refusal
				if !errors.As(err, &r) || !strings.Contains(r.Reason, tc.refusal) {
					t.Fatalf("Decide = %v, %v; want refusal containing %q", Describe(p), err, tc.refusal)
				}
				return
			}
			if err != nil {
				t.Fatalf("Decide: %v", err)
			}
			if got := Describe(p); got != tc.want {
				t.Errorf("Decide = %s; want %s", got, tc.want)
			}
		})
	}
}

// An agent that trims and re-parses refuses instead of defusing, and an
// agent with no reply on permission says so.
func TestDecideOtherMaps(t *testing.T) {
	km := provider.KeyMap{
		Approve: []string{"Enter"}, Deny: []string{"Right", "Right", "Enter"},
		FinishedPrelude: []string{},
		UnsafeReply: func(s string) string {
			if strings.HasPrefix(s, "!") {
				return "a leading ! runs a shell command"
			}
			return ""
		},
	}
	p, err := Decide(Request{State: st("waiting", "permission"), Action: "deny"}, km)
	if err != nil || Describe(p) != "Right, 30ms, Right, 30ms, Enter" {
		t.Errorf("deny = %q, %v", Describe(p), err)
	}
	if _, err := Decide(Request{State: st("done", ""), Action: "reply", Text: "  !ls"}, km); err == nil || !strings.Contains(err.Error(), "runs a shell") {
		t.Errorf("unsafe reply: %v", err)
	}
	if _, err := Decide(Request{State: st("waiting", "permission"), Action: "reply", Text: "x"}, km); err == nil || !strings.Contains(err.Error(), "offers no reply on a permission wait") {
		t.Errorf("reply on permission: %v", err)
	}
	if _, err := Decide(Request{State: st("waiting", "plan"), Action: "approve"}, km); err == nil || !strings.Contains(err.Error(), "offers no approve") {
		t.Errorf("plan approve without plan keys: %v", err)
	}
}

// TestDecideAmbiguous: while another session of the process waits too,
// nothing is typed into the pane they share; the wait ending (the fold
// clears the mark) makes the same action possible again.
func TestDecideAmbiguous(t *testing.T) {
	km := provider.KeyMap{Approve: []string{"Enter"}, Deny: []string{"Escape"}, AnswerPrelude: []string{}, PermissionPrelude: []string{"Escape"}}
	for _, action := range []string{"approve", "deny", "reply", "answer"} {
		s := st("waiting", "permission")
		if action == "answer" {
			s.Attention = "question"
		}
		s.Ambiguous = true
		_, err := Decide(Request{State: s, Action: action, Text: "x"}, km)
		if err == nil || !strings.Contains(err.Error(), "waiting too") {
			t.Errorf("%s on an ambiguous wait: %v", action, err)
		}
		s.Ambiguous = false
		if _, err := Decide(Request{State: s, Action: action, Text: "x"}, km); err != nil {
			t.Errorf("%s on the same wait, unambiguous: %v", action, err)
		}
	}
}

// TestDecideSubDeny: a sub-agent's permission dialog can want other deny
// keys (OpenCode asks a reason first); approve and the main thread's deny
// stay.
func TestDecideSubDeny(t *testing.T) {
	km := provider.KeyMap{Approve: []string{"Enter"}, Deny: []string{"Escape"}, SubDeny: []string{"Escape", "Enter"},
		Screens: map[string]provider.ScreenKeys{"reason": {Deny: []string{"Enter"}}}}
	s := st("waiting", "permission")
	reason := &panes.Result{Kind: panes.Wait, State: "reason", Attention: "permission"}
	for _, tc := range []struct {
		sub, action string
		screen      *panes.Result
		want        string
	}{
		{"", "deny", nil, "Escape"}, {"ses_c", "deny", nil, "Escape, 30ms, Enter"}, {"ses_c", "approve", nil, "Enter"},
		// The reason dialog already up: its own keys, never Escape (which
		// would go back to the dialog, where Enter approves).
		{"ses_c", "deny", reason, "Enter"},
	} {
		s.Sub = tc.sub
		p, err := Decide(Request{State: s, Action: tc.action, Screen: tc.screen}, km)
		if err != nil || Describe(p) != tc.want {
			t.Errorf("%s (sub %q) = %q, %v; want %q", tc.action, tc.sub, Describe(p), err, tc.want)
		}
	}
	if _, err := Decide(Request{State: s, Action: "approve", Screen: reason}, km); err == nil {
		t.Error("approve from the reason dialog: typed")
	}
	// With SubDenyThen the Enter waits for the reason dialog: sent to the
	// permission dialog before it opens, it would approve.
	km.SubDenyThen = "reason"
	s.Sub = "ses_c"
	if p, err := Decide(Request{State: s, Action: "deny"}, km); err != nil || Describe(p) != "Escape, 30ms, Enter once reason shows" || p.Steps[1].Await != "reason" {
		t.Errorf("deny (sub) with SubDenyThen = %q, %v", Describe(p), err)
	}
	if p, _ := Decide(Request{State: s, Action: "approve"}, km); p.Steps[0].Await != "" {
		t.Errorf("approve waits for %q", p.Steps[0].Await)
	}
}

// TestDecideDenyThen: Kilo asks what to do differently before it rejects
// any call, so deny's Enter and a reply's text wait for that dialog; the
// dialog already up takes its own keys.
func TestDecideDenyThen(t *testing.T) {
	km := provider.KeyMap{Approve: []string{"Enter"}, Deny: []string{"Escape", "Enter"}, DenyThen: "reason",
		PermissionPrelude: []string{"Escape"}, Input: []string{"reason"},
		Screens: map[string]provider.ScreenKeys{"reason": {Deny: []string{"Enter"}}}}
	s := st("waiting", "permission")
	for _, tc := range []struct {
		action, text string
		screen       *panes.Result
		want         string
	}{
		{"deny", "", nil, "Escape, 30ms, Enter once reason shows"},
		{"approve", "", nil, "Enter"},
		{"reply", "use printf", nil, `Escape, 150ms, "use printf" once reason shows, 150ms, Enter once shown`},
		{"deny", "", &panes.Result{Kind: panes.Wait, State: "reason", Attention: "permission"}, "Enter"},
	} {
		p, err := Decide(Request{State: s, Action: tc.action, Text: tc.text, Screen: tc.screen}, km)
		if err != nil || Describe(p) != tc.want {
			t.Errorf("%s %q = %q, %v; want %q", tc.action, tc.text, Describe(p), err, tc.want)
		}
	}
}

// TestDecideAnswerSubmit: Kimi Code's answers go to a review that wants
// them submitted: every answer ends with the submit keys once the review
// shows, and no answer is typed into the review itself.
func TestDecideAnswerSubmit(t *testing.T) {
	km := provider.KeyMap{AnswerPrelude: []string{}, AnswerRow: provider.RowsByDigit, Fields: []string{"field"},
		AnswerSubmitOn: "review", AnswerSubmit: []string{"1"}}
	picker := &panes.Result{Kind: panes.Wait, Attention: "question", State: "question",
		Picker: &panes.Picker{Labels: []string{"Blue", "Green", "Other"}, Down: 2}}
	field := &panes.Result{Kind: panes.Wait, Attention: "question", State: "field"}
	review := &panes.Result{Kind: panes.Wait, Attention: "question", State: "review"}
	s := st("waiting", "question")
	for _, tc := range []struct {
		text   string
		screen *panes.Result
		want   string
	}{
		{"green", picker, "2, 1 if review shows"},
		{"Teal please", picker, `3, 150ms, "Teal please", 150ms, Enter, 1 if review shows`},
		{"Teal please", field, `"Teal please", 150ms, Enter, 1 if review shows`},
		{"Blue", review, ""},
	} {
		p, err := Decide(Request{State: s, Action: "answer", Text: tc.text, Screen: tc.screen}, km)
		switch {
		case tc.want == "" && (err == nil || !strings.Contains(err.Error(), "wait to be submitted")):
			t.Errorf("answer %q on %s = %q, %v; want refused", tc.text, tc.screen.State, Describe(p), err)
		case tc.want != "" && (err != nil || Describe(p) != tc.want):
			t.Errorf("answer %q on %s = %q, %v; want %q", tc.text, tc.screen.State, Describe(p), err, tc.want)
		}
	}
}

func TestDecideScreen(t *testing.T) {
	km := claude.New().Keys()
	wait := func(attn string) *panes.Result { return &panes.Result{Kind: panes.Wait, State: attn, Attention: attn} } // Claude names its states so
	tests := []struct {
		name          string
		state         event.Event
		screen        *panes.Result
		action, text  string
		want, refusal string
	}{
		{name: "a plan stored as permission is approved as a plan", state: st("waiting", "permission"), screen: wait("plan"), action: "approve", want: "2"},
		{name: "a plan stored as permission is denied as a plan", state: st("waiting", "permission"), screen: wait("plan"), action: "deny", want: "Escape"},
		{name: "the bare exit-plan picker is approved with its Yes", state: st("waiting", "plan"), screen: &panes.Result{Kind: panes.Wait, State: "plan-exit", Attention: "plan"}, action: "approve", want: "1"},
		{name: "the bare exit-plan picker plan-approve", state: st("waiting", "permission"), screen: &panes.Result{Kind: panes.Wait, State: "plan-exit", Attention: "plan"}, action: "plan-approve", want: "1"},
		{name: "the bare exit-plan picker is denied with Escape", state: st("waiting", "plan"), screen: &panes.Result{Kind: panes.Wait, State: "plan-exit", Attention: "plan"}, action: "deny", want: "Escape"},
		{name: "the full plan picker keeps 2", state: st("waiting", "plan"), screen: &panes.Result{Kind: panes.Wait, State: "plan", Attention: "plan"}, action: "plan-approve", want: "2"},
		{name: "a question stored as permission is not approved", state: st("waiting", "permission"), screen: wait("question"), action: "approve", refusal: "waiting on a question"},
		{name: "a question stored as permission takes an answer", state: st("waiting", "permission"), screen: wait("question"), action: "answer", text: "yes", want: `Escape, 150ms, "yes", 150ms, Enter`},
		{name: "a permission prompt under a plan state", state: st("waiting", "plan"), screen: wait("permission"), action: "approve", refusal: "the pane shows a permission prompt, the state a plan"},
		{name: "the prompt is gone: idle composer", state: st("waiting", "permission"), screen: &panes.Result{Kind: panes.Idle}, action: "approve", refusal: "the pane shows no prompt (idle)"},
		{name: "the prompt is gone: working", state: st("waiting", "plan"), screen: &panes.Result{Kind: panes.Busy}, action: "reply", text: "x", refusal: "no prompt (busy)"},
		{name: "unrecognised screen leaves the state", state: st("waiting", "permission"), screen: &panes.Result{}, action: "approve", want: "1"},
		{name: "a finished reply at the idle composer", state: st("done", ""), screen: &panes.Result{Kind: panes.Idle}, action: "reply", text: "ok", want: `"ok", 150ms, Enter`},
		{name: "a finished reply while a prompt is up is refused", state: st("done", ""), screen: wait("permission"), action: "reply", text: "1 more thing", refusal: "the pane shows a permission prompt, the state says done"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Decide(Request{State: tc.state, Action: tc.action, Text: tc.text, Screen: tc.screen}, km)
			if tc.refusal != "" {
				if err == nil || !strings.Contains(err.Error(), tc.refusal) {
					t.Fatalf("Decide = %v, %v; want refusal containing %q", Describe(p), err, tc.refusal)
				}
				return
			}
			if err != nil || Describe(p) != tc.want {
				t.Fatalf("Decide = %q, %v; want %q", Describe(p), err, tc.want)
			}
		})
	}
}

// A composer state the key map takes no reply in refuses replies and
// answers, whatever the session's status.
func TestDecideNoReply(t *testing.T) {
	km := provider.KeyMap{FinishedPrelude: []string{}, AnswerPrelude: []string{"Space"},
		NoReply: map[string]string{"shell": "the composer is in shell mode"}}
	shell := &panes.Result{Kind: panes.Idle, State: "shell"}
	if _, err := Decide(Request{State: st("done", ""), Action: "reply", Text: "ls", Screen: shell}, km); err == nil || !strings.Contains(err.Error(), "shell mode") {
		t.Errorf("reply at a shell-mode composer: %v", err)
	}
	review := &panes.Result{Kind: panes.Wait, State: "review", Attention: "question"}
	km.NoReply["review"] = "the answers wait for Enter"
	if _, err := Decide(Request{State: st("waiting", "question"), Action: "answer", Text: "x", Screen: review}, km); err == nil || !strings.Contains(err.Error(), "wait for Enter") {
		t.Errorf("answer on the review: %v", err)
	}
	p, err := Decide(Request{State: st("done", ""), Action: "reply", Text: "ls", Screen: &panes.Result{Kind: panes.Idle, State: "idle"}}, km)
	if err != nil || Describe(p) != `"ls", 150ms, Enter` {
		t.Errorf("reply at the composer: %q, %v", Describe(p), err)
	}
}

// A key map whose replies land in the prompt itself (no prelude) and
// whose prompt shows its input: a lone digit would pick an option and is
// refused; the Enter waits for the input to show the text; a finished
// reply is none of that.
func TestDecideIntoThePrompt(t *testing.T) {
	km := provider.KeyMap{AnswerPrelude: []string{}, PlanPrelude: []string{}, FinishedPrelude: []string{}, Paste: true,
		Input: []string{"answer"}}
	for _, tc := range []struct {
		state         event.Event
		action, text  string
		want, refusal string
	}{
		{st("waiting", "question"), "answer", "Green", `paste "Green", 150ms, Enter once shown`, ""},
		{st("waiting", "plan"), "reply", "add a test", `paste "add a test", 150ms, Enter once shown`, ""},
		{st("waiting", "question"), "answer", " 2 ", "", "one digit"},
		{st("waiting", "plan"), "reply", "1", "", "one digit"},
		{st("waiting", "question"), "answer", "12", `paste "12", 150ms, Enter once shown`, ""},
		{st("done", ""), "reply", "1", `paste "1", 150ms, Enter`, ""},
	} {
		p, err := Decide(Request{State: tc.state, Action: tc.action, Text: tc.text}, km)
		if tc.refusal != "" {
			if err == nil || !strings.Contains(err.Error(), tc.refusal) {
				t.Errorf("%s %q: %q, %v; want refused: %s", tc.action, tc.text, Describe(p), err, tc.refusal)
			}
			continue
		}
		if err != nil || Describe(p) != tc.want {
			t.Errorf("%s %q: %q, %v; want %q", tc.action, tc.text, Describe(p), err, tc.want)
		}
	}
}

func TestSanitize(t *testing.T) {
	tests := []struct {
		in, want string
		max      int
		cut      bool
	}{
		{"hello", "hello", 10, false},
		{"  a\tb \n", "a b", 10, false},
		{"a\x00b\x7fc\u009bd", "abcd", 10, false},
		{"a\u2028b", "a b", 10, false},
		{"\xffx", "\uFFFDx", 10, false},
		{"héllo wörld", "héllo", 6, true},
		{"日本語です", "日本語", 3, true},
	}
	for _, tc := range tests {
		got, cut := Sanitize(tc.in, tc.max)
		if got != tc.want || cut != tc.cut {
			t.Errorf("Sanitize(%q, %d) = %q, %v; want %q, %v", tc.in, tc.max, got, cut, tc.want, tc.cut)
		}
	}
}

// FuzzSanitize: whatever comes in, what is typed is one line of at most
// MaxReply characters with no control character, and never starts with a
// trigger once Claude's defuse ran.
func FuzzSanitize(f *testing.F) {
	for _, s := range []string{"hi", "/clear", "!ls", "\n/clear", "\x1b[A!x", strings.Repeat("é", 3000),
		"\ufeff/clear", "\u200b!ls", "\u2060!ls", "\u00ad/clear", " \u202e\u200b!ls"} {
		f.Add(s)
	}
	km := claude.New().Keys()
	f.Fuzz(func(t *testing.T, s string) {
		p, err := Decide(Request{State: st("done", ""), Action: "reply", Text: s}, km)
		if err != nil {
			return
		}
		typed := p.Text
		if strings.ContainsFunc(typed, func(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) }) {
			t.Fatalf("typed %q has a control character", typed)
		}
		if v := strings.TrimPrefix(typed, km.DefuseLeading); typed[0] == '/' || typed[0] == '!' || safetext.TrimInvisible(v) != v {
			t.Fatalf("typed %q starts with a trigger or with what shows nothing", typed)
		}
		if n := len([]rune(typed)); n > provider.MaxReply+1 {
			t.Fatalf("typed %d characters", n)
		}
	})
}

// TestInvisibleBeforeTrigger: a reply that starts with a character that
// shows nothing before "!" or "/" is what a composer that trims reads: a
// shell or slash command. It is checked (and typed) without them, so an
// agent that refuses such replies refuses it and one that defuses them
// defuses it.
func TestInvisibleBeforeTrigger(t *testing.T) {
	refuse := provider.KeyMap{FinishedPrelude: []string{}, UnsafeReply: provider.LeadingCommand}
	for _, in := range []string{"\ufeff!rm -rf ~", "\u200b/clear", "\u2060!id", "\u00ad!id", "\u200b \ufeff\u202e!id", "\U000e0041!id"} {
		if p, err := Decide(Request{State: st("done", ""), Action: "reply", Text: in}, refuse); err == nil {
			t.Errorf("%q: typed %q; want it refused as unsafe", in, p.Text)
		} else if !strings.Contains(err.Error(), "unsafe reply") {
			t.Errorf("%q: %v; want an unsafe reply", in, err)
		}
		// Claude defuses a "!" with a space; a "/" it runs all the same
		// (2.1.332), so that is refused.
		p, err := Decide(Request{State: st("done", ""), Action: "reply", Text: in}, claude.New().Keys())
		if strings.Contains(in, "/") {
			if err == nil || !strings.Contains(err.Error(), "slash command") {
				t.Errorf("%q to Claude: %q, %v; want it refused", in, p.Text, err)
			}
		} else if err != nil || p.Text[0] != ' ' {
			t.Errorf("%q to Claude: %q, %v; want it defused", in, p.Text, err)
		}
	}
}

func BenchmarkDecideReply(b *testing.B) {
	km := claude.New().Keys()
	r := Request{State: st("waiting", "permission"), Action: "reply", Text: strings.Repeat("no, do it differently ", 20), Token: "1700000000000.3"}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Decide(r, km); err != nil {
			b.Fatal(err)
		}
	}
}

// An estimated wait (no hook reported the prompt) takes keys only where
// the pane shows a prompt: typed into the composer they would be a message.
func TestDecideEstimated(t *testing.T) {
	km := claude.New().Keys()
	est := st("waiting", "permission")
	est.Reason = event.ReasonEstimated
	for _, tc := range []struct {
		name   string
		screen *panes.Result
		action string
		ok     bool
	}{
		{"approve, pane not read", nil, "approve", false},
		{"deny, pane not recognised", &panes.Result{}, "deny", false},
		{"approve, pane at work", &panes.Result{Kind: panes.Busy}, "approve", false},
		{"reply, idle composer", &panes.Result{Kind: panes.Idle}, "reply", false},
		{"approve, the prompt on screen", &panes.Result{Kind: panes.Wait, Attention: "permission"}, "approve", true},
		{"deny, the prompt on screen", &panes.Result{Kind: panes.Wait, Attention: "permission"}, "deny", true},
	} {
		_, err := Decide(Request{State: est, Action: tc.action, Text: "x", Screen: tc.screen}, km)
		if tc.ok != (err == nil) || (err != nil && !strings.Contains(err.Error(), "estimated")) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}

// TestDecideField: a question whose pane shows its own text field takes
// the text straight in (KeyMap.Fields), whatever its rows would need.
func TestDecideField(t *testing.T) {
	km := provider.KeyMap{AnswerPrelude: []string{}, AnswerRow: provider.RowsByDown, Fields: []string{"field"}}
	field := &panes.Result{Kind: panes.Wait, State: "field", Attention: "question"}
	form := &panes.Result{Kind: panes.Wait, State: "form", Attention: "question"}
	for _, tc := range []struct {
		screen        *panes.Result
		text          string
		want, refusal string
	}{
		{field, "Ada", `"Ada", 150ms, Enter`, ""},
		{field, "3", `"3", 150ms, Enter`, ""}, // no option a digit could pick
		{field, " ", "", "empty reply"},
		{form, "Ada", "", "does not show the question's picker"},
		{&panes.Result{Kind: panes.Idle, State: "field"}, "Ada", "", "no prompt"},
	} {
		p, err := Decide(Request{State: st("waiting", "question"), Action: "answer", Text: tc.text, Screen: tc.screen}, km)
		if tc.refusal != "" {
			if err == nil || !strings.Contains(err.Error(), tc.refusal) {
				t.Errorf("%s %q: %q, %v; want refusal %q", tc.screen.State, tc.text, Describe(p), err, tc.refusal)
			}
			continue
		}
		if err != nil || Describe(p) != tc.want {
			t.Errorf("%s %q: %q, %v; want %q", tc.screen.State, tc.text, Describe(p), err, tc.want)
		}
	}
}

// TestDecideOptionsOnly: a map that types only options (OpenCode's) picks
// a label by its digit, in any case, and refuses other text, a picker of
// more than nine rows and a pane that shows none.
func TestDecideOptionsOnly(t *testing.T) {
	km := provider.KeyMap{AnswerRow: provider.OptionsByDigit}
	picker := func(n int) *panes.Result {
		p := &panes.Picker{Labels: []string{"a.go", "b.go"}, Down: 2}
		for len(p.Labels) < n {
			p.Labels = append(p.Labels, "x"+strings.Repeat("x", len(p.Labels)))
		}
		p.Labels = append(p.Labels, "Type your own answer")
		p.Down = len(p.Labels) - 1
		return &panes.Result{Kind: panes.Wait, Attention: "question", Picker: p}
	}
	for _, tc := range []struct {
		name          string
		screen        *panes.Result
		text          string
		want, refusal string
	}{
		{"an option", picker(2), "b.go", "2", ""},
		{"in any case", picker(2), "A.GO", "1", ""},
		{"other text", picker(2), "c.go", "", "only an option of claude's question is typed"},
		{"the own answer's row is no option", picker(2), "Type your own answer", "", "only an option"},
		{"ten rows", picker(9), "a.go", "", "does not show the question's picker"},
		{"no picker", &panes.Result{Kind: panes.Wait, Attention: "question"}, "a.go", "", "does not show the question's picker"},
		{"not looked at", nil, "a.go", "", "does not show the question's picker"},
	} {
		p, err := Decide(Request{State: st("waiting", "question"), Action: "answer", Text: tc.text, Screen: tc.screen}, km)
		if tc.refusal != "" {
			if err == nil || !strings.Contains(err.Error(), tc.refusal) {
				t.Errorf("%s: %q, %v; want refusal %q", tc.name, Describe(p), err, tc.refusal)
			}
			continue
		}
		if err != nil || Describe(p) != tc.want {
			t.Errorf("%s: %q, %v; want %q", tc.name, Describe(p), err, tc.want)
		}
	}
}

// TestOptions: the options a screen shows are what an answer can pick by
// label: not the own answer's row, a repeat, a tab of several questions,
// a text field, a map that picks no label, or ten rows picked by digit.
func TestOptions(t *testing.T) {
	rows := func(labels ...string) *panes.Picker {
		return &panes.Picker{Labels: append(labels, "Other"), Down: len(labels)}
	}
	q := func(p *panes.Picker) *panes.Result {
		return &panes.Result{Kind: panes.Wait, Attention: "question", State: "question", Picker: p}
	}
	ten := rows("1", "2", "3", "4", "5", "6", "7", "8", "9")
	digits := provider.KeyMap{AnswerPrelude: []string{"Escape"}, AnswerRow: provider.RowsByDigit}
	down := provider.KeyMap{AnswerPrelude: []string{"Enter"}, AnswerRow: provider.RowsByDown}
	for _, tc := range []struct {
		name string
		km   provider.KeyMap
		sc   *panes.Result
		want []string
	}{
		{"by digit", digits, q(rows("Go", "Python")), []string{"Go", "Python"}},
		{"the cursor on the second", digits, q(&panes.Picker{Labels: []string{"Go", "Python", "Other"}, At: 1, Down: 1}), []string{"Go", "Python"}},
		{"a repeat in another case", digits, q(rows("Go", "GO", "Rust")), []string{"Go", "Rust"}},
		{"by Down, ten rows", down, q(ten), ten.Labels[:9]},
		{"by digit, ten rows", digits, q(ten), nil},
		{"only options", provider.KeyMap{AnswerRow: provider.OptionsByDigit}, q(rows("a.go")), []string{"a.go"}},
		{"tabs", digits, q(&panes.Picker{Labels: []string{"Go", "Other"}, Down: 1, Tabs: true}), nil},
		{"no reply, no label", provider.KeyMap{AnswerRow: provider.RowsByDigit}, q(rows("Go")), nil},
		{"no rows by label", provider.KeyMap{AnswerPrelude: []string{}}, q(rows("Go")), nil},
		{"a text field", provider.KeyMap{AnswerPrelude: []string{}, AnswerRow: provider.RowsByDown, Fields: []string{"question"}}, q(rows("Go")), nil},
		{"no picker", digits, q(nil), nil},
		{"a permission", digits, &panes.Result{Kind: panes.Wait, Attention: "permission", Picker: rows("Yes")}, nil},
	} {
		if got := Options(tc.km, tc.sc); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %q; want %q", tc.name, got, tc.want)
		}
	}
}

// TestPlanProof: a wait the hooks called a permission, on a pane that
// reads as a plan without its plan file, is never approved with the
// plan's "2" (on a permission prompt "don't ask again"); with the file
// it is, and a wait the hooks called a plan is whatever the pane.
func TestPlanProof(t *testing.T) {
	km := claude.New().Keys()
	for _, tc := range []struct {
		stored, screen, action string
		want                   string // typed, or "" for refused
	}{
		{"permission", "plan", "approve", "2"},
		{"permission", "plan-nofile", "approve", ""},
		{"permission", "plan-nofile", "plan-approve", ""},
		{"permission", "plan-nofile", "deny", "Escape"},
		{"plan", "plan-nofile", "approve", "2"},
		{"permission", "plan-exit", "approve", "1"},
	} {
		sc := &panes.Result{Kind: panes.Wait, State: tc.screen, Attention: "plan"}
		p, err := Decide(Request{State: st("waiting", tc.stored), Action: tc.action, Screen: sc}, km)
		got := ""
		if err == nil {
			got = Describe(p)
		}
		if got != tc.want {
			t.Errorf("%s wait, pane %s, %s: typed %q (%v); want %q", tc.stored, tc.screen, tc.action, got, err, tc.want)
		}
	}
}

// TestDecideUnchecked: a wait the hooks report as auto mode's hold is typed
// into only while the pane shows the hold: once the pane has gone on to
// the call's own prompt, the hold's Enter, approve or deny would answer that
// prompt instead. A permission wait on the hold (the pane got there first)
// is answered as the hold.
func TestDecideUnchecked(t *testing.T) {
	km := claude.New().Keys()
	hold := st("waiting", "permission")
	hold.Reason = event.ReasonUnchecked
	for _, tc := range []struct {
		state          event.Event
		screen, action string
		want           string // typed, or "" for refused
	}{
		{hold, "auto-hold", "approve", "Enter"},
		{hold, "auto-hold", "deny", "Escape"},
		{hold, "permission-no", "approve", ""},
		{hold, "permission-no", "deny", ""},
		{hold, "permission", "approve", ""},
		{st("waiting", "permission"), "permission-no", "approve", "Down, 30ms, Enter"},
		{st("waiting", "permission"), "auto-hold", "approve", "Enter"},
	} {
		sc := &panes.Result{Kind: panes.Wait, State: tc.screen, Attention: "permission"}
		p, err := Decide(Request{State: tc.state, Action: tc.action, Screen: sc}, km)
		got := ""
		if err == nil {
			got = Describe(p)
		} else if !strings.Contains(err.Error(), "the hold this wait is for has gone") {
			t.Errorf("%s wait (%s), pane %s, %s: %v", tc.state.Attention, tc.state.Reason, tc.screen, tc.action, err)
		}
		if got != tc.want {
			t.Errorf("%s wait (%s), pane %s, %s: typed %q (%v); want %q", tc.state.Attention, tc.state.Reason, tc.screen, tc.action, got, err, tc.want)
		}
	}
}

// TestDecidePlanApproveThen: a plan approval whose first key opens a menu
// (Factory Droid's autonomy) types its second key once the menu shows.
func TestDecidePlanApproveThen(t *testing.T) {
	km := droid.New().Keys()
	plan := &panes.Result{Kind: panes.Wait, Attention: "plan", State: "plan"}
	p, err := Decide(Request{State: st("waiting", "plan"), Action: "plan-approve", Screen: plan}, km)
	if err != nil || Describe(p) != "1, 30ms, 1 if plan-autonomy shows" {
		t.Fatalf("plan-approve = %q, %v", Describe(p), err)
	}
	if s := p.Steps[1]; s.Await != "plan-autonomy" || !s.Optional {
		t.Errorf("second step %+v: want it to await plan-autonomy, optional", s)
	}
}
