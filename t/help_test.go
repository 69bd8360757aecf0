package t

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agwatch/ag/filters/termwidth"
)

// helpPages are the --help of every program (and of ag-hook's commands).
var helpPages = [][]string{
	{"ag-hook", "--help"},
	{"ag-hook", "install", "--help"},
	{"ag-hook", "uninstall", "--help"},
	{"ag-hook", "status", "--help"},
	{"ag-hook", "statusline", "--help"},
	{"ag-hook", "claude", "--help"},
	{"ag-tail", "--help"},
	{"ag-detect", "--help"},
	{"ag-fold", "--help"},
	{"ag-notify", "--help"},
	{"ag-keys", "--help"},
}

// TestHelp: every --help fits a screen (40 lines of 80 columns) and is the
// page in testdata/help (go test ./t -run TestHelp -update rewrites them:
// read the diff).
func TestHelp(t *testing.T) {
	for _, argv := range helpPages {
		name := strings.Join(argv[:len(argv)-1], "-")
		t.Run(name, func(t *testing.T) {
			out, err := exec.Command(filepath.Join(binDir, argv[0]), argv[1:]...).Output()
			if err != nil {
				t.Fatalf("%s: %v", strings.Join(argv, " "), err)
			}
			lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
			if len(lines) > 40 {
				t.Errorf("%d lines; a screen is 40", len(lines))
			}
			for i, l := range lines {
				if w := termwidth.Of(l); w > 80 {
					t.Errorf("line %d is %d columns: %q", i+1, w, l)
				}
			}
			golden := filepath.Join("testdata", "help", name+".txt")
			if *update {
				os.MkdirAll(filepath.Dir(golden), 0o755)
				if err := os.WriteFile(golden, out, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (go test ./t -run TestHelp -update writes it)", err)
			}
			if !bytes.Equal(out, want) {
				t.Errorf("%s differs from %s (-update rewrites it):\n%s", strings.Join(argv, " "), golden, out)
			}
		})
	}
}

// TestMan: every manual page renders with man(1) without a warning, and no
// list item or table row was filled into the text before it.
func TestMan(t *testing.T) {
	if _, err := exec.LookPath("groff"); err != nil {
		t.Skip("no groff")
	}
	for _, p := range []string{"ag-hook", "ag-tail", "ag-detect", "ag-fold", "ag-notify", "ag-keys"} {
		t.Run(p, func(t *testing.T) {
			page, err := exec.Command(filepath.Join(binDir, p), "--man").Output()
			if err != nil {
				t.Fatal(err)
			}
			// Outside .nf blocks troff fills lines into paragraphs: a list
			// item or an indented line there would run into the text
			// before it.
			filled := true
			for i, l := range strings.Split(string(page), "\n") {
				switch {
				case l == ".nf":
					filled = false
				case l == ".fi":
					filled = true
				case filled && (strings.HasPrefix(l, "- ") || strings.HasPrefix(l, "  ")):
					t.Errorf("line %d, a list item or indented line left to troff's filling: %q", i+1, l)
				}
			}
			cmd := exec.Command("groff", "-man", "-Tutf8", "-ww", "-z")
			cmd.Stdin = bytes.NewReader(page)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Run(); err != nil || stderr.Len() > 0 {
				t.Errorf("groff: %v\n%s", err, stderr.String())
			}
		})
	}
}

// TestScriptHelp: the scripts' --help fits a screen too, and starts
// nothing (ag-pipeline would otherwise hand it to ag-notify).
func TestScriptHelp(t *testing.T) {
	for _, s := range []string{"ag-pipeline", "ag-remote", "ag-mqtt", "demo/ag-demo"} {
		t.Run(filepath.Base(s), func(t *testing.T) {
			cmd := exec.Command(filepath.Join("..", "contrib", s), "--help")
			cmd.Env = append(os.Environ(), "PATH=/usr/bin:/bin") // no ag programs to start
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("%s --help: %v\n%s", s, err, out)
			}
			lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
			if len(lines) > 40 || len(lines) < 2 {
				t.Errorf("%d lines; a screen is 40", len(lines))
			}
			for i, l := range lines {
				if w := termwidth.Of(l); w > 80 {
					t.Errorf("line %d is %d columns: %q", i+1, w, l)
				}
			}
		})
	}
}

// TestManOnTerminal: --man on a terminal (a pty from script(1)) is the
// page formatted by man(1) and handed to the pager, not troff; into a
// pipe it stays troff, for make man.
func TestManOnTerminal(t *testing.T) {
	t.Parallel()
	for _, p := range []string{"script", "man"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("no %s", p)
		}
	}
	for _, argv := range [][]string{{"ag-fold", "--man"}, {"ag-hook", "install", "--man"}} {
		cmd := exec.Command("script", "-qec", filepath.Join(binDir, argv[0])+" "+strings.Join(argv[1:], " "), "/dev/null")
		cmd.Env = append(os.Environ(), "MANPAGER=cat", "PAGER=cat", "MANWIDTH=80")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: %v\n%s", argv, err, out)
		}
		// man marks bold by overstriking: "N\bNA\bA".
		page := regexp.MustCompile(".\b").ReplaceAllString(string(out), "")
		if strings.Contains(page, ".TH") || strings.Contains(page, `\fB`) ||
			!regexp.MustCompile(`(?m)^NAME\r?$`).MatchString(page) || !strings.Contains(page, argv[0]+" - ") {
			t.Errorf("%s on a terminal is not a formatted page:\n%.600s", argv, page)
		}
	}
	out, err := exec.Command(filepath.Join(binDir, "ag-fold"), "--man").Output()
	if err != nil || !strings.HasPrefix(string(out), ".TH ") {
		t.Errorf("ag-fold --man into a pipe: %v, %.100q; want troff", err, out)
	}
}
