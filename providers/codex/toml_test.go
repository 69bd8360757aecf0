package codex

import (
	"strings"
	"testing"
)

// A config shaped like real ones: comments everywhere, profiles, MCP
// servers, projects with quoted paths, trust state, CRLF-free.
const realConfig = `# ~/.codex/config.toml
model = "gpt-5.1-codex-max"   # the default model
model_reasoning_effort = "high"
approval_policy = "on-request"
notify = ["/usr/local/bin/notify-send-codex", "--urgency=low"]

[tui]
notifications = ["agent-turn-complete", "approval-requested"]

# Local model for offline work.
[model_providers.local]
name = "Local"
base_url = "http://127.0.0.1:8080/v1"
wire_api = "responses"

[profiles.fast]
model = "gpt-5.1-codex-mini"

[mcp_servers.docs]
command = "npx"
args = ["-y", "@acme/docs-mcp"]
env = { "DOCS_TOKEN" = "x" }

[projects."/home/me/src/ag"]
trust_level = "trusted"

[hooks.state."/home/me/.codex/hooks.json:stop:0:0"]
trusted_hash = "sha256:0f1e"
`

func TestEnableHooksFlag(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
		changed        bool
		state          FlagState // before
	}{
		{name: "empty file", in: "", want: "[features]\nhooks = true\n", changed: true},
		{name: "no features: appended after everything, rest untouched",
			in: realConfig, want: realConfig + "\n[features]\nhooks = true\n", changed: true},
		{name: "no trailing newline", in: `model = "m"`, want: "model = \"m\"\n\n[features]\nhooks = true\n", changed: true},
		{name: "already on", in: "[features]\nhooks = true # yes\n", want: "[features]\nhooks = true # yes\n",
			state: FlagState{Key: "hooks", Set: true, Bool: true, Value: true}},
		{name: "old name on is kept", in: "[features]\ncodex_hooks = true\n", want: "[features]\ncodex_hooks = true\n",
			state: FlagState{Key: "codex_hooks", Set: true, Bool: true, Value: true}},
		{name: "old name off is flipped in place, name kept",
			in:   "[features]\ncodex_hooks   =   false   # was off\nweb_search = true\n",
			want: "[features]\ncodex_hooks   =   true   # was off\nweb_search = true\n", changed: true,
			state: FlagState{Key: "codex_hooks", Set: true, Bool: true}},
		{name: "off flipped in place",
			in: "[features]\n  hooks = false\n", want: "[features]\n  hooks = true\n", changed: true,
			state: FlagState{Key: "hooks", Set: true, Bool: true}},
		{name: "new name wins over old", in: "[features]\ncodex_hooks = true\nhooks = false\n",
			want: "[features]\ncodex_hooks = true\nhooks = true\n", changed: true,
			state: FlagState{Key: "hooks", Set: true, Bool: true}},
		{name: "features table without the flag: line added after its last key, indent kept",
			in:      "model = \"m\"\n\n[features]\n  # experimental\n  web_search = true\n  unified_exec = false # comment\n\n# profiles\n[profiles.x]\nmodel = \"y\"\n",
			want:    "model = \"m\"\n\n[features]\n  # experimental\n  web_search = true\n  unified_exec = false # comment\n  hooks = true\n\n# profiles\n[profiles.x]\nmodel = \"y\"\n",
			changed: true},
		{name: "empty features table at the end without newline",
			in: "a = 1\n[features]", want: "a = 1\n[features]\nhooks = true\n", changed: true},
		{name: "empty features table with a comment on its header",
			in: "[features] # flags\n[x]\n", want: "[features] # flags\nhooks = true\n[x]\n", changed: true},
		{name: "quoted key", in: "[features]\n\"hooks\" = false\n", want: "[features]\n\"hooks\" = true\n", changed: true,
			state: FlagState{Key: "hooks", Set: true, Bool: true}},
		{name: "dotted at the root", in: "features.web_search = true\n[x]\ny = 1\n",
			want: "features.web_search = true\nfeatures.hooks = true\n[x]\ny = 1\n", changed: true},
		{name: "dotted flag off", in: "features.hooks = false\n", want: "features.hooks = true\n", changed: true,
			state: FlagState{Key: "hooks", Set: true, Bool: true}},
		{name: "only a sub-table of features", in: "[features.extra]\na = 1\n",
			want: "[features.extra]\na = 1\n\n[features]\nhooks = true\n", changed: true},
		{name: "inline table with the flag on", in: "features = { hooks = true }\n", want: "features = { hooks = true }\n",
			state: FlagState{Key: "hooks", Set: true, Bool: true, Value: true}},
		{name: "inline table with the flag off", in: "features = { hooks = false, x = 1 }\n",
			want: "features = { hooks = true, x = 1 }\n", changed: true, state: FlagState{Key: "hooks", Set: true, Bool: true}},
		{name: "CRLF file", in: "a = 1\r\n[features]\r\nx = true\r\n", want: "a = 1\r\n[features]\r\nx = true\r\nhooks = true\r\n", changed: true},
		{name: "features key in another table is not ours", in: "[profiles.p]\nfeatures.hooks = false\n",
			want: "[profiles.p]\nfeatures.hooks = false\n\n[features]\nhooks = true\n", changed: true},
		{name: "array of tables named features is not ours", in: "[x]\n[[x.features]]\nhooks = false\n",
			want: "[x]\n[[x.features]]\nhooks = false\n\n[features]\nhooks = true\n", changed: true},
		{name: "multi-line value before the insertion point",
			in:   "[features]\nnote = \"\"\"\nhooks = false\n\"\"\"\n",
			want: "[features]\nnote = \"\"\"\nhooks = false\n\"\"\"\nhooks = true\n", changed: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, err := ReadHooksFlag([]byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if st != tc.state {
				t.Errorf("ReadHooksFlag = %+v; want %+v", st, tc.state)
			}
			out, changed, err := EnableHooksFlag([]byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != tc.want || changed != tc.changed {
				t.Errorf("EnableHooksFlag(%q) =\n%q, %v\nwant\n%q, %v", tc.in, out, changed, tc.want, tc.changed)
			}
			// Idempotent: a second run changes nothing.
			again, changed, err := EnableHooksFlag(out)
			if err != nil || changed || string(again) != string(out) {
				t.Errorf("second run: changed=%v err=%v", changed, err)
			}
			if st, _ := ReadHooksFlag(out); !st.On() {
				t.Errorf("flag not on after edit: %+v", st)
			}
		})
	}
}

