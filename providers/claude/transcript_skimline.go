package claude

import "github.com/agwatch/ag/filters/event"

// The members of a transcript line the parser reads, walked by skim (see
// record for what each means).

// skimLine fills r from line. ok is false when the line is not an object
// (nothing to read); err when it is broken. memo, when not nil, holds what
// the lines before repeat.
func skimLine(line []byte, r *record, memo *lineMemo) (ok bool, err error) {
	blocks := r.Msg.Blocks[:0] // kept: most lines have some
	*r = record{}
	r.Msg.Blocks = blocks
	s := skim{b: line, memo: memo}
	s.ws()
	if s.i >= len(line) || line[s.i] != '{' {
		return false, nil
	}
	s.i++
	for n := 0; s.member(&n); n++ {
		switch s.kid {
		case keyType:
			r.Type = s.jtext()
		case keySubtype:
			r.Subtype = s.jtext()
		case keyIsSidechain:
			r.Sidechain = s.boolVal()
		case keyIsMeta:
			r.Meta = s.boolVal()
		case keyIsCompactSummary:
			r.CompactSummary = s.boolVal()
		case keyAgentID:
			r.AgentID = s.jtext()
		case keyPromptID:
			r.PromptID = s.jtext()
		case keySessionID:
			r.SessionID = s.jtext()
		case keyTimestamp:
			r.Timestamp = s.jtext()
		case keyCwd:
			r.Cwd = s.jtext()
		case keyGitBranch:
			r.Branch = s.jtext()
		case keyRequestID:
			r.RequestID = s.jtext()
		case keyUUID:
			r.UUID = s.jtext()
		case keyInterruptedMessageID:
			r.InterruptedMessageID = s.jtext()
		case keyIsAPIErrorMessage:
			r.APIError = s.boolVal()
		case keyError:
			r.ErrorKind = s.jtext()
		case keyToolUseResult:
			r.Launched = s.launched()
		case keyMessage:
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
			switch s.kid {
			case keyStatus:
				status, _ = s.strVal()
			case keyAgentID:
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
		switch s.kid {
		case keyID:
			m.ID = s.jtext()
		case keyModel:
			m.Model = s.jtext()
		case keyStopReason:
			m.StopReason = s.jtext()
		case keyUsage:
			m.Usage = event.Tokens{}
			m.HasUsage = s.usage(&m.Usage)
		case keyContent:
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
	c := s.memo
	if c != nil && len(c.usage) > 0 && len(s.b)-s.i >= len(c.usage) && string(s.b[s.i:s.i+len(c.usage)]) == string(c.usage) {
		// The same object, byte for byte, as the line before: the same
		// reading (it ends with its '}', so nothing after it counts).
		*u = c.tok
		s.i += len(c.usage)
		return true
	}
	start := s.i
	ok := s.usageRead(u)
	if c != nil && s.err == nil && ok && s.i-start <= maxUsageMemo {
		c.usage, c.tok = append(c.usage[:0], s.b[start:s.i]...), *u
	}
	return ok
}

func (s *skim) usageRead(u *event.Tokens) bool {
	if !s.open('{') {
		return false
	}
	for n := 0; s.member(&n); n++ {
		switch s.kid {
		case keyInputTokens:
			u.In = s.numVal()
		case keyOutputTokens:
			u.Out = s.numVal()
		case keyCacheReadInputTokens:
			u.CacheRead = s.numVal()
		case keyCacheCreationInputTokens:
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
		switch s.kid {
		case keyType:
			b.Type = s.jtext()
		case keyID:
			b.ID = s.jtext()
		case keyName:
			b.Name = s.jtext()
		case keyToolUseID:
			b.ToolUseID = s.jtext()
		case keyIsError:
			b.IsError = s.boolVal()
		case keyContent:
			j, isStr := s.strVal()
			b.Rejected = isStr && rejected(j)
		case keyText:
			b.Text, _ = s.strVal()
		case keyInput:
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
			r := int(s.kid) - int(keySummary)
			if r < 0 || r >= len(vals) {
				s.skip()
				continue
			}
			vals[r], _ = s.strVal()
		}
	}
	return pickSummary(vals[:])
}
