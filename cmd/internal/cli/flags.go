package cli

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"time"

	"github.com/jessevdk/go-flags"
)

// Version is the version string every program prints for --version: the
// module version the go command stamped from git — a tag (v1.2.0), else
// v0.0.0-<commit time>-<commit>, "+dirty" for uncommitted changes — the
// same whether make or go install built it; "devel" without git.
func Version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

// Common are the options every program has.
type Common struct {
	Version bool `long:"version" description:"print the version and exit"`
	Man     bool `long:"man" description:"print the manual page and exit (troff when not on a terminal)"`

	given map[string]bool // long names given on the command line
}

// Given reports whether the option long was given on the command line
// (not merely at its default), so a program can refuse one that means
// nothing in the mode it runs in.
func (c *Common) Given(long string) bool { return c.given[long] }

// Filter are the options of every program that reads events.
type Filter struct {
	Where string `long:"where" value-name:"EXPR" unquote:"false" description:"keep only events for which jq EXPR is true" man:"EXPR is jq, run by gojq, with $ENV and the ag module (see JQ)"`
	JQ    string `long:"jq" value-name:"EXPR" unquote:"false" description:"write what jq EXPR makes of each event" man:"each result is written as one JSON line (keys sorted, nothing HTML-escaped), a string bare with --raw"`
	Raw   bool   `short:"r" long:"raw" description:"with --jq: a string result as plain text (jq -r)"`
}

// QuietFilter is Filter for programs whose events are not the point of
// them (ag-keys): the options work, and only the manual lists them.
type QuietFilter struct {
	Where string `long:"where" value-name:"EXPR" unquote:"false" more:"true" description:"keep only events for which jq EXPR is true" man:"see JQ"`
	JQ    string `long:"jq" value-name:"EXPR" unquote:"false" more:"true" description:"write what jq EXPR makes of each event"`
	Raw   bool   `short:"r" long:"raw" more:"true" description:"with --jq: a string result as plain text (jq -r)"`
}

// Filter is the options as a Filter.
func (q QuietFilter) Filter() Filter {
	return Filter{Where: q.Where, JQ: q.JQ, Raw: q.Raw}
}

// Slurp is --slurp, for programs whose input ends (ag-fold --snapshot,
// ag-tail --once).
type Slurp struct {
	Slurp bool `short:"s" long:"slurp" description:"with --jq: run it once, on the array of all (jq -s)"`
}

// Place is where an event came from, for messages: "<stdin>:42",
// "FILE:7", or what stands for it ("the state of claude 5f24…").
type Place struct {
	Name string
	Line int
	What string // when there is no line
}

func (p Place) String() string {
	switch {
	case p.Line > 0:
		return fmt.Sprintf("%s:%d", p.Name, p.Line)
	case p.What != "":
		return p.What
	}
	return p.Name
}

// Program describes one command for Parse (see help.go for the texts).
type Program struct {
	Name     string   // ag-tail
	Usage    string   // "[OPTIONS]": the first synopsis line, after the name
	Synopsis []string // more synopsis lines
	Short    string   // one line
	Help     string   // --help's few sentences
	Examples []string // --help's and the manual's examples
	Long     string   // the manual's description
	Commands map[string]CommandHelp
	Stdout   io.Writer
	Stderr   io.Writer
}

// Parse parses args into opts (a go-flags struct that embeds Common).
// When done is true the caller returns code at once: help, man page or
// version were printed, or the arguments were wrong (already reported).
func (p Program) Parse(opts any, args []string) (rest []string, done bool, code int) {
	parser := p.NewParser(opts)
	rest, err := parser.ParseArgs(args)
	if err != nil {
		var fe *flags.Error
		if errors.As(err, &fe) && fe.Type == flags.ErrHelp {
			p.writeHelp(p.Stdout, parser, nil)
			return nil, true, ExitOK
		}
		p.Errorf("%v (see %s --help)", err, p.Name)
		return nil, true, ExitError
	}
	if c := commonOf(opts); c != nil {
		switch {
		case c.Version:
			fmt.Fprintf(p.Stdout, "%s %s\n", p.Name, Version())
			return nil, true, ExitOK
		case c.Man:
			p.showMan(parser)
			return nil, true, ExitOK
		}
	}
	if err := p.checkGiven(parser.Command, commonOf(opts)); err != nil {
		p.Errorf("%v (see %s --help)", err, p.Name)
		return nil, true, ExitError
	}
	return rest, false, ExitOK
}

// checkGiven notes which options were given and refuses a negative
// duration: no wait, interval or age is less than nothing.
func (p Program) checkGiven(cmd *flags.Command, c *Common) error {
	if c != nil && c.given == nil {
		c.given = map[string]bool{}
	}
	var err error
	var walk func(g *flags.Group)
	walk = func(g *flags.Group) {
		for _, o := range g.Options() {
			if !o.IsSet() || o.IsSetDefault() {
				continue
			}
			if c != nil {
				c.given[o.LongName] = true
			}
			if d, ok := o.Value().(time.Duration); ok && d < 0 && err == nil {
				err = fmt.Errorf("--%s %v: a duration cannot be negative", o.LongName, d)
			}
		}
		for _, sub := range g.Groups() {
			walk(sub)
		}
	}
	walk(cmd.Group)
	if cmd.Active != nil {
		return errors.Join(err, p.checkGiven(cmd.Active, c))
	}
	return err
}

// NewParser builds the go-flags parser for opts; make man and tests use it.
func (p Program) NewParser(opts any) *flags.Parser {
	parser := flags.NewNamedParser(p.Name, flags.HelpFlag|flags.PassDoubleDash)
	parser.Usage = p.Usage
	parser.ShortDescription = p.Short
	parser.LongDescription = p.Long
	parser.AddGroup("Options", "", opts)
	return parser
}

type hasCommon interface{ common() *Common }

func (c *Common) common() *Common { return c }

func commonOf(opts any) *Common {
	if h, ok := opts.(hasCommon); ok {
		return h.common()
	}
	return nil
}

// Meaningless returns the first of names given on the command line, as
// "--name", for a program to refuse: an option that means nothing in the
// mode it runs in is a mistake to say, not to ignore. "" when none is.
func (c *Common) Meaningless(names ...string) string {
	for _, n := range names {
		if c.Given(n) {
			if len(n) == 1 {
				return "-" + n
			}
			return "--" + n
		}
	}
	return ""
}

// Errorf prints one error line to stderr, prefixed with the program's name.
func (p Program) Errorf(format string, a ...any) {
	fmt.Fprintf(p.Stderr, "%s: %s\n", p.Name, fmt.Sprintf(format, a...))
}

// Tmux are the options that pick a tmux server, spelled as tmux spells
// them (-S path, -L name), the same in every program. --tmux-socket and
// --tmux-name are accepted too, unlisted.
type Tmux struct {
	Socket    string `short:"S" long:"socket" value-name:"PATH" description:"tmux server socket (default: $TMUX's)" man:"as tmux -S; without it, the server in $TMUX, else tmux's default"`
	Name      string `short:"L" long:"socket-name" value-name:"NAME" description:"tmux server socket name (tmux -L)"`
	SocketAka string `long:"tmux-socket" value-name:"PATH" hidden:"true"`
	NameAka   string `long:"tmux-name" value-name:"NAME" hidden:"true"`
}

// Server is the socket path and name given, either spelling.
func (t Tmux) Server() (socket, name string) {
	return cmp.Or(t.Socket, t.SocketAka), cmp.Or(t.Name, t.NameAka)
}
