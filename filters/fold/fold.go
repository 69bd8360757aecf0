// Package fold turns observations of agents (hook, transcript, pane and
// process events) into one state per session: idle, working, waiting (with
// attention and tool), done, failed or gone, plus meters. It is pure: no
// I/O, and the only clock is the one passed to Tick, so tests drive time.
//
// Sources disagree; the rules below say which wins (see
// doc/ag-fold.md for the table):
//
//   - An observation older than the one that set the current status does
//     not change it; at the same moment a hook outranks the transcript.
//   - Events of a sub-agent (sub) only count in-flight sub-agents: they
//     never end the main session's wait nor finish its turn.
//   - The pane may raise a session to waiting and relabel a hook's
//     permission wait (question, plan). It ends any wait by showing the
//     agent at work after the prompt (answered), and lowers a hook's wait
//     to idle by showing the idle composer once the wait is older than
//     PaneGrace — and a working session with nothing in flight once the
//     composer has shown for IdleGrace with nothing heard since.
//   - No hook reports a resolved Codex approval: a transcript tool.end
//     newer than the wait (less HookSlack, or NoHookSlack with no hook)
//     ends it.
package fold

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/hostname"
)

// Config holds the fold's time windows and memory bounds.
type Config struct {
	// PaneGrace is how old a hook's or transcript's wait must be before the
	// pane showing the idle composer may lower it to idle (Escape on a
	// permission prompt fires no hook).
	PaneGrace time.Duration
	// DrawGrace is how long after a hook's wait the pane may show the agent
	// at work before it has drawn the prompt, and not have it taken for
	// the answer (Claude 2.1.332 draws its picker about half a second after
	// the hook).
	DrawGrace time.Duration
	// IdleGrace is how long the pane must have shown the idle composer,
	// with nothing heard since, before a working session with nothing in
	// flight is idle (Escape before Claude's first output writes nothing).
	IdleGrace time.Duration
	// KeepGone is how long a gone session stays in the states.
	KeepGone time.Duration
	// HookSlack and NoHookSlack: how much older than the wait a transcript
	// tool.end may be and still end it (write-order jitter between files).
	HookSlack   time.Duration
	NoHookSlack time.Duration
	// SameMoment: a hook event this much older than the transcript line of
	// the same kind that set the status still applies (the hook knows more).
	SameMoment time.Duration
	// SeenIDs is how many recent event ids are remembered to fold
	// duplicates once.
	SeenIDs int
	// OneSession says whether an agent's process runs one session at a
	// time; only then does a new session in a process end the one before
	// and take on the window it declared. nil: no agent does.
	OneSession func(agent string) bool
	// Quiet: Apply and Tick say which sessions changed (agent, session,
	// pane and host only), not their states; only the last ones count
	// (States, Saved), so a session's state is made once, not at every
	// change (ag-fold --snapshot).
	Quiet bool
	// ManySessions says whether an agent's one process hosts several
	// live sessions at once (OpenCode's server); while more than one of
	// them waits, each of those waits is ambiguous (see many.go). nil: no
	// agent does.
	ManySessions func(agent string) bool
	// HookEnds says whether an agent's hooks report the end of every
	// turn while its transcript can only guess it (Gemini's chat records
	// an answer before it records that answer's tool calls): once a
	// session's hooks were heard, its transcript's turn.end is no news.
	// nil: no agent.
	HookEnds func(agent string) bool
	// Self is the machine the fold runs on. Its events (and events naming
	// no host) are folded and their states stamped with Self.Name; a
	// session of another host is its own session even when its id or pane
	// matches one here, and its process is never checked from here.
	Self hostname.Self
	// Estimate is how long a tool call the agent's hooks started may go
	// without its end before it is taken as a probable approval wait, for
	// agents whose hooks never report a prompt (Cursor); 0 (and nil): the
	// agent's own hooks or log say when it waits.
	Estimate func(agent string) time.Duration

	// The bounds on what other hosts may put in the fold (bounds.go).
	// FutureSlack: how far ahead of the clock (SetNow) an event may be
	// dated before it is taken as dated when it arrived. HostSessions,
	// RemoteSessions, MaxHosts: how many sessions one other host, and all
	// of them, may keep, and how many other hosts. HostRate (state changes
	// a second, after a burst of HostBurst; 0: no limit, as in a replay)
	// and QuietHost (a host heard of nothing this long has its sessions
	// marked stale; 0: never).
	FutureSlack                            time.Duration
	HostSessions, RemoteSessions, MaxHosts int
	HostRate                               float64
	HostBurst                              int
	QuietHost                              time.Duration
	// Warn says, in one line, that a bound bit (once per host and bound).
	Warn func(msg string)
}

