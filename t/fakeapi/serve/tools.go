package serve

import (
	"encoding/json"
	"strings"
)

// Tool is a function a client offers the model: its name and the JSON
// schema of its arguments.
type Tool struct {
	Name   string
	Params json.RawMessage
}

// ShellTool picks the shell tool among the ones a client offers, by what
// it looks like rather than by agent: a tool with a command (or cmd)
// argument named bash, shell or sh first, then one whose name has
// shell or bash in it (run_shell_command), then exec, command, terminal
// or launch (Auggie's launch-process); the first offered among equals.
func ShellTool(tools []Tool) (Tool, bool) {
	best, score := Tool{}, 0
	for _, t := range tools {
		if s := shellScore(t); s > score {
			best, score = t, s
		}
	}
	return best, score > 0
}

func shellScore(t Tool) int {
	if commandKey(properties(t.Params)) == "" {
		return 0
	}
	n := strings.ToLower(t.Name)
	switch {
	case n == "bash" || n == "shell" || n == "sh":
		return 3
	case strings.Contains(n, "shell") || strings.Contains(n, "bash"):
		return 2
	case strings.Contains(n, "exec") || strings.Contains(n, "command") || strings.Contains(n, "terminal") || strings.Contains(n, "launch"):
		return 1
	}
	return 0
}

// ShellDescription is the description a shell call gives its command,
// where the tool asks for one.
const ShellDescription = "Run the requested command"

// ShellArgs are the arguments that run cmd with t: its command argument
// (an argv ["bash", "-lc", cmd] where the schema wants an array), a
// description where it has one, and every other required argument made
// up to fit its schema. Optional arguments are left out: a made-up
// timeout would cut the command short.
func (t Tool) ShellArgs(cmd string) map[string]any {
	var root map[string]any
	json.Unmarshal(t.Params, &root)
	props := properties(t.Params)
	args := map[string]any{}
	f := filler{root: root}
	if req, ok := root["required"].([]any); ok {
		for _, r := range req {
			if k, ok := r.(string); ok {
				p, _ := props[k].(map[string]any)
				args[k] = f.fill(p, k, 1)
			}
		}
	}
	key := commandKey(props)
	if key == "" {
		key = "command"
	}
	args[key] = cmd
	if p, ok := props[key].(map[string]any); ok && typeOf(p) == "array" {
		args[key] = []string{"bash", "-lc", cmd}
		if key == "commands" {
			args[key] = []string{cmd} // a list of command lines, not an argv
		}
	}
	if _, ok := props["description"]; ok {
		args["description"] = ShellDescription
	}
	return args
}

// properties is a schema's top-level properties (nil if it has none).
func properties(schema json.RawMessage) map[string]any {
	var s struct {
		Properties map[string]any `json:"properties"`
	}
	json.Unmarshal(schema, &s)
	return s.Properties
}

// commandKey is the argument a shell tool takes its command in: command,
// else cmd, else commands (Cline's run_commands: a list of command lines);
// "" when the schema has properties but none of them. A tool with no
// schema at all may be anything: "command".
func commandKey(props map[string]any) string {
	if props == nil {
		return "command"
	}
	for _, k := range []string{"command", "cmd", "commands"} {
		if _, ok := props[k]; ok {
			return k
		}
	}
	return ""
}
