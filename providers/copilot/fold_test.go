package copilot

import (
	"bufio"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/fold"
	"github.com/agwatch/ag/filters/jsonscan"
	"github.com/agwatch/ag/providers/copilot/copilothook"
	"github.com/agwatch/ag/providers/provider"
)

// hookEvents maps a recording of the real CLI's hook payloads
// (copilothook/testdata), each at the moment it carries.
func hookEvents(t *testing.T, path string) []event.Event {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []event.Event
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var hook string
		var payload []byte
		var ts int64
		jsonscan.Members(sc.Bytes(), func(k string, v []byte) error {
			switch k {
			case "hook":
				hook = jsonscan.Text(v)
			case "payload":
				payload = v
				jsonscan.Members(v, func(k string, v []byte) error {
					if k == "timestamp" {
						s := jsonscan.Scanner{B: v}
						ts, _ = s.Int()
					}
					return nil
				})
			}
			return nil
		})
		hc := provider.HookContext{Now: time.UnixMilli(ts).Add(3 * time.Millisecond), PID: 26179, TTY: "/dev/pts/0", Pane: "%3", Event: hook}
		evs, err := copilothook.Mapper{}.MapHook(payload, hc)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, evs...)
	}
	return out
}

// replay folds a recorded session's hooks and log together, in the order
// they happened, and returns the main session's states as
// "status[/attention][ tool]", each change once.
func replay(t *testing.T, name string) []string {
	t.Helper()
	evs := append(hookEvents(t, "copilothook/testdata/hooks-"+name+".jsonl"), parseFile(t, "testdata/events-"+name+".jsonl")...)
	slices.SortStableFunc(evs, func(a, b event.Event) int { return a.T.Compare(b.T.Time) })
	f := fold.New(fold.Config{OneSession: func(string) bool { return true }})
	var got []string
	for i := range evs {
		for _, s := range f.Apply(&evs[i]) {
			st := s.Status
			if s.Attention != "" {
				st += "/" + s.Attention + " " + s.Tool
			}
			if len(got) == 0 || got[len(got)-1] != st {
				got = append(got, st)
			}
		}
	}
	return got
}

// TestReplay: the recorded sessions, hooks and events.jsonl folded
// together, go through exactly the states a user saw.
func TestReplay(t *testing.T) {
	for name, want := range map[string][]string{
		"1.0.102": {
			"idle", "working", "done", // say hello
			"working", "waiting/permission shell", "working", "done", // approved
			"working", "waiting/permission shell", "idle", // Escape
			"working", "waiting/permission url", "working", "waiting/permission shell", "working", "done", // URL, then the command
			"working", "waiting/question ask_user", "working", "done", // answered
			"working", "waiting/permission write", "working", "done", // file created
			"working", "failed", // the API refused
			"working", "idle", // Ctrl+C
			"gone",                                                              // /exit
			"idle", "working", "waiting/plan exit_plan_mode", "working", "done", // resumed, plan accepted
			"working", "waiting/plan exit_plan_mode", "idle", // plan refused with Escape
			"working", "waiting/question ask_user", "working", "done", // question cancelled: the model goes on
			"gone",
		},
		"1.0.102-subagent-rewind": {
			"idle", "working", "waiting/permission shell", "working", "done",
			"working", "idle", // Escape Escape took the prompt back
			"gone",
		},
	} {
		if got := replay(t, name); strings.Join(got, ", ") != strings.Join(want, ", ") {
			t.Errorf("%s:\n got %q\nwant %q", name, got, want)
		}
	}
}

// TestLateSessionStart: Copilot fires sessionStart with the first prompt,
// and may fire it after userPromptSubmitted (and after the prompt's first
// dialog): it names the session and never lowers the state.
func TestLateSessionStart(t *testing.T) {
	const sid = `"sessionId":"5b3fb863-fc1b-4b40-99b6-511921dc4d8b","cwd":"/w"`
	t0 := time.UnixMilli(1796124436857)
	hook := func(ms int, name, rest string) event.Event {
		hc := provider.HookContext{Now: t0.Add(time.Duration(ms) * time.Millisecond), PID: 26179, TTY: "/dev/pts/0", Pane: "%3", Event: name}
		evs, err := copilothook.Mapper{}.MapHook([]byte(`{`+sid+`,"timestamp":`+strconv.FormatInt(t0.UnixMilli()+int64(ms), 10)+rest+`}`), hc)
		if err != nil || len(evs) != 1 {
			t.Fatalf("%s: %v %v", name, evs, err)
		}
		return evs[0]
	}
	for name, tc := range map[string]struct {
		evs  []event.Event
		want string
	}{
		"after the prompt": {[]event.Event{
			hook(0, "userPromptSubmitted", `,"prompt":"hi"`),
			hook(5, "sessionStart", `,"source":"new","initialPrompt":"hi"`),
		}, "working"},
		"after the prompt's dialog": {[]event.Event{
			hook(0, "userPromptSubmitted", `,"prompt":"RUN: ls"`),
			hook(3, "notification", `,"message":"Run command: ls","title":"Permission needed","notification_type":"permission_prompt"`),
			hook(9, "sessionStart", `,"source":"new","initialPrompt":"RUN: ls"`),
		}, "waiting/permission"},
		"before it": {[]event.Event{
			hook(0, "sessionStart", `,"source":"resume"`),
			hook(5, "userPromptSubmitted", `,"prompt":"hi"`),
		}, "working"},
	} {
		f := fold.New(fold.Config{OneSession: func(string) bool { return true }})
		var last event.Event
		for i := range tc.evs {
			for _, s := range f.Apply(&tc.evs[i]) {
				last = s
			}
		}
		got := last.Status
		if last.Attention != "" {
			got += "/" + last.Attention
		}
		if got != tc.want || last.Session != "5b3fb863-fc1b-4b40-99b6-511921dc4d8b" {
			t.Errorf("%s: %s (session %q), want %s", name, got, last.Session, tc.want)
		}
	}
}
