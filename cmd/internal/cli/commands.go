package cli

import (
	"errors"
	"fmt"

	"github.com/jessevdk/go-flags"
)

// ParseCommand is Parse for a program with subcommands (`ag-hook install
// …`): parser is p.NewParser(opts) with its commands added, so --help and
// --man describe every command. It returns the command given ("" when
// none) and its arguments; done and code mean what they mean for Parse.
func (p Program) ParseCommand(parser *flags.Parser, opts any, args []string) (command string, rest []string, done bool, code int) {
	parser.SubcommandsOptional = true
	rest, err := parser.ParseArgs(args)
	if err != nil {
		var fe *flags.Error
		if errors.As(err, &fe) && fe.Type == flags.ErrHelp {
			p.writeHelp(p.Stdout, parser, parser.Active)
			return "", nil, true, ExitOK
		}
		p.Errorf("%v (see %s --help)", err, p.Name)
		return "", nil, true, ExitError
	}
	if c := commonOf(opts); c != nil {
		switch {
		case c.Version:
			fmt.Fprintf(p.Stdout, "%s %s\n", p.Name, Version())
			return "", nil, true, ExitOK
		case c.Man:
			p.showMan(parser)
			return "", nil, true, ExitOK
		}
	}
	if err := p.checkGiven(parser.Command, commonOf(opts)); err != nil {
		p.Errorf("%v (see %s --help)", err, p.Name)
		return "", nil, true, ExitError
	}
	if parser.Active != nil {
		command = parser.Active.Name
	}
	return command, rest, false, ExitOK
}
