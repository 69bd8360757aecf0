package claude

import "github.com/agwatch/ag/filters/event"

// The members of a transcript line the parser reads, walked by skim (see
// record for what each means).

// skimLine fills r from line. ok is false when the line is not an object
// (nothing to read); err when it is broken.
func skimLine(line []byte, r *record) (ok bool, err error) {
	blocks := r.Msg.Blocks[:0] // kept: most lines have some
	*r = record{}
	r.Msg.Blocks = blocks
	s := skim{b: line}
	s.ws()
	if s.i >= len(line) || line[s.i] != '{' {
		return false, nil
	}
	s.i++
	for n := 0; s.member(&n); n++ {
		switch string(s.key) {
		case "type":
			r.Type = s.jtext()
		case "subtype":
			r.Subtype = s.jtext()
		case "isSidechain":
			r.Sidechain = s.boolVal()
		case "isMeta":
			r.Meta = s.boolVal()
		case "isCompactSummary":
			r.CompactSummary = s.boolVal()
		case "agentId":
			r.AgentID = s.jtext()
		case "promptId":
			r.PromptID = s.jtext()
		case "sessionId":
			r.SessionID = s.jtext()
		case "timestamp":
			r.Timestamp = s.jtext()
		case "cwd":
			r.Cwd = s.jtext()
		case "gitBranch":
			r.Branch = s.jtext()
		case "requestId":
			r.RequestID = s.jtext()
		case "uuid":
			r.UUID = s.jtext()
		case "interruptedMessageId":
			r.InterruptedMessageID = s.jtext()
		case "isApiErrorMessage":
			r.APIError = s.boolVal()
		case "error":
			r.ErrorKind = s.jtext()
		case "toolUseResult":
			r.Launched = s.launched()
		case "message":
			r.Msg = message{Blocks: r.Msg.Blocks[:0]}
			s.message(&r.Msg)
		default:
			s.skip()
		}
	}
	if s.err == nil {
		s.ws()
		if s.i < len(line) {
			s.fail("data after the object")
		}
	}
	return s.err == nil, s.err
}

// launched is the agentId of a toolUseResult whose status is
// async_launched: a sub-agent started in the background.
func (s *skim) launched() jstr {
	var status, agent jstr
	if s.open('{') {
		for n := 0; s.member(&n); n++ {
			switch string(s.key) {
			case "status":
				status, _ = s.strVal()
			case "agentId":
				agent, _ = s.strVal()
			default:
				s.skip()
			}
		}
	}
	if status.is("async_launched") {
		return agent
	}
	return jstr{}
}

func (s *skim) message(m *message) {
	if !s.open('{') {
		return
	}
	for n := 0; s.member(&n); n++ {
		switch string(s.key) {
		case "id":
			m.ID = s.jtext()
		case "model":
			m.Model = s.jtext()
		case "stop_reason":
			m.StopReason = s.jtext()
		case "usage":
			m.Usage = event.Tokens{}
			m.HasUsage = s.usage(&m.Usage)
		case "content":
			m.IsString, m.Text, m.Blocks = false, jstr{}, m.Blocks[:0]
			s.ws()
			if s.i < len(s.b) && s.b[s.i] == '"' {
				m.Text, m.IsString = s.strVal()
				continue
			}
			if !s.open('[') {
				continue
			}
			for n := 0; s.elem(&n); n++ {
				var b block
				if s.block(&b) {
					m.Blocks = append(m.Blocks, b)
				}
			}
		default:
			s.skip()
		}
	}
}

func (s *skim) usage(u *event.Tokens) bool {
	if !s.open('{') {
		return false
	}
	for n := 0; s.member(&n); n++ {
		switch string(s.key) {
		case "input_tokens":
			u.In = s.numVal()
		case "output_tokens":
			u.Out = s.numVal()
		case "cache_read_input_tokens":
			u.CacheRead = s.numVal()
		case "cache_creation_input_tokens":
			u.CacheWrite = s.numVal()
		default:
			s.skip()
		}
	}
	return true
}

// block reads one element of a message's content: false when it is not
// an object.
func (s *skim) block(b *block) bool {
	if !s.open('{') {
		return false
	}
	for n := 0; s.member(&n); n++ {
		switch string(s.key) {
		case "type":
			b.Type = s.jtext()
		case "id":
			b.ID = s.jtext()
		case "name":
			b.Name = s.jtext()
		case "tool_use_id":
			b.ToolUseID = s.jtext()
		case "is_error":
			b.IsError = s.boolVal()
		case "content":
			j, isStr := s.strVal()
			b.Rejected = isStr && rejected(j)
		case "text":
			b.Text, _ = s.strVal()
		case "input":
			b.Summary = s.summary()
		default:
			s.skip()
		}
	}
	return true
}

// summary is the most telling member of a tool_use's input.
func (s *skim) summary() string {
	var vals [len(summaryKeys)]jstr
	if s.open('{') {
		for n := 0; s.member(&n); n++ {
			r := summaryRank(string(s.key))
			if r < 0 {
				s.skip()
				continue
			}
			vals[r], _ = s.strVal()
		}
	}
	return pickSummary(vals[:])
}
