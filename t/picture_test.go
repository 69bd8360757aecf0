package t

import (
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// doc/picture.sh makes the README's picture where tmux, aha and chromium
// are installed: what it captured is ag's own output (the pane borders,
// the status line's count, the popup, the table), and the PNG has the
// size of the one in the repository (the layout it shows is this script's).
func TestPicture(t *testing.T) {
	for _, p := range []string{"tmux", "aha", "chromium"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("no %s", p)
		}
	}
	if testing.Short() {
		t.Skip("takes 20 s (-short)")
	}
	t.Parallel()
	dir := t.TempDir()
	out, screen := filepath.Join(dir, "ag.png"), filepath.Join(dir, "screen.ans")
	cmd := exec.Command("../doc/picture.sh", binDir, out)
	cmd.Env = append(withoutTMUX(os.Environ()), "PICTURE_SCREEN="+screen)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("picture.sh: %v\n%s", err, b)
	}
	b, err := os.ReadFile(screen)
	if err != nil {
		t.Fatal(err)
	}
	text := screenText(string(b))
	for _, want := range []string{
		"── 0 claude ⏳ Bash", "── 1 codex ⚙ Bash", "── 2 claude ❓ AskUserQuestion", // borders
		"[claude ⏳ Bash] api $", "[⏳2 ⚙1 ✓1] src $", // prompts
		"Needs permission: Bash", "rm -rf build/ && make release", "[a] Approve", // the popup
		"claude  ⏳ waiting  api:fix-release", "codex   ⚙ working   web", "claude  ✓ done      infra:main", // the table
		"0:agents* ❓", "1:infra  ✓", "⏳2", // the status line
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the picture lacks %q; the screen:\n%s", want, text)
		}
	}
	got, want := pngSize(t, out), pngSize(t, "../doc/ag.png")
	if got != want {
		t.Errorf("picture.sh made a %v picture; doc/ag.png is %v: run make picture", got, want)
	}
}

func pngSize(t *testing.T, path string) image.Point {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c, err := png.DecodeConfig(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return image.Point{c.Width, c.Height}
}
