//go:build e2e

package e2e

import (
	"path/filepath"
	"runtime"
)

// LoginStages are the first members of the login pipeline, as
// contrib/ag-pipeline runs them, reading tm's server: ag-tail --follow,
// then ag-detect --watch --all --panes (which passes ag-tail's events on
// among its own). A test that starts its own pipeline with screens read
// follows them with its other stages (ag-fold, ag-notify …).
func LoginStages(tm *Tmux) [][]string {
	return [][]string{{"ag-tail", "--follow"}, {"ag-detect", "--watch", "--all", "--panes", "-S", tm.Socket}}
}

// StartLogin runs the login pipeline itself, contrib/ag-pipeline from this
// tree, as the systemd unit and make run start it: the programs from this
// tree first on PATH, AG_TMUX naming tm's server, args for ag-notify. Its
// stages' output is not seen: a test watches what they leave (the state
// file, notifications, what is typed in a pane). It is stopped (SIGTERM)
// at teardown.
func (h *Harness) StartLogin(tm *Tmux, args ...string) *Proc {
	h.T.Helper()
	_, here, _, _ := runtime.Caller(0)
	script := filepath.Join(filepath.Dir(here), "..", "..", "contrib", "ag-pipeline")
	p := h.Command("ag-pipeline", append([]string{script}, args...)...)
	p.Cmd.Env = append(p.Cmd.Env, "AG_TMUX=-S "+tm.Socket, "TMPDIR="+h.Root)
	h.Start(p)
	return p
}
