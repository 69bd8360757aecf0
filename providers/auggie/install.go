package auggie

import (
	"github.com/agwatch/ag/providers/auggie/auggiehook"
	"github.com/agwatch/ag/providers/hookdialect/hooksettings"
	"github.com/agwatch/ag/providers/provider"
)

var _ provider.Installer = (*Provider)(nil)

// installer edits ~/.augment/settings.json with Auggie's dialect: a
// handler `'<ag-hook>' auggie` on each event Auggie fires, a matcher (".*",
// every tool) on the two tool events only, the timeout in milliseconds.
// Auggie splits a command with no shell metacharacters into words itself,
// honouring the single quotes, and runs the rest through bash: a quoted
// path is fine either way.
var installer = hooksettings.Installer{D: auggiehook.Dialect()}

// ConfigPath is ~/.augment/settings.json.
func (*Provider) ConfigPath(env provider.Env) string { return installer.ConfigPath(env) }

// Install adds ag's hooks to settings.json, and says that the account
// decides whether Auggie runs them.
func (*Provider) Install(ie provider.InstallEnv) (provider.InstallResult, error) {
	res, err := installer.Install(ie)
	if err == nil && res.Changed {
		res.Actions = append(res.Actions, "! Auggie runs hooks only where Augment's service enables them for the account (its enable_hooks flag): /hooks in auggie lists them when it does")
	}
	return res, err
}

// Uninstall removes ag's hooks (and nothing else) from settings.json.
func (*Provider) Uninstall(ie provider.InstallEnv) (provider.InstallResult, error) {
	return installer.Uninstall(ie)
}

// Status reads settings.json.
func (*Provider) Status(ie provider.InstallEnv) (provider.InstallStatus, error) {
	return installer.Status(ie)
}
