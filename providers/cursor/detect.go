package cursor

import (
	"strings"

	"github.com/agwatch/ag/providers/provider"
)

var _ provider.ProcDetector = (*Provider)(nil)

// ProcRules: the stock binary and the bare "agent" shim Cursor installs
// beside it, by argv[0] (never a word in another command's arguments:
// `vim agent` is no agent). On Linux its comm is "MainThread".
func (*Provider) ProcRules() provider.ProcRules {
	return provider.ProcRules{
		Names:   []string{"cursor-agent", "agent"},
		Session: SessionFromArgv,
	}
}

// SessionFromArgv is the chat `cursor-agent --resume <id>` (or
// --resume=<id>) reopens, "" for a new one.
func SessionFromArgv(argv []string) string {
	for i := 1; i < len(argv); i++ {
		v := ""
		switch a := argv[i]; {
		case strings.HasPrefix(a, "--resume="):
			v = strings.TrimPrefix(a, "--resume=")
		case a == "--resume" && i+1 < len(argv):
			v = argv[i+1]
		}
		if provider.IsUUID(v) {
			return strings.ToLower(v)
		}
	}
	return ""
}