// Defaults are the windows ag-fold uses unless told otherwise.
func Defaults() Config {
	return Config{
		PaneGrace:   30 * time.Second,
		DrawGrace:   2 * time.Second,
		IdleGrace:   5 * time.Second,
		KeepGone:    10 * time.Minute,
		HookSlack:   250 * time.Millisecond,
		NoHookSlack: 2 * time.Second,
		SameMoment:  time.Second,
		SeenIDs:     8192,

		FutureSlack:    DefaultFutureSlack,
		HostSessions:   DefaultHostSessions,
		RemoteSessions: DefaultRemoteSessions,
		MaxHosts:       DefaultMaxHosts,
	}
}

// Folder keeps one state per session. Not safe for concurrent use.
type Folder struct {
	cfg      Config
	sessions map[key]*session
	seen     seen
	changes  uint64
	loose    int // sessions keyed by pane or pid, not yet claimed
	out      []event.Event

	// Other hosts (bounds.go).
	now       time.Time // when the events applied next arrived (SetNow)
	hosts     map[string]*hostInfo
	remoteN   int             // sessions of other hosts
	parked    int             // states waiting for their host's rate limit
	capped    map[string]bool // hosts told a session bound bit
	hostsFull bool            // told MaxHosts bit
	aheadSaid bool            // told this host's events were dated ahead
	latest    time.Time       // the newest event time not dated ahead
	allTokens float64         // what waited passes at remoteRate×HostRate…
	allFilled time.Time       // …from this bucket
	turn      [2]int          // where Release goes on, in each group of hosts
}

// New returns an empty Folder; zero fields of cfg take the defaults.
func New(cfg Config) *Folder {
	d := Defaults()
	if cfg.PaneGrace <= 0 {
		cfg.PaneGrace = d.PaneGrace
	}
	if cfg.DrawGrace <= 0 {
		cfg.DrawGrace = d.DrawGrace
	}
	if cfg.IdleGrace <= 0 {
		cfg.IdleGrace = d.IdleGrace
	}
	if cfg.KeepGone <= 0 {
		cfg.KeepGone = d.KeepGone
	}
	if cfg.HookSlack <= 0 {
		cfg.HookSlack = d.HookSlack
	}
	if cfg.NoHookSlack <= 0 {
		cfg.NoHookSlack = d.NoHookSlack
	}
	if cfg.SameMoment <= 0 {
		cfg.SameMoment = d.SameMoment
	}
	if cfg.SeenIDs <= 0 {
		cfg.SeenIDs = d.SeenIDs
	}
	if cfg.FutureSlack <= 0 {
		cfg.FutureSlack = d.FutureSlack
	}
	if cfg.HostSessions <= 0 {
		cfg.HostSessions = d.HostSessions
	}
	if cfg.RemoteSessions <= 0 {
		cfg.RemoteSessions = d.RemoteSessions
	}
	if cfg.MaxHosts <= 0 {
		cfg.MaxHosts = d.MaxHosts
	}
	if cfg.HostBurst <= 0 {
		cfg.HostBurst = max(1, int(cfg.HostRate*2))
	}
	return &Folder{cfg: cfg, sessions: map[key]*session{}, seen: newSeen(cfg.SeenIDs),
		hosts: map[string]*hostInfo{}, capped: map[string]bool{}}
}

// keys returns the session keys in order: agent, session, pane, pid.
func (f *Folder) keys() []key {
	keys := make([]key, 0, len(f.sessions))
	for k := range f.sessions {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, key.less)
	return keys
}

// Changes counts every change to the states (including sessions dropped),
// so a writer knows when the state file is out of date.
func (f *Folder) Changes() uint64 { return f.changes }

// Len is the number of sessions kept.
func (f *Folder) Len() int { return len(f.sessions) }

// States returns every session's current state, ordered by agent, session
// and pane.
func (f *Folder) States() []event.Event {
	keys := f.keys()
	out := make([]event.Event, 0, len(keys))
	for _, k := range keys {
		s := f.sessions[k]
		s.settle()
		out = append(out, s.view())
	}
	return out
}

// Proc is a process the fold believes runs a live session: ag-fold checks
// it and feeds a proc.down back when it died.
type Proc struct {
	PID int
	// Seen is when the pid was first seen for the session: a process with
	// that pid started after it is a different one (pid reuse).
	Seen time.Time
	// Host is the machine the session runs on, when an event said so.
	Host string
	// TTY is the process's terminal, when an event said so.
	TTY string
}

