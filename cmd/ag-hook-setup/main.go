// ag-hook-setup is the part of ag-hook that edits agents' configs: ag-hook
// runs it for `install`, `uninstall`, `status`, --help, --man and
// --version, and for anything it does not run itself.
//
// Synopsis (as ag-hook passes it on):
//
//	ag-hook install --agent AGENT [--dry-run] [--statusline] [--hook PATH]
//	ag-hook uninstall --agent AGENT [--dry-run]
//	ag-hook status [--agent AGENT] [--hook PATH]
//	ag-hook --help | --man | --version
//
// Description:
//
// ag-hook itself is only what an agent runs many times a turn (`ag-hook
// claude`, `ag-hook statusline`): a small program, because a hook is a
// process start and start-up time grows with the binary. The config
// editors, with their JSON and TOML libraries, and the flag parser that
// writes the help live here, in a program of their own that ag-hook runs in
// its place (exec, same arguments). ag-hook sets $AG_HOOK_EXE to its own
// path, the path install writes into configs; run directly, this program
// uses the ag-hook beside it. Run `ag-hook --help` for every option.
package main

import (
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}
