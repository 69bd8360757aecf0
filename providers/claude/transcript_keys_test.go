package claude

import (
	"strings"
	"testing"
)

// TestKeyTable: every key the table holds is found written plainly, with
// its code and its end, whatever follows it; a key it does not hold, or
// one that only begins like one it does, is left to be read as a string.
func TestKeyTable(t *testing.T) {
	codes := map[keyCode]string{}
	for k, id := range keyNames {
		if k == "" || strings.ContainsAny(k, `"\`) {
			t.Fatalf("key %q cannot be in the table", k)
		}
		if id != keyOther {
			if other, dup := codes[id]; dup {
				t.Errorf("%q and %q have the same code", k, other)
			}
			codes[id] = k
		}
		for _, rest := range []string{`:1}`, `:"` + strings.Repeat("x", 40) + `"}`, `:{}}`} {
			line := `{"` + k + `"` + rest
			id2, end, ok := knownKey([]byte(line), 1)
			if len(line) < 18 { // too near the end for the words read
				if ok {
					t.Errorf("%s: found with fewer than 16 bytes after its quote", line)
				}
				continue
			}
			if !ok || id2 != id || end != len(k)+3 {
				t.Errorf("%s: knownKey = %d, %d, %v; want %d, %d", line, id2, end, ok, id, len(k)+3)
			}
		}
		for _, near := range []string{k + "x", k[:len(k)-1], "x" + k} {
			line := `{"` + near + `":"` + strings.Repeat("x", 40) + `"}`
			if _, ok := keyNames[near]; ok {
				continue
			}
			if id2, _, ok := knownKey([]byte(line), 1); ok {
				t.Errorf("%q found as a key of code %d", near, id2)
			}
		}
	}
	for c := keyType; c < keySummary+keyCode(len(summaryKeys)); c++ {
		if codes[c] == "" {
			t.Errorf("code %d has no key", c)
		}
	}
}
