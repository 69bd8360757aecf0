//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/droid"
	"github.com/agwatch/ag/providers/qwen"
	"github.com/agwatch/ag/t/fakeapi/chat"
)

// dialectAgent is what a notification test needs of an agent on Claude's
// hook dialect (Qwen Code, Factory Droid): how to set it up and start it,
// and what its notification and keys look like.
type dialectAgent struct {
	id, summary string // the agent id; the notification's summary prefix
	pkg         NPMPackage
	version     string
	config      func(h *Harness, api *chat.Server)
	start       func(h *Harness, tm *Tmux, bin string) *Pane
	tool        string // its shell tool
	approve     string // what ag-keys types to approve, as its keys event says it
	dialog      string // on screen while it asks
	denied      string // the status a denied call leaves
}

var dialectAgents = []dialectAgent{
	{
		id: qwen.ID, summary: "Qwen Code · project", pkg: Qwen, version: Qwen.Version,
		config: func(h *Harness, api *chat.Server) { h.QwenConfig(api) },
		start: func(h *Harness, tm *Tmux, bin string) *Pane {
			p := tm.NewPane("qwen", h.Project, nil, bin)
			p.prompt = p.QwenType
			p.WaitText(90*time.Second, QwenIdle, QwenReady)
			return p
		},
		tool: "run_shell_command", approve: "1", dialog: QwenPermission, denied: event.StatusIdle,
	},
	{
		id: droid.ID, summary: "Factory Droid · project", pkg: Droid, version: DroidVersion,
		config: func(h *Harness, api *chat.Server) { h.DroidConfig(api) },
		start: func(h *Harness, tm *Tmux, bin string) *Pane {
			p := tm.NewPane("droid", h.Project, nil, bin)
			p.prompt = p.DroidType
			p.WaitText(90*time.Second, DroidTrust)
			p.Keys("Enter")
			p.WaitText(60*time.Second, DroidReady, "Fake Model")
			return p
		},
		tool: "Execute", approve: "Up, 30ms, Up, 30ms, Up, 30ms, Enter", dialog: DroidPermission, denied: event.StatusDone,
	},
}

// TestDialectNotify answers real Qwen Code and Factory Droid permission
// prompts from the desktop notification (ag-notify on a private D-Bus,
// ag-keys taking its actions): Approve reaches the pane as the agent's
// keys and the command runs; Deny as Escape and it does not; each wait is
// notified once and taken back once answered; a reply the agent would run
// as a command is refused with nothing typed, a plain one is sent.
func TestDialectNotify(t *testing.T) {
	for _, a := range dialectAgents {
		t.Run(a.id, func(t *testing.T) {
			t.Parallel()
			bin := Install(t, a.pkg)
			CheckVersion(t, bin, a.version)
			h := New(t)
			w := &notifyRig{h: h}
			api := h.FakeChat(chat.Options{})
			a.config(h, api)
			h.StartDBus()
			w.nd = h.StartNotifyd()
			h.Run(30*time.Second, Bin(t, "ag-hook"), "install", "--agent", a.id)
			sock := filepath.Join(h.Root, "tmux.sock")
			w.pl = h.StartPipeline([]string{"ag-tail", "--follow"}, []string{"ag-fold"},
				[]string{"ag-notify", "--backend", "dbus", "-S", sock})
			w.keys = h.StartKeys(w.pl.Out, "-S", sock)
			tm := h.StartTmux()
			p := a.start(h, tm, bin)
			s := w.pl.Out.Session(a.id, "")
			p.Prompt("say hello")
			s.Expect(t, 40*time.Second, event.StatusWorking, event.StatusDone)

			ask := func(cmd string) offered {
				from := len(w.nd.Calls())
				p.Prompt("RUN: " + cmd)
				wt := s.WaitFor(t, "waiting", 30*time.Second, func(e *event.Event) bool { return e.Status == event.StatusWaiting })
				if wt.Attention != event.AttnPermission || wt.Tool != a.tool || wt.Token == "" || wt.Pane != p.ID {
					t.Fatalf("waiting state: attention %q tool %q token %q pane %q", wt.Attention, wt.Tool, wt.Token, wt.Pane)
				}
				p.WaitText(10*time.Second, a.dialog)
				return w.offer(t, from, wt, p, a.summary, "Needs permission", cmd)
			}

			t.Log("-- approve from the notification: the agent's keys, the command runs")
			o := ask("echo approved > approved.txt")
			k := w.press(t, o, p, "approve")
			if k.Status != "sent" || k.Action != "approve" || k.Text != a.approve || k.Pane != p.ID {
				t.Fatalf("keys event: status %q action %q text %q pane %q reason %q; want sent, approve, %q",
					k.Status, k.Action, k.Text, k.Pane, k.Reason, a.approve)
			}
			s.WaitFor(t, "done", 30*time.Second, func(e *event.Event) bool { return e.Status == event.StatusDone })
			if b, err := os.ReadFile(filepath.Join(h.Project, "approved.txt")); err != nil || string(b) != "approved\n" {
				t.Errorf("the approved command did not run: %q, %v", b, err)
			}
			w.nd.WaitClosed(o.note.ID, 10*time.Second)
			if n := w.notifies(0, "echo approved"); n != 1 {
				t.Errorf("%d notifications for the approved wait; want 1", n)
			}

			t.Log("-- deny from the notification: Escape, the command does not run")
			o = ask("echo denied > denied.txt")
			k = w.press(t, o, p, "deny")
			if k.Status != "sent" || k.Text != "Escape" {
				t.Fatalf("keys event: status %q text %q reason %q; want sent, Escape", k.Status, k.Text, k.Reason)
			}
			s.WaitFor(t, a.denied, 30*time.Second, func(e *event.Event) bool { return e.Status == a.denied })
			if _, err := os.Stat(filepath.Join(h.Project, "denied.txt")); err == nil {
				t.Error("denied.txt exists: the denied command ran")
			}
			w.nd.WaitClosed(o.note.ID, 10*time.Second)
			if slices.Contains(w.nd.Live(), o.note.ID) {
				t.Errorf("notification %d still shown after the deny", o.note.ID)
			}

			t.Log("-- replies: one the agent would run as a command is refused, a plain one sent")
			time.Sleep(time.Second)
			out, err := runKeys(h, tm, "reply", "/quit", "--pane", p.ID)
			if err == nil || !strings.Contains(out, `"status":"refused"`) {
				t.Errorf("ag-keys reply /quit: %v\n%s", err, out)
			}
			out, err = runKeys(h, tm, "reply", "say replied", "--pane", p.ID)
			if err != nil || !strings.Contains(out, `"status":"sent"`) {
				t.Fatalf("ag-keys reply: %v\n%s", err, out)
			}
			p.WaitText(30*time.Second, "FAKE-REPLY: say replied")
			s.WaitFor(t, "done after the reply", 30*time.Second, func(e *event.Event) bool { return e.Status == event.StatusDone })
			if bad := append(w.pl.Out.Bad(), w.keys.Out.Bad()...); len(bad) > 0 {
				t.Errorf("lines that are not events:\n%s", strings.Join(bad, "\n"))
			}
		})
	}
}
