package claude

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"

	"github.com/agwatch/ag/filters/event"
)

// decodePlain is the straightforward decoder the fast path is checked
// against: encoding/json into generic values, then the same meaning as
// skimLine gives (wrong types count as absent, last duplicate wins).
func decodePlain(line []byte, r *record, _ *lineMemo) (bool, error) {
	*r = record{}
	d := json.NewDecoder(bytes.NewReader(line))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return false, err
	}
	if _, err := d.Token(); !errors.Is(err, io.EOF) {
		return false, errors.New("data after the value")
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return false, nil
	}
	r.Type, r.Subtype = str(obj["type"]), str(obj["subtype"])
	r.Sidechain, r.Meta, r.CompactSummary = obj["isSidechain"] == true, obj["isMeta"] == true, obj["isCompactSummary"] == true
	r.AgentID, r.PromptID, r.SessionID = str(obj["agentId"]), str(obj["promptId"]), str(obj["sessionId"])
	r.Timestamp, r.Cwd, r.Branch = str(obj["timestamp"]), str(obj["cwd"]), str(obj["gitBranch"])
	r.RequestID, r.UUID, r.InterruptedMessageID = str(obj["requestId"]), str(obj["uuid"]), str(obj["interruptedMessageId"])
	r.APIError, r.ErrorKind = obj["isApiErrorMessage"] == true, str(obj["error"])
	if res, ok := obj["toolUseResult"].(map[string]any); ok && str(res["status"]).is("async_launched") {
		r.Launched = str(res["agentId"])
	}
	msg, ok := obj["message"].(map[string]any)
	if !ok {
		return true, nil
	}
	m := &r.Msg
	m.ID, m.Model, m.StopReason = str(msg["id"]), str(msg["model"]), str(msg["stop_reason"])
	if u, ok := msg["usage"].(map[string]any); ok {
		m.HasUsage = true
		m.Usage = event.Tokens{In: num(u["input_tokens"]), Out: num(u["output_tokens"]),
			CacheRead: num(u["cache_read_input_tokens"]), CacheWrite: num(u["cache_creation_input_tokens"])}
	}
	switch c := msg["content"].(type) {
	case string:
		m.IsString, m.Text = true, jstr{dec: c}
	case []any:
		for _, el := range c {
			bo, ok := el.(map[string]any)
			if !ok {
				continue
			}
			b := block{Type: str(bo["type"]), ID: str(bo["id"]), Name: str(bo["name"]),
				ToolUseID: str(bo["tool_use_id"]), IsError: bo["is_error"] == true, Text: str(bo["text"]),
				Rejected: rejected(str(bo["content"]))}
			if in, ok := bo["input"].(map[string]any); ok {
				var vals [len(summaryKeys)]jstr
				for i, k := range summaryKeys {
					vals[i] = str(in[k])
				}
				b.Summary = pickSummary(vals[:])
			}
			m.Blocks = append(m.Blocks, b)
		}
	}
	return true, nil
}

func str(v any) jstr {
	s, _ := v.(string)
	return jstr{dec: s}
}

func num(v any) int64 {
	n, ok := v.(json.Number)
	if !ok {
		return 0
	}
	return toInt([]byte(n))
}

// plainParser is a Parser on the oracle: full decoding.
func plainParser(path string) *Parser {
	p := NewParser(path)
	p.decode = decodePlain
	return p
}
