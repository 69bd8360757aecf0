package main

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/agwatch/ag/filters/tmux"
)

// looker answers "is the user looking at this pane": the pane is active in
// the active window of a session some client is attached to (one tmux
// call), and on macOS the terminal app is frontmost. A control-mode client
// (ag-detect --watch's, iTerm2's) shows no one anything: only the other
// clients count. Answers are cached
// briefly: a burst of states must not become a burst of tmux calls.
type looker struct {
	tmux *tmux.Client
	now  func() time.Time
	ttl  time.Duration

	mu    sync.Mutex
	cache map[string]seen
}

type seen struct {
	looking bool
	at      time.Time
}

func newLooker(t *tmux.Client, now func() time.Time) *looker {
	return &looker{tmux: t, now: now, ttl: 500 * time.Millisecond, cache: map[string]seen{}}
}

func (l *looker) Looking(pane string) bool {
	now := l.now()
	l.mu.Lock()
	if s, ok := l.cache[pane]; ok && now.Sub(s.at) < l.ttl {
		l.mu.Unlock()
		return s.looking
	}
	l.mu.Unlock()

	// One call answers for every pane, so a sweep over several shown
	// notifications costs one tmux process, not one each.
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	out, err := l.tmux.Run(ctx, "list-clients", "-F", "#{?client_control_mode,,C #{session_id}}", ";",
		"list-panes", "-a", "-F", "#{pane_id} #{pane_active} #{window_active} #{session_id}")
	var lines []string
	shown := map[string]bool{} // sessions a client that shows them is attached to
	for _, l := range strings.Split(string(out), "\n") {
		if sid, ok := strings.CutPrefix(l, "C "); ok {
			shown[sid] = true
		} else if l != "" {
			lines = append(lines, l)
		}
	}
	front := true
	if isDarwin {
		front = terminalFrontmost(ctx)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if err != nil {
		l.cache[pane] = seen{false, now}
		return false
	}
	found := false
	for _, line := range lines {
		f := strings.Fields(line)
		if len(f) != 4 {
			continue
		}
		looking := f[1] == "1" && f[2] == "1" && shown[f[3]] && front
		l.cache[f[0]] = seen{looking, now}
		found = found || f[0] == pane
	}
	if !found {
		l.cache[pane] = seen{false, now}
	}
	return l.cache[pane].looking
}

// forget drops cached answers older than the ttl, keeping the map small.
func (l *looker) forget() {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	for p, s := range l.cache {
		if now.Sub(s.at) >= l.ttl {
			delete(l.cache, p)
		}
	}
}