// Wait is a session waiting for the user to allow a command: its process,
// and the command (as the state shows it) that runs once allowed.
type Wait struct {
	Agent, Session string
	PID            int
	Host           string
	Tool, Text     string
	Since          time.Time // when the wait began
}

// Waits lists the sessions waiting on a permission prompt for a command,
// with a process to look under: the answer shows as the command running
// before any hook or transcript line says so.
func (f *Folder) Waits() []Wait {
	var out []Wait
	for _, k := range f.keys() {
		s := f.sessions[k]
		st := &s.st
		if k.host == "" && st.Status == event.StatusWaiting && st.Attention == event.AttnPermission && st.Text != "" && st.PID > 0 && st.Session != "" {
			out = append(out, Wait{st.Agent, st.Session, st.PID, st.Host, st.Tool, st.Text, s.waitT})
		}
	}
	return out
}

// Procs lists the pids of this host's sessions that are not gone.
func (f *Folder) Procs() []Proc {
	var out []Proc
	for _, s := range f.sessions {
		if s.key.host == "" && s.st.PID > 0 && s.st.Status != event.StatusGone {
			out = append(out, Proc{s.st.PID, s.pidSeen, s.st.Host, s.st.TTY})
		}
	}
	slices.SortFunc(out, func(a, b Proc) int { return a.PID - b.PID })
	return slices.CompactFunc(out, func(a, b Proc) bool { return a.PID == b.PID })
}

// key names a session: its host ("" for this one), agent and session id,
// or for a sighting without a session, its pane (else its pid).
type key struct {
	host, agent, session, pane string
	pid                        int
}

func sessionKey(host, agent, session string) key {
	return key{host: host, agent: agent, session: session}
}
func paneKey(host, pane string) key { return key{host: host, pane: pane} }
func pidKey(host string, pid int) key {
	return key{host: host, pid: pid}
}

// String is the key as it goes into a state's id.
func (k key) String() string {
	h := ""
	if k.host != "" {
		h = "\x00host\x00" + k.host
	}
	switch {
	case k.session != "":
		return h + k.agent + "\x00" + k.session
	case k.pane != "":
		return h + "\x00pane\x00" + k.pane
	}
	return h + "\x00pid\x00" + strconv.Itoa(k.pid)
}

func (k key) less(o key) int {
	if c := strings.Compare(k.host, o.host); c != 0 {
		return c
	}
	if c := strings.Compare(k.agent, o.agent); c != 0 {
		return c
	}
	if c := strings.Compare(k.session, o.session); c != 0 {
		return c
	}
	if c := strings.Compare(k.pane, o.pane); c != 0 {
		return c
	}
	return k.pid - o.pid
}

// Apply folds one event and returns the states it changed (valid until the
// next call). Duplicates (an id seen recently) and kinds the fold does not
// read change nothing.
func (f *Folder) Apply(e *event.Event) []event.Event {
	f.out = f.out[:0]
	host := f.host(e)
	if host != "" && !hostname.Valid(host) {
		return nil // not a host's name: hostile, or broken
	}
	switch e.Kind {
	case event.State:
		if host != "" {
			f.remote(host, e)
			return f.out
		}
		// A restored state is news to the readers downstream (a
		// restarted pipeline's tmux options and notifier), as the
		// replay it stands for would have been.
		if s := f.restore(e); s != nil {
			f.out = append(f.out, s.view())
		}
		return f.out
	case event.HostDown:
		if host != "" {
			f.hostDown(host, e)
		}
		return f.out
	case event.Notify, event.Action, event.Keys:
		return nil
	}
	if e.ID != "" && !f.seen.add(e.ID) {
		return nil
	}
	if host == "" {
		f.future(e, "")
	} else if h := f.hostFor(host); h == nil {
		return nil
	} else {
		h.heard, h.quiet = f.now, false
		bound(e)
		f.future(e, host)
	}
	if e.Kind == event.ProcDown && e.Session == "" {
		f.procDown(host, e)
		return f.out
	}
	s := f.lookup(host, e)
	if s == nil {
		return nil
	}
	if e.Session != "" && e.PID != 0 && f.oneSession(e.Agent) &&
		(e.PID != s.st.PID || e.Kind == event.TurnStart && e.Src == event.SrcHook) {
		// The session moves into a process, or a prompt is typed into it
		// where another session ran since (Gemini's /resume switches back
		// with no hook): who was there?
		f.evict(s, e)
	}
	f.fold(s, e)
	f.shared(s, e.T.Time)
	f.flush(s, e.T.Time)
	return f.out
}

