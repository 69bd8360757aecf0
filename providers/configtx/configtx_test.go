package configtx

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o640); err != nil {
		t.Fatal(err)
	}
}

func content(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}

func TestReadSeesStaged(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.json")
	write(t, a, "old")
	tx := New()
	if b, ok, err := tx.Read(a); err != nil || !ok || string(b) != "old" {
		t.Fatalf("Read = %q %v %v", b, ok, err)
	}
	tx.Write(a, []byte("mid"))
	tx.Write(a, []byte("new"))
	if b, _, _ := tx.Read(a); string(b) != "new" {
		t.Errorf("Read after Write = %q", b)
	}
	if got := content(t, a); got != "old" {
		t.Errorf("staging wrote the file: %q", got)
	}
	ch, err := tx.Commit()
	if err != nil || len(ch) != 1 || !ch[0].Fresh || ch[0].Backup != a+BackupSuffix {
		t.Fatalf("Commit = %+v, %v", ch, err)
	}
	// Written twice in one run, backed up once: the backup is the file as
	// it was before the run, not the in-between version.
	if got := content(t, a+BackupSuffix); got != "old" {
		t.Errorf("backup = %q, want the original", got)
	}
	if fi, _ := os.Stat(a); fi.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want the file's 0640", fi.Mode().Perm())
	}
}

func TestBackupKeptAcrossRuns(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.json")
	write(t, a, "user")
	for i, next := range []string{"ag1", "ag2", "user"} {
		tx := New()
		tx.Write(a, []byte(next))
		ch, err := tx.Commit()
		if err != nil {
			t.Fatal(err)
		}
		if ch[0].Fresh != (i == 0) {
			t.Errorf("run %d: Fresh = %v", i, ch[0].Fresh)
		}
	}
	if got := content(t, a+BackupSuffix); got != "user" {
		t.Errorf("backup = %q, want the first original", got)
	}
	// The installer says the file holds nothing of ag's: a new original.
	write(t, a, "user2")
	tx := New()
	tx.Original(a)
	tx.Write(a, []byte("ag3"))
	if _, err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := content(t, a+BackupSuffix); got != "user2" {
		t.Errorf("backup = %q, want the newer original", got)
	}
}

func TestAllOrNothing(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "sub", "b")
	write(t, a, "A")
	write(t, b, "B")
	tx := New()
	tx.Write(a, []byte("A2"))
	tx.Write(b, []byte("B2"))
	// Someone else edits b after it was read: nothing may be written.
	write(t, b, "B-user")
	if _, err := tx.Commit(); err == nil {
		t.Fatal("Commit overwrote a file changed since it was read")
	}
	if content(t, a) != "A" || content(t, b) != "B-user" {
		t.Errorf("files after a refused commit: %q %q", content(t, a), content(t, b))
	}
	for _, p := range []string{a, b} {
		if _, err := os.Stat(p + BackupSuffix); err == nil {
			t.Errorf("%s: backup written by a refused commit", p)
		}
	}
	left, _ := filepath.Glob(filepath.Join(dir, "*", ".*.ag-*"))
	left2, _ := filepath.Glob(filepath.Join(dir, ".*.ag-*"))
	if len(left)+len(left2) > 0 {
		t.Errorf("temporary files left: %v %v", left, left2)
	}
}

func TestRollbackWhenARenameFails(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a")
	write(t, a, "A")
	bdir := filepath.Join(dir, "b")
	b := filepath.Join(bdir, "b")
	write(t, b, "B")
	tx := New()
	tx.Write(a, []byte("A2"))
	tx.Write(b, []byte("B2"))
	changes := tx.Changes()
	if len(changes) != 2 {
		t.Fatalf("Changes = %+v", changes)
	}
	// Make b's rename fail after its temporary is written: replace its
	// target with a directory of the same name.
	f := tx.files[b]
	f.target = filepath.Join(bdir, "dir")
	os.Mkdir(f.target, 0o700)
	os.WriteFile(filepath.Join(f.target, "x"), nil, 0o600)
	f.exists = false // so the on-disk check does not stop it first
	if _, err := tx.Commit(); err == nil {
		t.Fatal("Commit succeeded renaming over a non-empty directory")
	}
	if got := content(t, a); got != "A" {
		t.Errorf("a = %q after a failed commit, want it restored", got)
	}
}

func TestCreateRemoveAndSymlink(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "dotfiles", "settings.json")
	write(t, real, "{}")
	link := filepath.Join(dir, "home", "settings.json")
	os.MkdirAll(filepath.Dir(link), 0o700)
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	plugin := filepath.Join(dir, "home", "plugins", "ag.js")
	gone := filepath.Join(dir, "home", "old.js")
	write(t, gone, "// ag")
	tx := New()
	tx.Write(link, []byte(`{"a":1}`))
	tx.Write(plugin, []byte("// ag v1"))
	tx.Remove(gone)
	tx.Remove(filepath.Join(dir, "never-there"))
	ch, err := tx.Commit()
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, c := range ch {
		paths = append(paths, filepath.Base(c.Path))
		if c.Path == plugin && (!c.Created || c.Backup != "") {
			t.Errorf("new file: %+v", c)
		}
	}
	if !slices.Equal(paths, []string{"settings.json", "ag.js", "old.js"}) {
		t.Errorf("changes %v", paths)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the symlink was replaced")
	}
	if content(t, real) != `{"a":1}` || content(t, plugin) != "// ag v1" {
		t.Errorf("contents %q %q", content(t, real), content(t, plugin))
	}
	if fi, _ := os.Stat(plugin); fi.Mode().Perm() != NewFileMode {
		t.Errorf("new file mode %v", fi.Mode().Perm())
	}
	if _, err := os.Stat(gone); err == nil {
		t.Errorf("removed file still there")
	}
	if content(t, gone+BackupSuffix) != "// ag" {
		t.Errorf("a removed file is backed up too")
	}
	if _, err := os.Stat(link + BackupSuffix); err != nil {
		t.Errorf("backup beside the link: %v", err)
	}
}

func TestNoChangeNoWrite(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a")
	write(t, a, "same")
	tx := New()
	tx.Write(a, []byte("same"))
	if ch := tx.Changes(); len(ch) != 0 {
		t.Errorf("an unchanged file is a change: %+v", ch)
	}
	if _, err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(a + BackupSuffix); err == nil {
		t.Error("backup of an unchanged file")
	}
}

func TestRefusesNonRegular(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := New().Read(dir); err == nil {
		t.Error("Read of a directory succeeded")
	}
}

// TestOursTakesNoBackup: a file that holds nothing but ag's (its install
// made it) is changed or removed without a backup of ag's own text.
func TestOursTakesNoBackup(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "hooks.json")
	write(t, a, `{"hooks":{}}`)
	tx := New()
	tx.Ours(a)
	tx.Remove(a)
	changes, err := tx.Commit()
	if err != nil || len(changes) != 1 || changes[0].Backup != "" {
		t.Fatalf("Commit = %+v %v", changes, err)
	}
	if _, err := os.Stat(a + BackupSuffix); !os.IsNotExist(err) {
		t.Errorf("a backup of ag's own file was taken")
	}
	if _, err := os.Stat(a); !os.IsNotExist(err) {
		t.Errorf("the file is still there")
	}
}
