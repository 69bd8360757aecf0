package serve

import (
	"encoding/json"
	"testing"
	"time"
)

func TestPlan(t *testing.T) {
	for _, tc := range []struct {
		prompt string
		want   Script
	}{
		{"say hello", Script{Text: "FAKE-REPLY: say hello"}},
		{"please\nRUN:   echo marker > marker.txt  \nthanks", Script{Command: "echo marker > marker.txt"}},
		{"RUNSAFE: ls -la", Script{Command: "ls -la", Safe: true}},
		{"RUN: true SLOW", Script{Command: "true SLOW", Delay: DefaultSlow}},
		{"think SLOW:1.5s", Script{Text: "FAKE-REPLY: think SLOW:1.5s", Delay: 1500 * time.Millisecond}},
		{"x SLOW:250ms", Script{Text: "FAKE-REPLY: x SLOW:250ms", Delay: 250 * time.Millisecond}},
		{"FAIL: quota gone RUN: ls", Script{Fail: "quota gone RUN: ls"}},
		{"FAIL: no SLOW:1s", Script{Fail: "no SLOW:1s", Delay: time.Second}},
		// Markers glued to a word are not markers.
		{"xRUN: ls and NOFAIL: x and SLOWLY", Script{Text: "FAKE-REPLY: xRUN: ls and NOFAIL: x and SLOWLY"}},
		{"RUN:", Script{Text: "FAKE-REPLY: RUN:"}},
		{"first line\nsecond line", Script{Text: "FAKE-REPLY: second line"}},
		{"", Script{Text: "FAKE-REPLY: "}},
	} {
		tc.want.Prompt = tc.prompt
		if got := Plan(tc.prompt); got != tc.want {
			t.Errorf("Plan(%q)\n got %+v\nwant %+v", tc.prompt, got, tc.want)
		}
	}
}

func TestReply(t *testing.T) {
	for _, tc := range []struct {
		sc   Script
		call *ToolCall
		want string
	}{
		{Script{Text: "x"}, nil, "text"},
		{Script{Command: "ls", Delay: time.Second}, &ToolCall{Name: "bash"}, "call:bash ls delay=1s"},
		{Script{Tool: "question"}, &ToolCall{Name: "question", Args: map[string]any{"q": "<why>"}}, `call:question {"q":"<why>"}`},
		{Script{Fail: "no", Delay: time.Second}, nil, "error no"},
	} {
		if got := tc.sc.Reply(tc.call); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.sc, got, tc.want)
		}
	}
}

func TestCall(t *testing.T) {
	tools := []Tool{{"read", json.RawMessage(`{"properties":{"path":{"type":"string"}}}`)},
		{"bash", json.RawMessage(`{"properties":{"command":{"type":"string"}},"required":["command"]}`)},
		{"question", json.RawMessage(`{"properties":{"questions":{"type":"array"}}}`)}}
	for _, tc := range []struct {
		prompt string
		tools  []Tool
		call   string // the call as JSON, "" for none
		text   string
	}{
		{"RUN: ls", tools, `{"Name":"bash","Args":{"command":"ls"}}`, ""},
		{"RUN: ls", tools[:1], "", "FAKE-REPLY: no shell tool offered"},
		{`CALL: question {"questions":[{"question":"Which?","options":[{"label":"Blue"}]}]}`, tools,
			`{"Name":"question","Args":{"questions":[{"options":[{"label":"Blue"}],"question":"Which?"}]}}`, ""},
		{"please CALL: read", tools, `{"Name":"read","Args":{}}`, ""},
		// CALL: before RUN: in the same prompt: a sub-agent's prompt can
		// hold the RUN: for the sub-agent.
		{`CALL: task {"prompt":"RUN: ls"}`, append(tools, Tool{Name: "task"}), `{"Name":"task","Args":{"prompt":"RUN: ls"}}`, ""},
		{"CALL: task {}", tools, "", "FAKE-REPLY: no tool task offered"},
		{"CALL: read [1]", tools, "", "FAKE-REPLY: the arguments of CALL: read are not a JSON object"},
		{"CALL: read null", tools, "", "FAKE-REPLY: the arguments of CALL: read are not a JSON object"},
		{"say hello", tools, "", "FAKE-REPLY: say hello"},
	} {
		sc := Plan(tc.prompt)
		call := sc.Call(tc.tools)
		got := ""
		if call != nil {
			got = JSON(call)
		}
		if got != tc.call || sc.Text != tc.text || call == nil && (sc.Command != "" || sc.Tool != "") {
			t.Errorf("%q: call %s text %q (%+v), want %s %q", tc.prompt, got, sc.Text, sc, tc.call, tc.text)
		}
	}
}

