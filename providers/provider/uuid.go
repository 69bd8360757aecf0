package provider

// IsUUID reports whether s is a UUID in its 8-4-4-4-12 hex form. Agents
// name sessions with them; a regexp here would cost every ag program
// start-up time, which prompt segments and hooks cannot spare.
func IsUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < 36; i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				return false
			}
		}
	}
	return true
}
