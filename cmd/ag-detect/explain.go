package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/agwatch/ag/cmd/internal/cli"
	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/keyplan"
	"github.com/agwatch/ag/filters/panes"
	"github.com/agwatch/ag/filters/proc"
	"github.com/agwatch/ag/filters/tmux"
	"github.com/agwatch/ag/providers"
	"github.com/agwatch/ag/providers/provider"
)

// explain is --explain PANE: what ag makes of one pane, and why — the
// processes it looked at and what each was, the agent and the rule that
// took it, the screen state with its line and pattern (and, for every
// other state, what kept it out), and what ag-keys would type for each
// answer now. For people: plain lines, not events.
func (d *detector) explain(ctx context.Context, pane string) int {
	s := newScanner(d)
	line, err := d.tmux.Display(ctx, pane, "#{pane_id} #{pane_pid} #{pane_tty}")
	if err != nil {
		var te *tmux.Error
		if errors.As(err, &te) && te.Stderr != "" {
			d.prog.Errorf("%s: %s", pane, strings.TrimSpace(te.Stderr))
		} else {
			d.prog.Errorf("%s: %v", pane, err)
		}
		return cli.ExitError
	}
	f := strings.Fields(line)
	if len(f) < 3 || f[0] != pane {
		d.prog.Errorf("%s: no such pane", pane)
		return cli.ExitError
	}
	pid, _ := strconv.Atoi(f[1])
	w := d.stdout
	fmt.Fprintf(w, "pane %s: process %d on %s\n", pane, pid, f[2])
	table, err := proc.Snapshot(ctx)
	if err != nil {
		d.prog.Errorf("process table: %v", err)
		return cli.ExitError
	}
	info := proc.System{Ctx: ctx}
	finder := s.rules.finder(table, info)
	fmt.Fprintln(w, "processes:")
	finder.Trace = func(pid int, exe string, argv []string, what string) {
		fmt.Fprintf(w, "  %-7d %s\n          %s\n", pid, clampWhy(commandLine(exe, argv)), clampWhy(what))
	}
	found, ok := finder.InTerminal(pid)
	if !ok {
		fmt.Fprintln(w, "agent: none (no process above matches an agent's rules)")
		return cli.ExitNoMatch
	}
	p := s.rules.byID[found.Agent]
	fmt.Fprintf(w, "agent: %s (%s), process %d\n  by %s\n  rules from %s\n", found.Agent, clampWhy(p.Name()), found.PID, s.rules.why(found), clampWhy(providers.Source(p)))
	rules := s.rules.panes[found.Agent]
	if rules == nil {
		fmt.Fprintln(w, "screen: no screen rules")
		return cli.ExitOK
	}
	title := ""
	if len(rules.Titles) > 0 {
		title, _ = d.tmux.Display(ctx, pane, "#{pane_title}")
	}
	text, err := d.tmux.Capture(ctx, pane, 0)
	if err != nil {
		d.prog.Errorf("%s: %v", pane, err)
		return cli.ExitError
	}
	res := panes.ClassifyPane(rules, title, text)
	explainScreen(w, rules, res, title, text)
	if k, ok := p.(provider.Keyed); ok {
		explainKeys(w, found.Agent, k.Keys(), res)
	}
	return cli.ExitOK
}

func explainScreen(w io.Writer, rules *panes.Rules, res panes.Result, title, text string) {
	if res.Kind == panes.None {
		fmt.Fprintln(w, "screen: no state recognised (ag says nothing of it)")
	} else {
		att := ""
		if res.Attention != "" {
			att = " " + res.Attention
		}
		fmt.Fprintf(w, "screen: %s%s, state %s\n  %s\n", res.Kind, att, res.State, screenWhy(rules, res, title, text))
		if res.Tool != "" || res.Text != "" {
			fmt.Fprintf(w, "  tool %q, text %q\n", clampWhy(res.Tool), clampWhy(res.Text))
		}
	}
	fmt.Fprintln(w, "  each state:")
	for _, l := range panes.Diagnose(rules, title, text) {
		fmt.Fprintf(w, "    %s\n", clampWhy(l))
	}
}

// explainKeys says what ag-keys would type for each answer with the
// screen as it is: the state is taken from the screen (waiting on what it
// shows, else finished), the token as matching.
func explainKeys(w io.Writer, agent string, km provider.KeyMap, res panes.Result) {
	st := event.Event{Kind: event.State, Agent: agent, Status: event.StatusDone}
	switch res.Kind {
	case panes.Wait:
		st.Status, st.Attention, st.Tool, st.Text = event.StatusWaiting, res.Attention, res.Tool, res.Text
	case panes.Busy:
		st.Status = event.StatusWorking
	}
	fmt.Fprintf(w, "keys (ag-keys, with the screen as it is and the session %s):\n", st.Status)
	for _, a := range []struct{ action, text string }{
		{provider.ActApprove, ""}, {provider.ActDeny, ""}, {provider.ActPlanApprove, ""}, {provider.ActPlanDeny, ""},
		{provider.ActReply, "TEXT"}, {provider.ActAnswer, "TEXT"},
	} {
		plan, err := keyplan.Decide(keyplan.Request{State: st, Action: a.action, Text: a.text, Screen: &res}, km)
		if err != nil {
			fmt.Fprintf(w, "  %-13s refused: %v\n", a.action, err)
			continue
		}
		fmt.Fprintf(w, "  %-13s %s\n", a.action, keyplan.Describe(plan))
	}
}

// commandLine is a process as ps shows it: argv, else the executable.
func commandLine(exe string, argv []string) string {
	if len(argv) == 0 {
		return exe
	}
	return strings.Join(argv, " ")
}
