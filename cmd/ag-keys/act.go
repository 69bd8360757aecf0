package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/agwatch/ag/cmd/internal/cli"
	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/keyplan"
	"github.com/agwatch/ag/filters/panes"
	"github.com/agwatch/ag/filters/state"
	"github.com/agwatch/ag/providers"
	"github.com/agwatch/ag/providers/provider"
)

// Keys event statuses.
const (
	statusSent    = "sent"
	statusRefused = "refused"
	statusError   = "error"   // could not check or could not finish typing
	statusPlanned = "planned" // --dry-run
)

// result is one action's keys event and exit code.
type result struct {
	ev   event.Event
	code int
}

func (c *cmd) keysEvent(a *event.Event) event.Event {
	ev := event.New(event.Keys, c.now(), a.Agent, a.Session)
	ev.Src, ev.Action, ev.Pane, ev.Token = event.SrcKeys, a.Action, a.Pane, a.Token
	return ev
}

func (r *result) finish(status, reason string, code int) result {
	r.ev.Status, r.ev.Reason, r.code = status, reason, code
	if status == statusRefused {
		r.ev.Text = "" // nothing was typed
	}
	what := r.ev.Text
	if r.ev.ID == "" {
		what += strconv.FormatInt(r.ev.T.UnixNano(), 10)
	}
	r.ev.ID = event.MakeID(event.SrcKeys, r.ev.Agent, r.ev.Session, r.ev.Action, r.ev.Token, r.ev.ID, status, what)
	return *r
}

