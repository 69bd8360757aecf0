package state

import (
	"strconv"
	"strings"
	"time"
)

// A state's token names one wait of its session: "<ms>.<generation>", the
// time the session's current state began (milliseconds since the epoch)
// and the session's generation, which grows with every change. ag-fold
// makes it; a notification quotes it; ag-keys refuses a press whose token
// is not the session's, and waits for the state file when the token is
// ahead of it (a later generation).

// Token is the token of a state that began at since, at generation gen.
func Token(since time.Time, gen int64) string {
	return strconv.FormatInt(since.UnixMilli(), 10) + "." + strconv.FormatInt(gen, 10)
}

// TokenGen is the generation a token names; false for a token that is not
// one.
func TokenGen(token string) (int64, bool) {
	i := strings.LastIndexByte(token, '.')
	if i < 0 {
		return 0, false
	}
	g, err := strconv.ParseInt(token[i+1:], 10, 64)
	if err != nil || g < 0 {
		return 0, false
	}
	return g, true
}

// TokenAhead reports whether token a names a later change of its session
// than token b. A token that cannot be read is not ahead of anything; any
// readable token is ahead of one that cannot be read.
func TokenAhead(a, b string) bool {
	ga, okA := TokenGen(a)
	gb, okB := TokenGen(b)
	return okA && (!okB || gb < ga)
}
