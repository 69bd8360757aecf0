package hooksettings

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

const userCommand = `bash -c 'printf "%s | %s" "$(jq -r .model.display_name)" "$PWD"' | sed "s/ /\t/"`

// The shell reads the installed command back into exactly the user's: a
// stand-in ag-hook prints the argument after --then.
func TestStatusLineQuotingThroughSh(t *testing.T) {
	dir := t.TempDir()
	fake := filepath.Join(dir, "ag dir", "ag-hook")
	os.MkdirAll(filepath.Dir(fake), 0o755)
	if err := os.WriteFile(fake, []byte("#!/bin/sh\n[ \"$1 $2\" = 'statusline --then' ] && printf '%s' \"$3\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, old := range []string{userCommand, `echo 'it'"'"'s' $HOME; ~/bin/x --a="b c"`, "printf '%s\\n' \"$(cat)\" | head -c 40 # note", "multi\nline"} {
		cmd := statusLineCommand(fake, old, nil)
		out, err := exec.Command("/bin/sh", "-c", cmd).Output()
		if err != nil || string(out) != old {
			t.Errorf("%s\n  sh gave %q (%v), want %q", cmd, out, err, old)
		}
		if ours, hook, then, _ := ourStatusLine(cmd); !ours || hook != fake || then != old {
			t.Errorf("ourStatusLine(%s) = %v %q %q", cmd, ours, hook, then)
		}
	}
}