// act performs one action: resolve the session, decide, check the pane,
// type. fromStream marks an action event from stdin, which must quote a
// token and is performed at most once per id.
func (c *cmd) act(ctx context.Context, a *event.Event, fromStream bool) result {
	r := result{ev: c.keysEvent(a)}
	r.ev.ID = a.ID // folded into the keys event's id, so a replay gets the same one
	refuse := func(format string, x ...any) result {
		return r.finish(statusRefused, fmt.Sprintf(format, x...), cli.ExitNoMatch)
	}
	fail := func(err error) result { return r.finish(statusError, err.Error(), cli.ExitError) }

	if c.key != nil && !fromStream {
		return refuse("with --verify only signed action events are obeyed; an action on the command line carries no signature")
	}
	if why := c.verify(a); why != "" {
		return refuse("%s", why)
	}
	if fromStream {
		k := c.doneKey(a)
		if c.performed.has(k) {
			return refuse("action %s was already performed", orDash(a.ID))
		}
		if !c.opts.DryRun { // a dry run performs nothing: the real press is still to come
			c.performed.add(k, c.now())
		}
	}
	st, ok, err := c.lookupCaughtUp(ctx, a)
	switch {
	case errors.Is(err, state.ErrNoFile):
		return refuse("no state file %s (is ag-fold running?)", c.opts.StateFile)
	case err != nil:
		return fail(err)
	case !ok && a.Session != "":
		return refuse("no session %s %s in the state file", orDash(a.Agent), a.Session)
	case !ok:
		return refuse("no session in pane %s", a.Pane)
	}
	r.ev.Agent, r.ev.Session = st.Agent, st.Session
	if a.Pane != "" && st.Pane != a.Pane {
		return refuse("the session is in pane %s, not %s", orDash(st.Pane), a.Pane)
	}
	r.ev.Pane = st.Pane
	if a.Action == provider.ActOpen || a.Action == provider.ActFocus && st.Pane == "" {
		// A window attached to a background session (background.go).
		return c.open(ctx, st, &r)
	}
	if st.Pane == "" && !(background(st) && keyplan.Typed(a.Action)) {
		return refuse("the session has no tmux pane")
	}
	if a.Action == provider.ActFocus {
		// A click on a notification's body: bring the pane forward. It
		// types nothing, so it needs no token.
		return c.focusPane(ctx, st.Pane, &r)
	}
	km, ok := keyed(st.Agent)
	if !ok {
		return refuse("agent %q cannot be answered with keys", st.Agent)
	}
	done := st.Agent + "\x00" + st.Session + "\x00" + st.Token
	if c.acted[done] {
		return refuse("this wait was already answered (token %s)", st.Token)
	}
	req := keyplan.Request{State: st, Action: a.Action, Text: a.Text, Token: a.Token, RequireToken: fromStream}
	if state.TokenAhead(a.Token, st.Token) {
		return refuse("the state file has not reached token %s in %v (now %s; is ag-fold running?)", a.Token, catchUp, orDash(st.Token))
	}
	// A stale action is refused without touching tmux.
	var no *keyplan.Refusal
	if err := keyplan.CheckToken(req); errors.As(err, &no) {
		return refuse("%s", no.Reason)
	}
	paneRules, screens := providers.PaneRules(providers.ByID(st.Agent))
	reply := a.Action == provider.ActReply || a.Action == provider.ActAnswer
	if st.Status != event.StatusWaiting {
		// What the state alone refuses is refused without looking.
		if _, err := keyplan.Decide(req, km); errors.As(err, &no) {
			return refuse("%s", no.Reason)
		}
	}
	var rules panes.Rules
	var screen string // the pane before typing
	var view *hidden  // a background session's, shown to be typed into
	before := ""      // what it showed before
	if st.Pane == "" {
		if !screens {
			return refuse("%s's screens are not known: open the session to answer it", st.Agent)
		}
		if c.opts.DryRun {
			plan, err := keyplan.Decide(req, km)
			if errors.As(err, &no) {
				return refuse("%s", no.Reason)
			}
			r.ev.Text = keyplan.Describe(plan)
			return r.finish(statusPlanned, "", cli.ExitOK)
		}
		rules = paneRules
		if view, err = c.showHidden(ctx, st, &rules); err != nil {
			return fail(err)
		}
		defer func() { c.closeHidden(view, &rules, before) }()
		st.Pane = view.pane
	}
	if screens && keyplan.Typed(a.Action) && (st.Status == event.StatusWaiting || reply) {
		// Look at the pane now: it tells a plan or a question from the
		// permission prompt the hook reported, shows a prompt that has
		// gone (or one up while the state says finished) and a composer
		// that takes no reply. A pane that cannot be read fails closed.
		var err error
		if screen, err = c.tmux.Capture(ctx, st.Pane, 0); err != nil {
			return fail(err)
		}
		rules = paneRules
		res := panes.Classify(&rules, screen)
		if screen, res, err = c.awaitDrawn(ctx, &st, st.Pane, &rules, screen, res); err != nil {
			return fail(err)
		}
		if res.Kind == panes.Wait && km.Grace > 0 && !c.opts.DryRun {
			// A prompt just shown drops keys (KeyMap.Grace): look again
			// once it has been up that long, and go by what shows then.
			if err := sleepCtx(ctx, km.Grace); err != nil {
				return fail(err)
			}
			if screen, err = c.tmux.Capture(ctx, st.Pane, 0); err != nil {
				return fail(err)
			}
			res = panes.Classify(&rules, screen)
		}
		req.Screen = &res
		before = screenKey(res)
	}
	plan, err := keyplan.Decide(req, km)
	if errors.As(err, &no) {
		return refuse("%s", no.Reason)
	} else if err != nil {
		return fail(err)
	}
	r.ev.Text = keyplan.Describe(plan)
	fg, err := c.foreground(ctx, st.Pane)
	if err != nil {
		return fail(err)
	}
	if shellNames[fg] && !runsUnder(st.Agent, fg) {
		return refuse("the pane's foreground is %s: %s is not running there", fg, st.Agent)
	}
	if c.opts.DryRun {
		return r.finish(statusPlanned, "", cli.ExitOK)
	}
	shown := func(text string) error { return c.awaitInput(ctx, st.Pane, &rules, km.Input, text) }
	awaited := func(state string) error { return c.awaitState(ctx, st.Pane, &rules, state) }
	var reasons []string
	if n, err := c.typePlan(ctx, st.Pane, plan, shown, awaited); errors.Is(err, errLeft) {
		reasons = append(reasons, fmt.Sprintf("typed; the pane did not go on to %s (another question?): the rest is yours", plan.Steps[n].Await))
	} else if err != nil {
		return fail(fmt.Errorf("after %d of %d steps: %w", n, len(plan.Steps), err))
	}
	c.acted[done] = true
	if plan.Truncated {
		reasons = append(reasons, fmt.Sprintf("reply cut to %d characters", provider.MaxReply))
	}
	if plan.Text != "" && screens && len(km.Unsent) > 0 {
		again, err := c.resend(ctx, st.Pane, &rules, km.Unsent, plan.Text, screen)
		if err != nil {
			return fail(fmt.Errorf("after the reply: %w", err))
		}
		if again {
			r.ev.Text += ", Enter"
			reasons = append(reasons, "Enter again: the reply was still in the input")
		}
	}
	return r.finish(statusSent, strings.Join(reasons, "; "), cli.ExitOK)
}

