// Package agentdef reads agent definitions: a TOML file per agent that says,
// as data, what ag's Go providers say in code — how its process looks,
// what its screens mean, which keys answer it and which command lines
// start it. A definition is compiled into the very structures the Go
// providers fill (provider.ProcRules, panes.Rules, provider.KeyMap,
// provider.Commands), so every program runs it with the engine it already
// has. Definitions are built in (builtin/*.toml, embedded) or the user's
// ($XDG_CONFIG_HOME/ag/agents/ID.toml), which may also replace a built-in
// one's rules. doc/agent-definitions.md describes every key.
package agentdef

import "github.com/agwatch/ag/providers/hookdialect"

// File is one definition as written: every key of the format, nothing
// compiled. A section left out is nil; in a user's file that overrides a
// built-in agent, a section given replaces the built-in one whole.
type File struct {
	ID       string    `toml:"id"`
	Name     string    `toml:"name"`
	Checked  string    `toml:"checked"` // what the rules were checked against: "cn 1.5.47 in tmux 3.3a"
	Process  *Process  `toml:"process"`
	Screen   *Screen   `toml:"screen"`
	Keys     *Keys     `toml:"keys"`
	Commands *Commands `toml:"commands"`
	// Hooks is the agent's variant of Claude Code's hook shape, for an
	// agent that copied it: ag-hook maps its payloads, and ag-hook
	// install writes its settings file when [hooks.install] says where.
	Hooks *hookdialect.Dialect `toml:"hooks"`
}

// Process is provider.ProcRules.
type Process struct {
	Names     []string `toml:"names"`
	Prefixes  []string `toml:"prefixes"`
	Paths     []string `toml:"paths"`
	Patterns  []string `toml:"patterns"`
	Not       []string `toml:"not"`
	NotNames  []string `toml:"not_names"`
	Runtimes  []string `toml:"runtimes"`
	Launchers []string `toml:"launchers"`
}

// Screen is panes.Rules.
type Screen struct {
	Lines int `toml:"lines"`
	// Turns: whether the screen alone says when a turn starts and ends;
	// unset, true (a definition has no hooks or transcript to say so).
	Turns  *bool   `toml:"turns"`
	Titles []Title `toml:"title"`
	States []State `toml:"state"`
}

// Title is panes.Title.
type Title struct {
	Name      string `toml:"name"`
	Kind      string `toml:"kind"`
	Attention string `toml:"attention"`
	Match     string `toml:"match"`
}

// State is panes.State.
type State struct {
	Name      string     `toml:"name"`
	Kind      string     `toml:"kind"`
	Attention string     `toml:"attention"`
	Needs     []string   `toml:"needs"`
	Anchor    string     `toml:"anchor"`
	All       []Near     `toml:"all"`
	Any       []Near     `toml:"any"`
	None      []Near     `toml:"none"`
	Bottom    int        `toml:"bottom"`
	Aside     bool       `toml:"aside"`
	Tool      string     `toml:"tool"`
	Tools     []ToolLine `toml:"tools"`
	Text      *Text      `toml:"text"`
	Rows      *Rows      `toml:"rows"`
}

// Near is panes.Near.
type Near struct {
	Match string `toml:"match"`
	From  int    `toml:"from"`
	To    int    `toml:"to"`
}

// ToolLine is panes.ToolLine.
type ToolLine struct {
	Match  string `toml:"match"`
	Tool   string `toml:"tool"`
	Within int    `toml:"within"`
}

// Text is panes.Text; Start is its From.
type Text struct {
	Start  string `toml:"start"`
	Within int    `toml:"within"`
	Up     bool   `toml:"up"`
	Lines  int    `toml:"lines"`
	Skip   string `toml:"skip"`
	Stop   string `toml:"stop"`
	Cut    string `toml:"cut"`
	CutEnd string `toml:"cut_end"`
	Max    int    `toml:"max"`
	Inline bool   `toml:"inline"`
}

// Rows is panes.Rows.
type Rows struct {
	Row    string `toml:"row"`
	Cursor string `toml:"cursor"`
	Target string `toml:"target"`
	Not    string `toml:"not"`
	Within int    `toml:"within"`
}

// Keys is provider.KeyMap. A reply key list left out offers no such
// reply; an empty one ([]) types the text straight in.
type Keys struct {
	Approve     []string `toml:"approve"`
	Deny        []string `toml:"deny"`
	PlanApprove []string `toml:"plan_approve"`
	PlanDeny    []string `toml:"plan_deny"`
	SubDeny     []string `toml:"sub_deny"`
	SubDenyThen string   `toml:"sub_deny_then"`

	Reply           []string `toml:"reply"`            // FinishedPrelude
	PermissionReply []string `toml:"permission_reply"` // PermissionPrelude
	PlanReply       []string `toml:"plan_reply"`       // PlanPrelude
	Answer          []string `toml:"answer"`           // AnswerPrelude
	AnswerRow       string   `toml:"answer_row"`
	AnswerSubmit    []string `toml:"answer_submit"`
	AnswerSubmitOn  string   `toml:"answer_submit_on"`

	Fields  []string          `toml:"fields"`
	Input   []string          `toml:"input"`
	Unsent  []string          `toml:"unsent"`
	NoReply map[string]string `toml:"no_reply"`
	Paste   bool              `toml:"paste"`

	DefuseLeading string `toml:"defuse_leading"`
	UnsafeReply   string `toml:"unsafe_reply"`  // a pattern: a reply it matches is refused
	UnsafeReason  string `toml:"unsafe_reason"` // what the refusal says

	Screens map[string]ScreenKeys `toml:"screens"`
}

// ScreenKeys is provider.ScreenKeys.
type ScreenKeys struct {
	Approve []string `toml:"approve"`
	Deny    []string `toml:"deny"`
}

// Commands is provider.Commands.
type Commands struct {
	Bin       string `toml:"bin"`
	Resume    string `toml:"resume"`
	Spawn     string `toml:"spawn"`
	Fork      string `toml:"fork"`
	ModelFlag string `toml:"model_flag"`
}
