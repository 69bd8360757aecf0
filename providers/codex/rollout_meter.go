package codex

import (
	"fmt"
	"strconv"
	"time"

	"github.com/agwatch/ag/filters/event"
)

// Meters: token_count (tokens, context window, rate limits; every Codex
// version) and token_usage_record (one response's usage, 0.17x).

type usage struct {
	InputTokens           int64 `json:"input_tokens"`
	CachedInputTokens     int64 `json:"cached_input_tokens"`
	CacheWriteInputTokens int64 `json:"cache_write_input_tokens"`
	OutputTokens          int64 `json:"output_tokens"`
	TotalTokens           int64 `json:"total_tokens"`
}

type tokenInfo struct {
	Total              usage `json:"total_token_usage"`
	Last               usage `json:"last_token_usage"`
	ModelContextWindow int64 `json:"model_context_window"`
}

type rateWindow struct {
	UsedPercent     float64 `json:"used_percent"`
	WindowMinutes   int     `json:"window_minutes"`
	ResetsAt        int64   `json:"resets_at"`
	ResetsInSeconds int64   `json:"resets_in_seconds"`
}

type rateLimits struct {
	Primary   *rateWindow `json:"primary"`
	Secondary *rateWindow `json:"secondary"`
}

func (r *Rollout) tokens(p *payload, t time.Time, key string, out []event.Event) []event.Event {
	e := r.ev(event.Meter, t, key)
	e.Model = r.model
	fresh := false
	if in := p.Info; in != nil {
		if in.ModelContextWindow > 0 {
			r.window = in.ModelContextWindow
		}
		// Codex repeats the same token_count after some items: only a
		// grown session total is a new response. Where token_usage_record
		// lines exist they already counted it.
		if in.Total.TotalTokens != r.total {
			r.total = in.Total.TotalTokens
			if !r.records {
				r.usage(&e, in.Last)
				fresh = true
			}
		}
	}
	if lim := limitsOf(p.RateLimits, t); len(lim) > 0 {
		sig := fmt.Sprint(limitSig(lim))
		if sig != r.limits || fresh {
			r.limits = sig
			e.Limits = lim
			fresh = true
		}
	}
	if !fresh {
		return out
	}
	out = r.flush(out)
	return append(out, e)
}

// record reads 0.17x's token_usage_record: one model response's usage,
// written as the response completes, before its tool runs (token_count
// waits for the tool's output, so during an approval only this line says
// what the call cost).
func (r *Rollout) record(p *payload, t time.Time, key string, out []event.Event) []event.Event {
	if p.Usage == nil || p.ResponseID == "" || p.ResponseID == r.response {
		return out
	}
	r.records, r.response = true, p.ResponseID
	e := r.ev(event.Meter, t, key)
	e.Model = r.model
	r.usage(&e, *p.Usage)
	out = r.flush(out)
	return append(out, e)
}

// usage sets one response's tokens and the context it leaves.
func (r *Rollout) usage(e *event.Event, l usage) {
	e.Tokens = &event.Tokens{
		In:         max(l.InputTokens-l.CachedInputTokens, 0),
		Out:        l.OutputTokens,
		CacheRead:  l.CachedInputTokens,
		CacheWrite: l.CacheWriteInputTokens,
	}
	if r.window > 0 {
		left := ContextLeftPct(l.TotalTokens, r.window)
		e.Context = &event.Context{Used: l.TotalTokens, Size: r.window, LeftPct: &left}
	}
}

func limitSig(l []event.Limit) []string {
	s := make([]string, len(l))
	for i, x := range l {
		s[i] = fmt.Sprintf("%s %g %v", x.Window, x.UsedPct, x.ResetsAt)
	}
	return s
}

// limitsOf reads the rate-limit windows; resets_at is epoch seconds, older
// Codex wrote resets_in_seconds relative to the line.
func limitsOf(rl *rateLimits, t time.Time) []event.Limit {
	if rl == nil {
		return nil
	}
	var out []event.Limit
	for _, w := range []*rateWindow{rl.Primary, rl.Secondary} {
		if w == nil {
			continue
		}
		l := event.Limit{Window: WindowName(w.WindowMinutes), UsedPct: w.UsedPercent, Minutes: w.WindowMinutes}
		switch {
		case w.ResetsAt > 0:
			l.ResetsAt = event.Ptr(time.Unix(w.ResetsAt, 0).UTC())
		case w.ResetsInSeconds > 0:
			l.ResetsAt = event.Ptr(t.Add(time.Duration(w.ResetsInSeconds) * time.Second).UTC())
		}
		out = append(out, l)
	}
	return out
}

// WindowName names a rate-limit window by its length, the way Codex's
// footer does: 300 minutes is "5h", 10080 is "7d".
func WindowName(minutes int) string {
	switch {
	case minutes <= 0:
		return ""
	case minutes%1440 == 0:
		return strconv.Itoa(minutes/1440) + "d"
	case minutes%60 == 0:
		return strconv.Itoa(minutes/60) + "h"
	}
	return strconv.Itoa(minutes) + "m"
}
