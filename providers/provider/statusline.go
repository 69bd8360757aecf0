package provider

// StatusLiner is an agent with a status-line command (Claude Code's
// statusLine) that ag can wrap: ag-hook statusline takes the agent's
// status payload, reports its meters and passes it on to the command the
// user had, which keeps printing the line.
type StatusLiner interface {
	Installer
	// InstallStatusLine makes the status line run ag (Hook), keeping the
	// user's command as the one that prints.
	InstallStatusLine(ie InstallEnv) (InstallResult, error)
	// UninstallStatusLine restores the user's command exactly (or removes
	// the status line ag added where there was none).
	UninstallStatusLine(ie InstallEnv) (InstallResult, error)
	// StatusLineStatus reads it; Reasons say what it runs.
	StatusLineStatus(ie InstallEnv) (InstallStatus, error)
}
