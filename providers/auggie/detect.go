package auggie

import (
	"strings"

	"github.com/agwatch/ag/providers/provider"
)

var _ provider.ProcDetector = (*Provider)(nil)

// ProcRules: how Auggie runs (0.36.0 from npm, seen in tmux): one process,
// `node …/node_modules/.bin/auggie` (a link to
// …/@augmentcode/auggie/augment.mjs), comm "node", which runs the session
// and its hooks: the interpreter process is the agent, no launcher.
func (*Provider) ProcRules() provider.ProcRules {
	return provider.ProcRules{
		Names:   []string{"auggie"},
		Paths:   []string{"/@augmentcode/auggie/"},
		Session: SessionFromArgv,
	}
}

// SessionFromArgv is the session an Auggie command line names: `--resume
// <id>` (-r, --resume=<id>) or `session resume <id>`; "" for a new one, a
// prefix or the picker.
func SessionFromArgv(argv []string) string {
	for i := 1; i < len(argv); i++ {
		a, val := argv[i], ""
		if k, v, ok := strings.Cut(a, "="); ok && strings.HasPrefix(a, "-") {
			a, val = k, v
		} else if i+1 < len(argv) {
			val = argv[i+1]
		}
		switch {
		case a == "-r" || a == "--resume":
		case a == "resume" && i > 1 && (argv[i-1] == "session" || argv[i-1] == "sessions"):
		default:
			continue
		}
		if provider.IsUUID(val) {
			return strings.ToLower(val)
		}
		return ""
	}
	return ""
}
