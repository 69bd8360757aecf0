package hookjson

import "strings"

// Quote single-quotes s for a POSIX shell (bash runs Claude's and Codex's
// hook commands), so a path with spaces or quotes stays one word.
func Quote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Words splits a simple shell command line into words, undoing quotes and
// backslashes. It returns nil for anything more than a simple command (a
// pipe, redirection, list, substitution or variable), which is never ours.
func Words(s string) []string {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += 1 + j
			inWord = true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				switch s[i] {
				case '\\':
					if i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
						i++
					}
				case '$', '`':
					return nil
				}
				cur.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil
			}
			inWord = true
		case c == '\\':
			if i+1 >= len(s) {
				return nil
			}
			i++
			cur.WriteByte(s[i])
			inWord = true
		case strings.IndexByte("|&;<>()$`\n*?[#", c) >= 0 && !(inWord && c == '#'):
			return nil
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}
