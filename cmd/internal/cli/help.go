package cli

import (
	"fmt"
	"io"
	"os"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/jessevdk/go-flags"

	"github.com/agwatch/ag/filters/termwidth"
)

// Help and manual pages are written here from the go-flags structs, not
// by go-flags: --help is one screen (a synopsis, a few sentences, one line
// per option, examples: at most HelpLines lines of HelpWidth columns, as
// gojq's --help and ripgrep's -h are), and --man is the whole manual, its
// lists and tables laid out as lists and tables.

// The screen --help must fit (t/ holds every program to it).
const (
	HelpLines = 40
	HelpWidth = 80
)

// A Program's help texts, beside Name and Short:
//
//   - Usage is the first synopsis line after the name ("[OPTIONS] < events"),
//     Synopsis more forms, each after the name;
//   - Help is what --help says of the program: a few plain sentences;
//   - Examples are command lines, "command  # what it does";
//   - Long is the manual's description (--man): paragraphs separated by
//     blank lines, "- " list items, "## " subsection titles, and lines
//     indented two spaces kept as they are (tables, commands).
//
// An option's tag man:"…" adds to its description in the manual only.

// CommandHelp is a subcommand's synopsis and examples for its --help
// (its description is the go-flags command's long description).
type CommandHelp struct {
	Usage    string // after "NAME COMMAND "
	Examples []string
}

// writeHelp writes --help: for the program when cmd is nil, else for its
// subcommand cmd.
func (p Program) writeHelp(w io.Writer, parser *flags.Parser, cmd *flags.Command) {
	var b strings.Builder
	name, forms, help, examples := p.Name, append([]string{p.Usage}, p.Synopsis...), p.Help, p.Examples
	group := parser.Command.Group
	if cmd != nil {
		h := p.Commands[cmd.Name]
		name, forms, help, examples, group = p.Name+" "+cmd.Name, []string{h.Usage}, cmd.LongDescription, h.Examples, cmd.Group
		if h.Usage == "" {
			forms = []string{"[OPTIONS]"}
		}
	}
	lead := "Usage: "
	for i, u := range forms {
		if i > 0 {
			lead = strings.Repeat(" ", len("Usage: "))
		}
		b.WriteString(wrapHang(lead+name+" "+u, len(lead)+len(name)+1))
	}
	if help != "" {
		b.WriteString("\n")
		b.WriteString(wrap(help, 0))
	}
	if cmd == nil && len(parser.Commands()) > 0 {
		b.WriteString("\nCommands:\n")
		b.WriteString(commandLines(parser.Commands()))
	}
	if opts := optionLines(group); opts != "" {
		b.WriteString("\nOptions:\n")
		b.WriteString(opts)
	}
	if len(examples) > 0 {
		b.WriteString("\nExamples:\n")
		for _, e := range examples {
			b.WriteString(wrapHang("  "+e, 4))
		}
	}
	if strings.Contains(p.Name, " ") { // a page of its own, not installed by make man
		fmt.Fprintf(&b, "\nEvery rule, option and exit code: %s --man.\n", p.Name)
	} else {
		fmt.Fprintf(&b, "\nEvery rule, option and exit code: man %s (or %s --man).\n", p.Name, p.Name)
	}
	io.WriteString(w, b.String())
}

// optionLines are the group's visible options, one line each (a name too
// long for the column gets a line of its own), names aligned; --man and
// --version share one.
func optionLines(g *flags.Group) string {
	type row struct{ name, desc string }
	var rows []row
	var common []string
	more := false
	var walk func(g *flags.Group)
	walk = func(g *flags.Group) {
		for _, o := range g.Options() {
			switch {
			case o.Hidden || o.LongName == "help":
			case o.Field().Tag.Get("more") == "true":
				more = true
			case o.LongName == "man" || o.LongName == "version":
				common = append([]string{"--" + o.LongName}, common...)
			default:
				rows = append(rows, row{optionName(o), optionDesc(o)})
			}
		}
		for _, sub := range g.Groups() {
			walk(sub)
		}
	}
	walk(g)
	if len(common) > 0 {
		desc := "print the manual page; the version"
		if more {
			desc = "the manual page (more options); the version"
		}
		rows = append(rows, row{"    " + strings.Join(common, ", "), desc})
	}
	const maxName = 24
	width := 0
	for _, r := range rows {
		if n := len(r.name); n > width && n <= maxName {
			width = n
		}
	}
	col := 2 + width + 2
	var b strings.Builder
	for _, r := range rows {
		if len(r.name) > width {
			b.WriteString("  " + r.name + "\n")
			b.WriteString(wrapHang(strings.Repeat(" ", col)+r.desc, col))
			continue
		}
		b.WriteString(wrapHang("  "+r.name+strings.Repeat(" ", width-len(r.name)+2)+r.desc, col))
	}
	return b.String()
}