func FuzzPlan(f *testing.F) {
	for _, s := range []string{"RUN: echo hi SLOW:1s", "FAIL: x", "RUNSAFE:\tls\r\nSLOW:9ms", "SLOW:1.2.3s", `CALL: t {"a":1} RUN: x`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, prompt string) {
		sc := Plan(prompt)
		n := 0
		for _, s := range []string{sc.Command, sc.Tool, sc.Text, sc.Fail} {
			if s != "" {
				n++
			}
		}
		if n != 1 {
			t.Errorf("Plan(%q) = %+v: want exactly one of command, tool, text, fail", prompt, sc)
		}
		if sc.Delay < 0 {
			t.Errorf("negative delay %v", sc.Delay)
		}
	})
}

func TestFill(t *testing.T) {
	for _, tc := range []struct{ name, schema, want string }{
		{"title", `{"type":"object","properties":{"title":{"type":"string"}},"required":["title"]}`, `{"title":"Fake title"}`},
		{"required only", `{"required":["title","name"]}`, `{"name":"Fake name","title":"Fake title"}`},
		// Gemini CLI 0.61's routers: a score its own check wants >= 1
		// (the schema does not say so), and an enum.
		{"router", `{"type":"object","properties":{"reasoning":{"type":"string"},"complexity_score":{"type":"INTEGER","description":"Complexity score from 1-100."},
			"model_choice":{"type":"string","enum":["flash","pro"]}},"required":["reasoning","complexity_score"]}`,
			`{"complexity_score":1,"model_choice":"flash","reasoning":"Fake reasoning"}`},
		{"bounds", `{"properties":{"a":{"type":"integer","minimum":5},"b":{"type":"number","maximum":0.5},
			"c":{"type":"integer","exclusiveMinimum":1},"d":{"type":"number","exclusiveMaximum":0},"e":{"type":"integer","minimum":2.5}}}`,
			`{"a":5,"b":0,"c":2,"d":-0.5,"e":3}`},
		{"openapi", `{"type":"OBJECT","properties":{"ok":{"type":"BOOLEAN"},"tags":{"type":"ARRAY","items":{"type":"STRING"},"minItems":"2"}}}`,
			`{"ok":false,"tags":["Fake tags","Fake tags"]}`},
		{"nullable and const", `{"properties":{"a":{"type":["null","string"]},"b":{"const":7},"c":{"type":"null"}}}`, `{"a":"Fake a","b":7,"c":null}`},
		{"any of", `{"properties":{"a":{"anyOf":[{"type":"null"},{"type":"integer","minimum":3}]}}}`, `{"a":3}`},
		{"unbounded", `{"properties":{"n":{"type":"number"},"i":{"type":"integer","maximum":-2},"j":{"type":"INTEGER"}}}`, `{"i":-2,"j":1,"n":0}`},
		{"all of", `{"allOf":[{"properties":{"a":{"type":"string"}}},{"properties":{"b":{"type":"boolean"}},"required":["c"]}]}`, `{"a":"Fake a","b":false,"c":"Fake c"}`},
		{"ref", `{"$defs":{"T":{"type":"object","properties":{"x":{"type":"string","maxLength":3}}}},"type":"array","items":{"$ref":"#/$defs/T"},"maxItems":0}`, `[]`},
		{"ref item", `{"definitions":{"T":{"type":"string","minLength":12}},"properties":{"x":{"$ref":"#/definitions/T"}}}`, `{"x":"Fake xxxxxxx"}`},
		{"dangling ref", `{"properties":{"x":{"$ref":"#/nowhere"}}}`, `{"x":{}}`},
		{"self ref", `{"properties":{"x":{"$ref":"#"}}}`, "depth"},
		{"not json", `{`, `{}`},
		{"not an object", `[1]`, `{}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := FillJSON(json.RawMessage(tc.schema))
			if tc.want == "depth" {
				if !json.Valid([]byte(got)) {
					t.Errorf("got %s", got)
				}
				return
			}
			if got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

func FuzzFill(f *testing.F) {
	f.Add(`{"type":"object","properties":{"title":{"type":"string"}},"required":["title"]}`)
	f.Add(`{"type":"array","items":{"$ref":"#"},"minItems":3}`)
	f.Add(`{"properties":{"n":{"type":"integer","minimum":1e300,"maximum":-1}},"allOf":[{"$ref":"#/allOf"}]}`)
	f.Add(`{"type":"string","minLength":1e12,"maxLength":-4}`)
	f.Fuzz(func(t *testing.T, schema string) {
		got := FillJSON(json.RawMessage(schema))
		if !json.Valid([]byte(got)) {
			t.Errorf("FillJSON(%q) = %q: not JSON", schema, got)
		}
	})
}

func TestShellTool(t *testing.T) {
	bash := Tool{"bash", json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"},"description":{"type":"string"},
		"timeout":{"type":"number"},"mode":{"type":"string","enum":["sync","async"]}},"required":["command","mode"]}`)}
	readBash := Tool{"read_bash", json.RawMessage(`{"properties":{"shellId":{"type":"string"}}}`)}
	gemini := Tool{"run_shell_command", json.RawMessage(`{"type":"OBJECT","properties":{"command":{"type":"STRING"},"description":{"type":"STRING"},"dir_path":{"type":"STRING"}},"required":["command"]}`)}
	exec := Tool{"exec_command", json.RawMessage(`{"properties":{"cmd":{"type":"string"}}}`)}
	argv := Tool{"shell", json.RawMessage(`{"properties":{"command":{"type":"array","items":{"type":"string"}}}}`)}
	read := Tool{"read", json.RawMessage(`{"properties":{"path":{"type":"string"}}}`)}
	cline := Tool{"run_commands", json.RawMessage(`{"type":"object","properties":{"commands":{"type":"array","items":{"type":"string"}}},"required":["commands"]}`)}
	launch := Tool{"launch-process", json.RawMessage(`{"properties":{"command":{"type":"string"},"wait":{"type":"boolean"}},"required":["command","wait"]}`)}
	kill := Tool{"kill-process", json.RawMessage(`{"properties":{"terminal_id":{"type":"integer"}}}`)}
	for _, tc := range []struct {
		name  string
		tools []Tool
		want  string
		args  string
	}{
		{"bash among its helpers", []Tool{readBash, read, bash}, "bash", `{"command":"ls","description":"Run the requested command","mode":"sync"}`},
		{"gemini", []Tool{read, gemini}, "run_shell_command", `{"command":"ls","description":"Run the requested command"}`},
		{"cmd", []Tool{exec, read}, "exec_command", `{"cmd":"ls"}`},
		{"auggie", []Tool{kill, read, launch}, "launch-process", `{"command":"ls","wait":false}`},
		{"argv", []Tool{argv}, "shell", `{"command":["bash","-lc","ls"]}`},
		{"a list of command lines", []Tool{read, cline}, "run_commands", `{"commands":["ls"]}`},
		{"bash before run_shell_command", []Tool{gemini, bash}, "bash", ""},
		{"none", []Tool{read, readBash}, "", ""},
		{"no tools", nil, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tool, ok := ShellTool(tc.tools)
			if tool.Name != tc.want || ok != (tc.want != "") {
				t.Fatalf("picked %q %v, want %q", tool.Name, ok, tc.want)
			}
			if tc.args != "" {
				b, _ := json.Marshal(tool.ShellArgs("ls"))
				if string(b) != tc.args {
					t.Errorf("args %s, want %s", b, tc.args)
				}
			}
		})
	}
}

func TestTyped(t *testing.T) {
	for text, want := range map[string]string{
		"<session_context>\nThis is the CLI.\n</session_context>\n":          "",
		"<system-reminder a=\"b\">RUN: x</system-reminder>":                  "",
		"<current_datetime>2026-12-01T11:32</current_datetime>\n\nsay hello": "say hello",
		"<a>x</a>\n<b>\ny\n</b> RUN: ls":                                     "RUN: ls",
		"<a>x</b>":                                                           "<a>x</b>",
		"  say hello ":                                                       "say hello",
		"<br> RUN: ls":                                                       "<br> RUN: ls",
		"say <b>hello</b>":                                                   "say <b>hello</b>",
	} {
		if got := Typed(text); got != want {
			t.Errorf("Typed(%q) = %q, want %q", text, got, want)
		}
	}
}
