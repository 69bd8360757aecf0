// Package hookdialect maps the hook payloads of every agent that speaks
// Claude Code's hook shape: a JSON object on stdin naming its
// hook_event_name, session_id, transcript_path, cwd, tool_name and
// tool_input, Notification types. Claude Code, Qwen Code and Factory Droid
// speak it with small differences; a Dialect says which, as data, so the
// next such agent is a table rather than code (doc/hook-dialects.md).
//
// ag-hook links this package for every such agent: it holds the mapping
// only. Editing the agent's settings file is hooksettings', beside it.
package hookdialect

// Attention values a Notification type may mean (Dialect.Notifications).
const (
	NoticePermission = "permission" // a wait: the agent asks to run a tool
	NoticeQuestion   = "question"   // a wait: the agent asks the user something
	NoticePlan       = "plan"       // a wait: the agent asks to approve a plan
	// NoticeIdle: the agent is back at its prompt, whatever happened (a
	// turn that ended, or a denied call or Escape that ends the turn with
	// no Stop hook): an interrupt with reason idle, which ag-fold takes as
	// the end of a turn only when no Stop ended it.
	NoticeIdle = "idle"
)

// What a Stop's cause means (Dialect.StopCauses).
const (
	StopEnd       = "end"       // the turn ended as it should
	StopInterrupt = "interrupt" // the user stopped it
	StopFail      = "fail"      // it failed
)

// ReasonRefused is a tool.end's reason for a call the user refused when
// the turn goes on after it (Dialect.Refusal): not "denied", which ends
// the turn at the prompt in ag-fold.
const ReasonRefused = "refused"

// Timeout units of a handler's "timeout" (Dialect.TimeoutUnit).
const (
	Seconds      = "s"
	Milliseconds = "ms"
)

// Entry is one hook event install writes, under the agent's own name,
// with the matcher its group carries ("" for none).
type Entry struct {
	Event   string `toml:"event"`
	Matcher string `toml:"matcher"`
}