// resend watches the pane for up to provider.SentCheck after a reply's
// Enter. Shown twice running in an unsent state holding the reply, the
// Enter was lost (read as a newline): it presses Enter once more and
// reports true. Anything else shown three times running means the reply
// went — but not the screen as it was before typing: an agent too busy
// to read its input has drawn nothing yet.
func (c *cmd) resend(ctx context.Context, pane string, rules *panes.Rules, unsent []string, text, before string) (bool, error) {
	want := oneLine(text)
	held, gone := 0, 0
	for waited := time.Duration(0); waited < provider.SentCheck; waited += sentPoll {
		if err := c.sleep(ctx, sentPoll); err != nil {
			return false, err
		}
		if waited < sentFirst {
			continue // an Enter late to be read is not yet a lost one
		}
		screen, err := c.tmux.Capture(ctx, pane, 0)
		if err != nil {
			return false, err
		}
		if holds(rules, unsent, screen, want) {
			gone = 0
			if held++; held == 2 {
				return true, c.tmux.SendKeys(ctx, pane, "Enter")
			}
			continue
		}
		held = 0
		if screen == before {
			continue
		}
		if gone++; gone == 3 {
			return false, nil
		}
	}
	return false, nil
}

// awaitInput waits for the pane to show text in a prompt's input (one of
// the states named), and fails if it never does: an Enter then could pick
// the option highlighted.
func (c *cmd) awaitInput(ctx context.Context, pane string, rules *panes.Rules, input []string, text string) error {
	want := oneLine(text)
	ok, err := c.await(ctx, pane, func(screen string) bool { return holds(rules, input, screen, want) })
	if err == nil && !ok {
		err = fmt.Errorf("the prompt's input never showed the reply in %s: no Enter pressed", provider.SentCheck)
	}
	return err
}

// errNeverShowed: the state awaited never showed; errLeft: so an optional
// step and those after it were left (keyplan.Step.Optional).
var (
	errNeverShowed = errors.New("never showed")
	errLeft        = errors.New("the rest left")
)

// awaitState waits for the pane to show state (a dialog the keys before
// opened), and fails if it never does.
func (c *cmd) awaitState(ctx context.Context, pane string, rules *panes.Rules, state string) error {
	ok, err := c.await(ctx, pane, func(screen string) bool { return panes.Classify(rules, screen).State == state })
	if err == nil && !ok {
		err = fmt.Errorf("the pane %w %s in %s: the rest not typed", errNeverShowed, state, provider.SentCheck)
	}
	return err
}

