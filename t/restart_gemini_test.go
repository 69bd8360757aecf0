package t

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
)

// TestRestartGeminiChats: Gemini CLI chats (JSONL, as 0.61 writes them:
// a response when it ends and again with its tool calls once they
// finished, the pause between them long enough for a kill) written while
// the pipeline is killed at random moments and started again: every
// session ends with the tokens its chat holds, each response counted once,
// and the states a full replay folds.
func TestRestartGeminiChats(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	chats := filepath.Join(home, ".gemini", "tmp", "w", "chats")
	os.MkdirAll(chats, 0o755)
	ag := filepath.Join(home, ".ag")
	env := []string{"HOME=" + home, "GEMINI_CLI_HOME=" + home, "AG_DIR=" + ag, "CLAUDE_CONFIG_DIR=" + filepath.Join(home, "claude"), "CODEX_HOME=" + home + "/codex"}

	const sessions = 3
	type sess struct {
		id           string
		f            *os.File
		in, out, hit int64 // what its meters add up to
	}
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	stamp := func() string { at = at.Add(time.Second); return at.Format(time.RFC3339Nano) }
	var ss []*sess
	for i := range sessions {
		id := fmt.Sprintf("%08x-5b8b-41bf-a134-8780c4ece6df", i)
		f, err := os.Create(filepath.Join(chats, "session-2026-12-01T10-00-"+id[:8]+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		fmt.Fprintf(f, `{"sessionId":"%s","projectHash":"h","startTime":"%s","lastUpdated":"%s","kind":"main"}`+"\n", id, stamp(), stamp())
		ss = append(ss, &sess{id: id, f: f})
	}
	n := 0
	r := rand.New(rand.NewPCG(5, 6))
	var mu sync.Mutex
	write := func() { // one turn of one session
		mu.Lock()
		defer mu.Unlock()
		s := ss[r.IntN(sessions)]
		n++
		fmt.Fprintf(s.f, `{"id":"u%d","timestamp":"%s","type":"user","content":[{"text":"go %d"}]}`+"\n", n, stamp(), n)
		fmt.Fprintf(s.f, `{"$set":{"lastUpdated":"%s"}}`+"\n", at.Format(time.RFC3339Nano))
		calls := r.IntN(3)
		for k := 0; k <= calls; k++ {
			n++
			id, t0 := fmt.Sprintf("g%d", n), stamp()
			msg := fmt.Sprintf(`{"id":"%s","timestamp":"%s","type":"gemini","content":"step %d","tokens":{"input":%d,"output":3,"cached":50,"thoughts":1,"tool":0},"model":"gemini-3.8-flash"`,
				id, t0, k, 100+n)
			s.in, s.out, s.hit = s.in+int64(50+n), s.out+4, s.hit+50
			s.f.WriteString(msg + "}\n")
			if k == calls {
				break // the answer: no calls
			}
			// Its call runs, then the response is written again with it.
			mu.Unlock()
			time.Sleep(time.Duration(r.IntN(30)) * time.Millisecond)
			mu.Lock()
			fmt.Fprintf(s.f, `%s,"toolCalls":[{"id":"c%d","name":"run_shell_command","args":{"command":"ls"},"status":"success","timestamp":"%s"}]}`+"\n", msg, n, stamp())
			fmt.Fprintf(s.f, `{"id":"r%d","timestamp":"%s","type":"user","content":[{"functionResponse":{"id":"c%d","name":"run_shell_command","response":{"output":"x"}}}]}`+"\n", n, stamp(), n)
		}
	}
	restarts(t, env, ag, write, func(states []event.Event) (bool, string) {
		mu.Lock()
		defer mu.Unlock()
		ok := len(states) == sessions
		var got []string
		for _, st := range states {
			for _, s := range ss {
				if st.Session != s.id {
					continue
				}
				if st.Tokens == nil || st.Tokens.In != s.in || st.Tokens.Out != s.out || st.Tokens.CacheRead != s.hit {
					ok = false
				}
				if st.Tokens != nil {
					got = append(got, fmt.Sprintf("%s in %d/%d out %d/%d cache %d/%d %s", s.id[:8], st.Tokens.In, s.in, st.Tokens.Out, s.out, st.Tokens.CacheRead, s.hit, st.Status))
				}
			}
		}
		return ok, strings.Join(got, "\n")
	}, func(e *event.Event) {
		// How often the status changed: a follower reads an answer as
		// the end of its turn until the calls it makes are written (a
		// moment later), a replay reads them together — restarts or not.
		e.Gen, e.Token = 0, ""
	})
	// Each chat went on from the parser's own checkpoint.
	checkpointsKept(t, ag, "/chats/session-", `"msgs":[`)
	t.Logf("%d messages", n)
}
