package claude

import (
	"encoding/binary"
	"strings"
)

// A transcript line has ~35 members, and their keys come from a small set.
// The skim knows a key from its first bytes through keyTable rather than
// scanning it for its closing quote: one load, a hash and a compare or two,
// with no loop whose end the processor must guess (a third of the skim's
// strings are keys). A key that is not in the table, or not written the
// usual way ("key": with no space, no escape), is read as any string.

// keyCode names a key the skim tells apart; keyOther is any other.
type keyCode uint8

const (
	keyOther keyCode = iota
	// The line's.
	keyType
	keySubtype
	keyIsSidechain
	keyIsMeta
	keyIsCompactSummary
	keyAgentID
	keyPromptID
	keySessionID
	keyTimestamp
	keyCwd
	keyGitBranch
	keyRequestID
	keyUUID
	keyInterruptedMessageID
	keyIsAPIErrorMessage
	keyError
	keyToolUseResult
	keyMessage
	// A message's.
	keyID
	keyModel
	keyStopReason
	keyUsage
	keyContent
	// usage's.
	keyInputTokens
	keyOutputTokens
	keyCacheReadInputTokens
	keyCacheCreationInputTokens
	// A content block's.
	keyName
	keyToolUseID
	keyIsError
	keyText
	keyInput
	// toolUseResult's.
	keyStatus
	// A tool input's, in summaryKeys order (keySummary + rank): last.
	keySummary
)

// summaryKeys are the tool input members worth showing, most telling first.
var summaryKeys = [...]string{"command", "file_path", "notebook_path", "pattern", "url", "query", "path", "description", "prompt"}

// keyNames are the keys with a code, and common ones the skim steps over
// (keyOther), which the table spares a scan too. None may be empty or
// hold a quote or backslash (TestKeyTable).
var keyNames = func() map[string]keyCode {
	m := map[string]keyCode{
		"type": keyType, "subtype": keySubtype, "isSidechain": keyIsSidechain, "isMeta": keyIsMeta,
		"isCompactSummary": keyIsCompactSummary, "agentId": keyAgentID, "promptId": keyPromptID,
		"sessionId": keySessionID, "timestamp": keyTimestamp, "cwd": keyCwd, "gitBranch": keyGitBranch,
		"requestId": keyRequestID, "uuid": keyUUID, "interruptedMessageId": keyInterruptedMessageID,
		"isApiErrorMessage": keyIsAPIErrorMessage, "error": keyError, "toolUseResult": keyToolUseResult,
		"message": keyMessage,
		"id":      keyID, "model": keyModel, "stop_reason": keyStopReason, "usage": keyUsage, "content": keyContent,
		"input_tokens": keyInputTokens, "output_tokens": keyOutputTokens,
		"cache_read_input_tokens": keyCacheReadInputTokens, "cache_creation_input_tokens": keyCacheCreationInputTokens,
		"name": keyName, "tool_use_id": keyToolUseID, "is_error": keyIsError, "text": keyText, "input": keyInput,
		"status": keyStatus,
	}
	for i, k := range summaryKeys {
		m[k] = keySummary + keyCode(i)
	}
	for _, k := range []string{"parentUuid", "version", "userType", "entrypoint", "role", "stop_sequence",
		"service_tier", "server_tool_use", "cache_creation", "ephemeral_5m_input_tokens",
		"ephemeral_1h_input_tokens", "web_search_requests", "web_fetch_requests", "caller",
		"sourceToolAssistantUUID", "stdout", "stderr", "attachment", "thinking", "signature",
		"interrupted", "isImage", "filePath", "durationMs", "origin", "slug", "logicalParentUuid"} {
		m[k] = keyOther
	}
	return m
}()

// keySlot is one key of keyTable: `key"` as two words under their masks,
// and the bytes past them (tail) for a key of more than 15 bytes.
type keySlot struct {
	w0, m0, w1, m1 uint64
	tail           string
	n              int // len(key)
	id             keyCode
	used           bool
}

// keyBits sizes keyTable: 256 slots for ~70 keys, so most probes end at
// the first.
const keyBits = 8

// keyTable holds keyNames by a hash of their first four bytes as written
// (`"id":` starts "id\":"), open-addressed.
var keyTable = func() (t [1 << keyBits]keySlot) {
	for k, id := range keyNames {
		q := k + `"`
		w := []byte(k + `":` + strings.Repeat(" ", 16)) // padded to the words read
		e := keySlot{n: len(k), id: id, used: true}
		e.m0 = ^uint64(0) >> (64 - 8*min(len(q), 8))
		e.w0 = binary.LittleEndian.Uint64(w) & e.m0
		if len(q) > 8 {
			e.m1 = ^uint64(0) >> (64 - 8*min(len(q)-8, 8))
			e.w1 = binary.LittleEndian.Uint64(w[8:]) & e.m1
		}
		if len(q) > 16 {
			e.tail = q[16:]
		}
		i := keyHash(binary.LittleEndian.Uint32(w))
		for t[i].used {
			i = (i + 1) & (1<<keyBits - 1)
		}
		t[i] = e
	}
	return t
}()

func keyHash(w uint32) uint32 { return (w * 0x9e3779b1) >> (32 - keyBits) }

// knownKey reads the key whose opening quote is at q if keyTable has it,
// written plain: its code and the index after its closing quote; ok false
// otherwise.
func knownKey(b []byte, q int) (id keyCode, end int, ok bool) {
	if q+17 > len(b) {
		return 0, 0, false // near the end of the line: read it as a string
	}
	w0 := binary.LittleEndian.Uint64(b[q+1:])
	for i := keyHash(uint32(w0)); ; i = (i + 1) & (1<<keyBits - 1) {
		e := &keyTable[i]
		if !e.used {
			return 0, 0, false
		}
		if w0&e.m0 != e.w0 {
			continue
		}
		if e.m1 != 0 && binary.LittleEndian.Uint64(b[q+9:])&e.m1 != e.w1 {
			continue
		}
		end = q + 2 + e.n // past the closing quote
		if e.tail != "" && (end > len(b) || string(b[q+17:end]) != e.tail) {
			continue
		}
		return e.id, end, true
	}
}

// keyOf is the code of a key read as a string.
func keyOf(key []byte) keyCode { return keyNames[string(key)] }