func optionName(o *flags.Option) string {
	var s string
	if o.ShortName != 0 {
		s = "-" + string(o.ShortName) + ", "
	} else {
		s = "    "
	}
	s += "--" + o.LongName
	if o.ValueName != "" {
		s += " " + o.ValueName
	}
	return s
}

// optionDesc is the description with its default, when it has one that
// says something (not false, not empty).
func optionDesc(o *flags.Option) string {
	d := o.Description
	if len(o.Default) == 1 && o.Default[0] != "" && o.Field().Type.Kind() != reflect.Bool {
		d += " (" + o.Default[0] + ")"
	}
	return d
}

// commandLines lists subcommands with their short descriptions.
func commandLines(cmds []*flags.Command) string {
	width := 0
	for _, c := range cmds {
		if !c.Hidden && len(c.Name) > width {
			width = len(c.Name)
		}
	}
	var b strings.Builder
	for _, c := range cmds {
		if c.Hidden {
			continue
		}
		b.WriteString(wrapHang("  "+c.Name+strings.Repeat(" ", width-len(c.Name)+2)+c.ShortDescription, width+4))
	}
	return b.String()
}

// wrap fills text (paragraphs separated by blank lines; lines indented
// two spaces kept as they are) to HelpWidth, indented by indent.
func wrap(text string, indent int) string {
	var b strings.Builder
	for i, para := range strings.Split(strings.TrimSpace(text), "\n\n") {
		if i > 0 {
			b.WriteString("\n")
		}
		if strings.HasPrefix(para, "  ") {
			for _, l := range strings.Split(para, "\n") {
				b.WriteString(strings.Repeat(" ", indent) + l + "\n")
			}
			continue
		}
		b.WriteString(wrapHang(strings.Repeat(" ", indent)+strings.Join(strings.Fields(para), " "), indent))
	}
	return b.String()
}

// wrapHang breaks line at spaces to HelpWidth columns, continuing at
// column hang.
func wrapHang(line string, hang int) string {
	var b strings.Builder
	for termwidth.Of(line) > HelpWidth {
		cut := breakAt(line, HelpWidth, hang)
		if cut <= 0 {
			break
		}
		b.WriteString(strings.TrimRight(line[:cut], " ") + "\n")
		line = strings.Repeat(" ", hang) + strings.TrimLeft(line[cut:], " ")
	}
	b.WriteString(line + "\n")
	return b.String()
}

// breakAt is the byte offset of the last space that leaves at most width
// columns before it (and comes after column hang), 0 if none.
func breakAt(s string, width, hang int) int {
	col, last := 0, 0
	for i, r := range s {
		if r == ' ' && col > hang && col <= width {
			last = i
		}
		col += termwidth.Rune(r)
		if col > width+1 {
			break
		}
	}
	return last
}

// writeMan writes the manual page for the parser, troff with the man
// macros.
func (p Program) writeMan(w io.Writer, parser *flags.Parser) {
	var b strings.Builder
	date := time.Now()
	if s, err := strconv.ParseInt(os.Getenv("SOURCE_DATE_EPOCH"), 10, 64); err == nil {
		date = time.Unix(s, 0).UTC()
	}
	fmt.Fprintf(&b, ".TH \"%s\" 1 \"%s\" \"ag %s\" \"ag manual\"\n", roff(p.Name), date.Format("2 January 2006"), Version())
	b.WriteString(".nh\n.ad l\n") // no hyphenation, ragged right: commands and paths stay whole
	b.WriteString(".SH NAME\n" + roff(p.Name) + " \\- " + roff(p.Short) + "\n")
	b.WriteString(".SH SYNOPSIS\n.nf\n")
	for _, u := range append([]string{p.Usage}, p.Synopsis...) {
		b.WriteString("\\fB" + roff(p.Name) + "\\fR " + roff(u) + "\n")
	}
	b.WriteString(".fi\n.SH DESCRIPTION\n")
	b.WriteString(manText(p.Help))
	b.WriteString(manText(p.Long))
	b.WriteString(".SH OPTIONS\n")
	b.WriteString(manOptions(parser.Command.Group))
	for _, c := range parser.Commands() {
		if c.Hidden {
			continue
		}
		fmt.Fprintf(&b, ".SH %s\n", roff(strings.ToUpper(p.Name+" "+c.Name)))
		if u := p.Commands[c.Name].Usage; u != "" {
			b.WriteString(".nf\n\\fB" + roff(p.Name+" "+c.Name) + "\\fR " + roff(u) + "\n.fi\n")
		}
		b.WriteString(manText(c.LongDescription))
		b.WriteString(manOptions(c.Group))
	}
	if len(p.Examples) > 0 {
		b.WriteString(".SH EXAMPLES\n.nf\n")
		for _, e := range p.Examples {
			b.WriteString(roff(e) + "\n")
		}
		b.WriteString(".fi\n")
	}
	b.WriteString(".SH EXIT STATUS\n.TP\n0\ndone\n.TP\n1\nnothing matched, nothing to report, or refused\n" +
		".TP\n2\nan error: bad usage, a line that is not an event (reported; the stream goes on), " +
		"a file not read or written, a jq expression that failed\n.TP\n130, 143\nstopped by SIGINT, SIGTERM\n")
	b.WriteString(".SH SEE ALSO\nag\\-hook(1), ag\\-tail(1), ag\\-detect(1), ag\\-fold(1), ag\\-notify(1), ag\\-keys(1); the README\n")
	io.WriteString(w, b.String())
}

