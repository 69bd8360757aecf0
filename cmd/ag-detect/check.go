package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/agwatch/ag/cmd/internal/cli"
	"github.com/agwatch/ag/filters/paths"
	"github.com/agwatch/ag/filters/safetext"
	"github.com/agwatch/ag/providers"
	"github.com/agwatch/ag/providers/agentdef"
	"github.com/agwatch/ag/providers/provider"
)

// checkAgents is --check-agents: every definition ag would run (the
// built-in ones, the user's folder), or the files named, checked as ag
// reads them. Each agent accepted is a line on stdout; each fault a line
// on stderr, FILE:LINE: why. Exit 1 when any is refused.
func (d *detector) checkAgents(files []string) int {
	code := cli.ExitOK
	refuse := func(errs []error) {
		for _, err := range errs {
			d.prog.Errorf("%s", safetext.Line(err.Error(), 0))
		}
		if len(errs) > 0 {
			code = cli.ExitNoMatch
		}
	}
	if len(files) > 0 {
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				refuse([]error{err})
				continue
			}
			if errs := agentdef.Check(f, data, providers.Go()); len(errs) > 0 {
				refuse(errs)
				continue
			}
			fmt.Fprintf(d.stdout, "%s: ok\n", f)
		}
		return code
	}
	refuse(providers.DefinitionErrors())
	for _, p := range providers.All() {
		if _, ok := p.(agentdef.Sourced); !ok {
			if _, over := providers.PaneRules(p); over && strings.Contains(providers.Source(p), "screen rules from") {
				fmt.Fprintf(d.stdout, "%-12s %s\n", p.ID(), providers.Source(p))
			}
			continue
		}
		fmt.Fprintf(d.stdout, "%-12s %s\n", p.ID(), safetext.Line(what(p)+providers.Source(p), 0))
	}
	if code == cli.ExitOK {
		fmt.Fprintf(d.stdout, "definitions: built in, and %s\n", paths.AgentsDir(d.getenv))
	}
	return code
}

// what says what a definition gives ag, briefly.
func what(p provider.Provider) string {
	var has []string
	if d, ok := p.(provider.PaneDetector); ok && len(d.PaneRules().States)+len(d.PaneRules().Titles) > 0 {
		has = append(has, "screen")
	}
	if k, ok := p.(provider.Keyed); ok && len(k.Keys().Approve)+len(k.Keys().Deny) > 0 {
		has = append(has, "keys")
	}
	if c, ok := p.(provider.Commanded); ok && c.Commands().Bin != "" {
		has = append(has, "commands")
	}
	if _, ok := p.(provider.Hooked); ok {
		has = append(has, "hooks")
	}
	if _, ok := p.(provider.Installer); ok {
		has = append(has, "hook install")
	}
	if len(has) == 0 {
		has = append(has, "process only")
	}
	// A built-in definition not proven on the real agent says so.
	if c, ok := p.(interface{ Checked() string }); ok && strings.HasPrefix(c.Checked(), "unverified") {
		has = append(has, "unverified")
	}
	return p.Name() + " (" + strings.Join(has, ", ") + "): "
}