func TestEnableHooksFlagRefuses(t *testing.T) {
	for _, tc := range []struct{ name, in, err string }{
		{"not TOML", "model = \n", "line 1"},
		{"broken later", "a = 1\n[features\n", "line 2"},
		{"not a bool", "[features]\nhooks = \"yes\"\n", "not true or false"},
		{"inline without the flag", "features = { x = 1 }\n", "inline table"},
		{"duplicate keys", "[features]\nhooks = false\nhooks = true\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, _, err := EnableHooksFlag([]byte(tc.in))
			if err == nil {
				t.Fatalf("no error; got %q", out)
			}
			if !strings.Contains(err.Error(), tc.err) {
				t.Errorf("error %q does not mention %q", err, tc.err)
			}
		})
	}
}

func FuzzEnableHooksFlag(f *testing.F) {
	f.Add(realConfig)
	f.Add("[features]\nhooks = false\n")
	f.Add("features.x = 1\n")
	f.Add("features = { hooks = false }\n")
	f.Add("a = 1\r\n[features]\r\n")
	f.Fuzz(func(t *testing.T, in string) {
		out, changed, err := EnableHooksFlag([]byte(in))
		if err != nil {
			return // refusing is always allowed
		}
		// Whatever was accepted is on afterwards and was verified by
		// sameButFlag; a second pass must be a no-op.
		if st, err := ReadHooksFlag(out); err != nil || !st.On() {
			t.Fatalf("after edit of %q: %+v %v", in, st, err)
		}
		if !changed && string(out) != in {
			t.Fatalf("unchanged but different")
		}
		if _, again, _ := EnableHooksFlag(out); again {
			t.Fatalf("not idempotent on %q", in)
		}
	})
}

func TestTurnedOff(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Off
		ok   bool
	}{
		{"[features]\ncodex_hooks = false # off for now\n", Off{"codex_hooks", 2, "off for now"}, true},
		{"model = \"o3\"\n\n[features]\nhooks=false\n", Off{"hooks", 4, ""}, true},
		{"[features]\nhooks = true\n", Off{}, false},
		{"model = \"o3\"\n", Off{}, false},
		{"features.hooks = false\n", Off{"hooks", 1, ""}, true},
	} {
		got, ok := TurnedOff([]byte(tc.in))
		if got != tc.want || ok != tc.ok {
			t.Errorf("TurnedOff(%q) = %+v %v; want %+v %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}
