// Package anthropic is a fake Anthropic Messages API on 127.0.0.1 for
// end-to-end tests of the real Claude Code CLI: point ANTHROPIC_BASE_URL at
// Server.URL and the CLI runs real turns against a model whose behaviour is
// scripted by the prompt text.
//
// Script (markers in the last user message, see Script):
//
//	RUN: <command>    reply with a Bash tool_use running <command>; once the
//	                  tool_result comes back, a final text reply
//	ASK: <question>   reply with an AskUserQuestion tool_use: one question,
//	                  header "Choice", options AskOptions
//	PLAN: <text>      in plan mode, Write <text> to the plan file the CLI
//	                  names, then call ExitPlanMode {"plan": text} (the
//	                  plan approval picker); without a named file, call
//	                  ExitPlanMode at once (a bare "Exit plan mode?")
//	PLAN-BARE: <text> ExitPlanMode without writing the plan file first
//	AGENT: <prompt>   reply with an Agent (or Task) tool_use starting a
//	                  general-purpose sub-agent on <prompt>; its own
//	                  requests get plain replies (a SLOW in <prompt> slows
//	                  the sub-agent, not the call)
//	AGENT-BG: <prompt> the same with run_in_background
//	SLOW:<duration>   hold the reply that long after message_start, so the
//	                  agent is observably "working" (SLOW alone = 3s)
//	anything else     a text reply "FAKE-REPLY: ..."
//
// A request without tools (the CLI's side requests: session title, ...) always
// gets text. The reply's model is the requested model. Every request is
// recorded; Log renders them for a failing test.
package anthropic

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/agwatch/ag/t/fakeapi/serve"
)

// Server is one running fake API. Its URL is the base URL for
// ANTHROPIC_BASE_URL (no /v1 suffix).
type Server struct {
	*serve.Server[Request]
	opts Options
}

// Request is one request the server answered, for assertions and failure
// logs: what every fake records, and Claude's own.
type Request struct {
	serve.Request
	Messages int
	Session  string // X-Claude-Code-Session-Id
	Beta     string // anthropic-beta: "context-1m-…" when the CLI asks for the 1M window
	Last     string // the newest text block of the prompt, clamped
	Usage    Usage  // the usage reported for a Messages reply
	// Verdict is the safety check's outcome for the reply's tool calls
	// (VerdictFlagged, VerdictNotFlagged), "" when none was asked for or
	// given.
	Verdict string
}

// Usage is the token usage one reply reported.
type Usage struct {
	In, Out, CacheRead, CacheWrite int64
}

// Context is what the prompt of the request occupied: in + cache read + cache write.
func (u Usage) Context() int64 { return u.In + u.CacheRead + u.CacheWrite }

func (r Request) String() string {
	oneM := ""
	if strings.Contains(r.Beta, "context-1m") {
		oneM = "1m"
	}
	usage := ""
	if r.Usage != (Usage{}) {
		usage = fmt.Sprintf("usage=in:%d,cache_read:%d,cache_write:%d,out:%d", r.Usage.In, r.Usage.CacheRead, r.Usage.CacheWrite, r.Usage.Out)
	}
	return r.Line(serve.Field("msgs", r.Messages), oneM, usage, serve.Field("verdict", r.Verdict))
}

// Options tune a Server; the zero value is fine.
type Options struct {
	// Trace, when set, receives every request body, one line each.
	Trace io.Writer
	// InputTokens is the prompt every reply reports (0: ~4 bytes of the
	// request body a token), to drive a context meter.
	InputTokens int64
	// NoVerdicts leaves the safety check's verdicts out of every reply,
	// as a gateway that does not pass them through: Claude Code's auto
	// mode then holds its next risky action for the user (see Verdict).
	NoVerdicts bool
}

// Start listens on 127.0.0.1 on a free port and serves until Close.
func Start(opts Options) (*Server, error) {
	return serve.Start("fake anthropic", opts.Trace, func(b *serve.Server[Request]) *Server { return &Server{Server: b, opts: opts} })
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rec := Request{Request: serve.NewRequest(r),
		Session: r.Header.Get("X-Claude-Code-Session-Id"), Beta: r.Header.Get("Anthropic-Beta")}
	defer func() { s.Record(rec) }()

	switch {
	case r.URL.Path == "/" && (r.Method == http.MethodHead || r.Method == http.MethodGet):
		rec.Status = http.StatusOK // the CLI's connectivity probe
		w.WriteHeader(rec.Status)
	case r.URL.Path == "/v1/messages" && r.Method == http.MethodPost:
		s.messages(w, r, &rec)
	case r.URL.Path == "/v1/messages/count_tokens" && r.Method == http.MethodPost:
		s.countTokens(w, r, &rec)
	default:
		rec.Status = http.StatusNotFound
		apiError(w, rec.Status, "not_found_error", "fake anthropic: no route for "+r.Method+" "+r.URL.Path)
	}
}