// Dialect is one agent's variant of Claude's hook shape. The zero value of
// every field is Claude's behaviour, so a dialect lists only how its agent
// differs; every field but Model can come from a TOML file.
type Dialect struct {
	// Agent is the protocol's agent id its events carry: "qwen".
	Agent string `toml:"agent"`
	// Processes are the comm names of the agent's process: ag-hook takes
	// the nearest ancestor with one of them as the agent.
	Processes []string `toml:"processes"`

	// Events maps the agent's hook_event_name values to Claude's
	// ("PromptSubmit" = "UserPromptSubmit"). A name not in it is taken as
	// Claude's own; one Claude does not have maps to nothing.
	Events map[string]string `toml:"events"`
	// Fields maps the agent's payload member names to Claude's
	// ("conversation_id" = "session_id"), for the members ag reads. A
	// name may be a path into objects ("_exchange.exchange.response_text");
	// an array where Claude has a string gives its first element
	// (workspace_roots as cwd).
	Fields map[string]string `toml:"fields"`
	// Notifications maps a Notification's notification_type to what it
	// means (Notice*). Nil: Claude's own types. A type not in the map is
	// no wait: only what the agent shows as a wait should raise one.
	Notifications map[string]string `toml:"notifications"`

	// NoticeNamesTool: a permission notification's message names the tool
	// ("… needs your permission to use ask_user_question"), so a question
	// or a plan asked through it is that, not a permission.
	NoticeNamesTool bool `toml:"notice_names_tool"`

	// QuestionTools and PlanTools are tools whose permission request is
	// really a question or a plan approval (Claude's AskUserQuestion,
	// ExitPlanMode). ShellTools run a command: their summary is the whole
	// command, not its first line.
	QuestionTools []string `toml:"question_tools"`
	PlanTools     []string `toml:"plan_tools"`
	ShellTools    []string `toml:"shell_tools"`

	// PreToolBeforeDialog: PreToolUse fires before the permission dialog
	// (Claude, Droid, Auggie), so it is no proof the tool runs; false when
	// it fires only once the tool really runs (Qwen). Documentation for
	// now: the mapping is the same; ag-fold does not act on it.
	PreToolBeforeDialog bool `toml:"pre_tool_before_dialog"`

	// Refusal starts the error a PostToolUse carries (in Claude's "error",
	// through Fields) for a call the user refused at the dialog, when the
	// agent sends the refusal to the model and the turn goes on (Auggie:
	// "Tool execution denied by user"): a tool.end with reason "refused",
	// which ends no turn. Any other error is the call's failure.
	Refusal string `toml:"refusal"`
	// StopCauses maps a Stop's cause (its stop_cause, through Fields) to
	// what ended the turn: StopInterrupt (the user's Escape), StopFail, or
	// StopEnd; a cause not listed is an ordinary end, its name kept as the
	// reason unless it is StopEnd's.
	StopCauses map[string]string `toml:"stop_causes"`
	// AsksAtPreTool: a question or plan tool always asks the user, and no
	// hook says so but its PreToolUse (Droid's AskUser and ExitSpecMode,
	// whose Notification names no tool): that PreToolUse is the wait.
	AsksAtPreTool bool `toml:"asks_at_pre_tool"`

	// Modes maps the payload's permission_mode to ag's mode names
	// (event.Mode*): every event carries it. Nil: the agent's value is
	// not read; a value not in the map is kept, lower-cased.
	Modes map[string]string `toml:"modes"`
	// Unchecked starts the message of a question notification that is the
	// agent's hold before an action its safety check could not judge
	// (Claude's "Auto mode can't check actions …"): a permission wait
	// about that action, reason unchecked.
	Unchecked []string `toml:"unchecked"`
	// Background names the environment a hook of a background session
	// runs with (Claude Code's claude --bg): its events say where:
	// background, with the job.
	Background Background `toml:"background"`

	// Install is what `ag-hook install` writes: the file (relative to
	// HOME, or to $ConfigDirEnv when that is set), the events with their
	// matchers, a handler's timeout and its unit, and what else the file
	// may hold.
	Install Install `toml:"install"`

	// Model names a SessionStart's model as the transcripts do, with its
	// context window (0: unknown); nil keeps the name as sent. Code, not
	// data: Claude's "[1m]" suffix.
	Model func(name string) (model string, window int64) `toml:"-"`
}

// Install is where and how a dialect's hooks are written.
type Install struct {
	// Dir is the agent's config folder under HOME (".claude"); ConfigDirEnv
	// names a variable that replaces it ("CLAUDE_CONFIG_DIR").
	Dir          string  `toml:"dir"`
	ConfigDirEnv string  `toml:"config_dir_env"`
	File         string  `toml:"file"` // "settings.json"
	Entries      []Entry `toml:"entries"`
	// Timeout is a handler's timeout in seconds (0: none written), written
	// in TimeoutUnit.
	Timeout     int    `toml:"timeout"`
	TimeoutUnit string `toml:"timeout_unit"`
	// Comments: the agent reads the file with // and /* */ comments.
	Comments bool `toml:"comments"`
	// Settings are members of "hooks" that configure the hooks rather than
	// name an event (kept as read).
	Settings []string `toml:"settings"`
	// StatusLine is the path to the agent's statusLine command object, a
	// command fed Claude's statusLine JSON ({"statusLine"}, Qwen's
	// {"ui", "statusLine"}); nil: it has none ag wraps. StatusLineArgs are
	// what `ag-hook statusline` needs to read it as this agent's
	// ("--agent", "qwen"; none for Claude, its default).
	StatusLine     []string `toml:"status_line"`
	StatusLineArgs []string `toml:"status_line_args"`
}

// ID is the agent id (hooks.Mapper).
func (d *Dialect) ID() string { return d.Agent }

// ProcessNames are the agent's comm names (hooks.Mapper).
func (d *Dialect) ProcessNames() []string { return d.Processes }

// TimeoutValue is the handler timeout as the agent reads it.
func (in *Install) TimeoutValue() int {
	if in.TimeoutUnit == Milliseconds {
		return in.Timeout * 1000
	}
	return in.Timeout
}