func (f *Folder) drop(k key) {
	if s := f.sessions[k]; s != nil {
		if s.st.Session == "" {
			f.loose--
		}
		f.forget(k)
		delete(f.sessions, k)
		f.changes++
	}
}

func (f *Folder) flush(s *session, at time.Time) {
	if !s.dirty {
		return
	}
	f.changes++
	if f.cfg.Quiet {
		s.putOff(at)
		st := &s.st // who changed, not how: the state is made when asked for
		f.out = append(f.out, event.Event{V: event.Version, Kind: event.State, Agent: st.Agent, Session: st.Session, Pane: st.Pane, Host: st.Host})
		return
	}
	f.out = append(f.out, s.emit(at))
}

// host is the key's host for e ("" for this machine's), and stamps this
// machine's name on an event of its own.
func (f *Folder) host(e *event.Event) string {
	if f.cfg.Self.Is(e.Host) {
		e.Host = f.cfg.Self.Canon(e.Host)
		return ""
	}
	return e.Host
}

// procDown marks every live session of the process gone.
func (f *Folder) procDown(host string, e *event.Event) {
	keys := make([]key, 0, 2)
	for k, s := range f.sessions {
		if s.st.Status == event.StatusGone || k.host != host {
			continue
		}
		if (e.PID != 0 && s.st.PID == e.PID) || (e.PID == 0 && e.Pane != "" && s.st.Pane == e.Pane) {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, key.less)
	for _, k := range keys {
		s := f.sessions[k]
		f.fold(s, e)
		f.shared(s, e.T.Time)
		f.flush(s, e.T.Time)
	}
}

// restore takes a state event in (a state file or ag-fold's own output fed
// back), unless the fold already knows something newer.
func (f *Folder) restore(e *event.Event) *session {
	if e.Session == "" && e.Pane == "" {
		return nil
	}
	k := sessionKey("", e.Agent, e.Session)
	if e.Session == "" {
		k = paneKey("", e.Pane)
	}
	if s := f.sessions[k]; s != nil {
		if s.settle(); !e.T.After(s.st.T.Time) {
			return nil
		}
	}
	if f.sessions[k] == nil && e.Session == "" {
		f.loose++
	}
	s := &session{key: k, keyStr: k.String()}
	s.restore(e)
	f.put(k, s)
	f.changes++
	return s
}

// Tick applies what time alone decides at now: a hook's wait the pane saw
// end (the idle composer) lowers to idle once older than PaneGrace, a
// working session the pane showed idle with nothing heard since lowers to
// idle after IdleGrace, a call in flight past its agent's Estimate is a
// probable approval wait, and gone sessions older than KeepGone are
// dropped.
func (f *Folder) Tick(now time.Time) []event.Event {
	f.out = f.out[:0]
	f.quiet(now)
	keys := f.keys()
	for _, k := range keys {
		s := f.sessions[k]
		s.behind(now, f.cfg.FutureSlack)
		if s.st.Stale != "" && s.st.Status != event.StatusGone {
			f.expire(k, s, now)
			continue
		}
		switch s.st.Status {
		case event.StatusWaiting:
			if !s.paneBusyT.IsZero() && now.Sub(s.waitT) >= f.cfg.DrawGrace {
				// At work on the pane since, its prompt never seen: answered
				// before the screen was read.
				s.answeredOnPane(now)
				s.assertT, s.assertSrc, s.assertKind = now, event.SrcPane, event.WaitEnd
				s.cause = "tick.pane-busy"
				f.shared(s, now)
				f.flush(s, now)
			} else if !s.paneIdleT.IsZero() && now.Sub(s.waitT) >= f.cfg.PaneGrace {
				s.set(now, event.StatusIdle, "", "", "", "")
				s.assertT, s.assertSrc, s.assertKind = now, event.SrcPane, event.WaitEnd
				s.cause = "tick.pane-idle"
				f.shared(s, now)
				f.flush(s, now)
			}
		case event.StatusWorking:
			if !s.idleSeen.IsZero() && now.Sub(s.idleSeen) >= f.cfg.IdleGrace && s.st.Pending == 0 && s.preSub == "" {
				s.set(now, event.StatusIdle, "", "", "", "")
				s.assertT, s.assertSrc, s.assertKind = now, event.SrcPane, event.WaitEnd
				s.idleSeen = time.Time{}
				s.cause = "tick.pane-idle"
				f.flush(s, now)
			} else if f.raiseEstimate(s, now) {
				f.flush(s, now)
			}
		case event.StatusGone:
			if now.Sub(s.goneAt) >= f.cfg.KeepGone {
				f.drop(k)
			}
		}
	}
	return f.out
}