func (s *Server) countTokens(w http.ResponseWriter, r *http.Request, rec *Request) {
	body, err := s.ReadBody(r)
	if err != nil {
		rec.Status = http.StatusBadRequest
		apiError(w, rec.Status, "invalid_request_error", err.Error())
		return
	}
	rec.Status = http.StatusOK
	serve.WriteJSON(w, rec.Status, map[string]int64{"input_tokens": estimateTokens(len(body))})
}

func (s *Server) messages(w http.ResponseWriter, r *http.Request, rec *Request) {
	var req messagesRequest
	body, err := s.Decode(r, &req)
	if err != nil {
		rec.Status = http.StatusBadRequest
		rec.Reply = "error " + err.Error()
		apiError(w, rec.Status, "invalid_request_error", "fake anthropic: "+err.Error())
		return
	}
	rec.Model, rec.Stream, rec.Tools, rec.Messages = req.Model, req.Stream, len(req.Tools), len(req.Messages)

	sc := plan(&req)
	rec.Prompt, rec.Last = serve.Clamp(sc.Prompt, 80), serve.Clamp(sc.Last, 80)
	if sc.Fail != "" {
		// 400: the CLI does not retry it; the turn fails at once.
		rec.Status, rec.Reply = http.StatusBadRequest, "error "+serve.Clamp(sc.Fail, 60)
		apiError(w, rec.Status, "invalid_request_error", "FAKE-FAIL: "+sc.Fail)
		return
	}
	n := s.Next()
	msg := message{
		ID:    fmt.Sprintf("msg_fake%06d", n),
		Type:  "message",
		Role:  "assistant",
		Model: req.Model,
		Usage: promptUsage(s.promptTokens(body)),
	}
	if sc.Command != "" {
		msg.StopReason = "tool_use"
		msg.Content = []block{
			{Type: "text", Text: "I will run the command."},
			{Type: "tool_use", ID: fmt.Sprintf("toolu_fake%06d", n), Name: "Bash",
				Input: map[string]string{"command": sc.Command, "description": "Run the requested command"}},
		}
		rec.Reply = "tool:Bash " + sc.Command
	} else if sc.Tool != "" {
		msg.StopReason = "tool_use"
		msg.Content = []block{
			{Type: "text", Text: "I will use " + sc.Tool + "."},
			{Type: "tool_use", ID: fmt.Sprintf("toolu_fake%06d", n), Name: sc.Tool, Input: json.RawMessage(sc.Input)},
		}
		rec.Reply = "tool:" + sc.Tool + " " + serve.Clamp(sc.Input, 60)
	} else {
		msg.StopReason = "end_turn"
		msg.Content = []block{{Type: "text", Text: sc.Text}}
		rec.Reply = "text"
	}
	msg.Usage.OutputTokens = estimateTokens(len(sc.Text) + len(sc.Command) + len(sc.Input) + 40)
	rec.Usage = Usage{In: msg.Usage.InputTokens, Out: msg.Usage.OutputTokens,
		CacheRead: msg.Usage.CacheReadInputTokens, CacheWrite: msg.Usage.CacheCreationInputTokens}
	if sc.Delay > 0 {
		rec.Reply += fmt.Sprintf(" delay=%s", sc.Delay)
	}
	if wantsVerdicts(&req) && !s.opts.NoVerdicts {
		msg.verdicts, rec.Verdict = verdicts(msg, riskyRe.MatchString(firstPrompt(&req)))
	}
	rec.Status = http.StatusOK
	if !req.Stream {
		if !s.Sleep(r.Context(), sc.Delay) {
			return
		}
		serve.WriteJSON(w, rec.Status, msg)
		return
	}
	s.stream(w, r, msg, sc.Delay)
}

func apiError(w http.ResponseWriter, status int, typ, msg string) {
	serve.WriteJSON(w, status, map[string]any{"type": "error",
		"error": map[string]string{"type": typ, "message": msg}})
}

// promptUsage splits a prompt's tokens the way a cached conversation does:
// most read from the prompt cache, some written to it, a few uncached; so
// meters that add the three (context used) or keep them apart (tokens) are
// both checked.
func promptUsage(total int64) usage {
	u := usage{InputTokens: total/10 + 1, CacheReadInputTokens: total / 2}
	u.CacheCreationInputTokens = max(total-u.InputTokens-u.CacheReadInputTokens, 0)
	return u
}

// promptTokens is Options.InputTokens, or else the body's estimate.
func (s *Server) promptTokens(body []byte) int64 {
	if s.opts.InputTokens > 0 {
		return s.opts.InputTokens
	}
	return estimateTokens(len(body))
}

// estimateTokens is the usual ~4 bytes per token; the CLI only displays it.
func estimateTokens(bytes int) int64 { return int64(bytes/4 + 1) }