// manOptions are a group's options as a tagged list.
func manOptions(g *flags.Group) string {
	var b strings.Builder
	var walk func(g *flags.Group)
	walk = func(g *flags.Group) {
		for _, o := range g.Options() {
			if o.Hidden || o.LongName == "help" {
				continue
			}
			b.WriteString(".TP\n\\fB")
			if o.ShortName != 0 {
				b.WriteString("\\-" + roff(string(o.ShortName)) + "\\fR, \\fB")
			}
			b.WriteString("\\-\\-" + roff(o.LongName) + "\\fR")
			if o.ValueName != "" {
				b.WriteString(" \\fI" + roff(o.ValueName) + "\\fR")
			}
			b.WriteString("\n" + roff(optionDesc(o)))
			if more := o.Field().Tag.Get("man"); more != "" {
				b.WriteString("; " + roff(more))
			}
			if env := o.EnvKeyWithNamespace(); env != "" {
				b.WriteString(" (also $" + roff(env) + ")")
			}
			b.WriteString("\n")
		}
		for _, sub := range g.Groups() {
			walk(sub)
		}
	}
	walk(g)
	return b.String()
}

// manText renders Long's simple markup as troff: paragraphs, "- " list
// items (their continuation lines joined, never broken into the next
// item), "## " subsections, and two-space indented blocks kept line for
// line.
func manText(text string) string {
	var b strings.Builder
	for _, block := range strings.Split(strings.TrimSpace(text), "\n\n") {
		lines := strings.Split(block, "\n")
		switch {
		case strings.TrimSpace(block) == "":
		case strings.HasPrefix(lines[0], "## "):
			b.WriteString(".SS " + roff(strings.TrimPrefix(lines[0], "## ")) + "\n")
			if rest := strings.Join(lines[1:], "\n"); strings.TrimSpace(rest) != "" {
				b.WriteString(manText(rest))
			}
		case strings.HasPrefix(lines[0], "- "):
			var item []string
			flush := func() {
				if len(item) > 0 {
					b.WriteString(".IP \\(bu 2\n" + roff(strings.Join(item, " ")) + "\n")
				}
				item = nil
			}
			for _, l := range lines {
				if strings.HasPrefix(l, "- ") {
					flush()
					l = l[2:]
				}
				item = append(item, strings.TrimSpace(l))
			}
			flush()
		case strings.HasPrefix(lines[0], "  "):
			b.WriteString(".PP\n.RS 2\n.nf\n")
			for _, l := range lines {
				b.WriteString(roff(strings.TrimPrefix(l, "  ")) + "\n")
			}
			b.WriteString(".fi\n.RE\n")
		default:
			b.WriteString(".PP\n" + roff(strings.Join(strings.Fields(block), " ")) + "\n")
		}
	}
	return b.String()
}

// roff escapes text for troff: backslashes, hyphens (so options stay
// minus signs), characters past ASCII, and a leading dot or quote.
func roff(s string) string {
	s = strings.ReplaceAll(s, `\`, `\e`)
	s = strings.ReplaceAll(s, "-", `\-`)
	if strings.ContainsFunc(s, func(r rune) bool { return r > 0x7e }) {
		// Non-ASCII as troff's own escapes: read alike by groff (without
		// preconv) and mandoc.
		var b strings.Builder
		for _, r := range s {
			if r > 0x7e {
				fmt.Fprintf(&b, `\[u%04X]`, r)
			} else {
				b.WriteRune(r)
			}
		}
		s = b.String()
	}
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s
}