// await captures the pane every sentPoll, up to provider.SentCheck, until
// shows holds for what it shows.
func (c *cmd) await(ctx context.Context, pane string, shows func(screen string) bool) (bool, error) {
	for waited := time.Duration(0); waited < provider.SentCheck; waited += sentPoll {
		screen, err := c.tmux.Capture(ctx, pane, 0)
		if err != nil {
			return false, err
		}
		if shows(screen) {
			return true, nil
		}
		if err := c.sleep(ctx, sentPoll); err != nil {
			return false, err
		}
	}
	return false, nil
}

// holds reports whether screen, read with only the named states of rules,
// shows one of them holding want, as one line.
func holds(rules *panes.Rules, states []string, screen, want string) bool {
	only := rules.Only(states)
	res := panes.Classify(&only, screen)
	return res.State != "" && oneLine(res.Text) == want
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// resend first looks at the pane sentFirst after the Enter, then every
// sentPoll.
const (
	sentFirst = 300 * time.Millisecond
	sentPoll  = 100 * time.Millisecond
)

// typePlan sends each step after its wait, and returns how many it sent;
// a step to send once the text typed before is shown waits for shown.
func (c *cmd) typePlan(ctx context.Context, pane string, p keyplan.Plan, shown func(text string) error, awaited func(state string) error) (int, error) {
	typed := ""
	for i, s := range p.Steps {
		if err := c.sleep(ctx, s.Wait); err != nil {
			return i, err
		}
		if s.Shown {
			if err := shown(typed); err != nil {
				return i, err
			}
		}
		if s.Await != "" {
			if err := awaited(s.Await); errors.Is(err, errNeverShowed) && s.Optional {
				return i, errLeft
			} else if err != nil {
				return i, err
			}
		}
		if s.Keys == nil {
			typed = s.Literal
		}
		var err error
		switch {
		case s.Keys != nil:
			err = c.tmux.SendKeys(ctx, pane, s.Keys...)
		case s.Paste:
			err = c.tmux.Paste(ctx, pane, s.Literal)
		default:
			err = c.tmux.SendLiteral(ctx, pane, s.Literal)
		}
		if err != nil {
			return i, err
		}
		if c.sent != nil {
			c.sent(s, time.Now())
		}
	}
	return len(p.Steps), nil
}

// lookup finds the action's session: by agent and session when the action
// names them (events from ag-notify do), else by pane.
func (c *cmd) lookup(a *event.Event) (event.Event, bool, error) {
	states, err := c.states()
	if err != nil {
		return event.Event{}, false, err
	}
	if a.Session == "" {
		st, ok := state.ForPaneOf(states, a.Pane, providers.ManySessionsPerProcess)
		return st, ok, nil
	}
	var best event.Event
	found := false
	for _, s := range states {
		if s.Session == a.Session && (a.Agent == "" || s.Agent == a.Agent) && (!found || s.T.After(best.T.Time)) {
			best, found = s, true
		}
	}
	return best, found, nil
}

// catchUp bounds how long an action may wait for the state file to reach
// its token: ag-fold writes the file at most every --debounce, while the
// notification the token came from went out at once (from another host's
// --publish sooner still), so a quick press can quote a wait the file does
// not hold yet.
const catchUp = 2 * time.Second

// lookupCaughtUp is lookup, read again while the action's token is ahead
// of the state's (for at most catchUp): refusing that as stale would drop
// a press on a wait that is up.
func (c *cmd) lookupCaughtUp(ctx context.Context, a *event.Event) (event.Event, bool, error) {
	const every = 25 * time.Millisecond
	for i := 0; ; i++ {
		st, ok, err := c.lookup(a)
		behind := a.Token != "" && (!ok || state.TokenAhead(a.Token, st.Token))
		if err != nil || !behind || time.Duration(i)*every >= catchUp {
			return st, ok, err
		}
		if err := c.sleep(ctx, every); err != nil {
			return st, ok, nil
		}
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// states reads this host's sessions from the state file.
func (c *cmd) states() ([]event.Event, error) {
	all, err := state.Read(c.opts.StateFile)
	return state.Local(all, c.self.Is), err
}
