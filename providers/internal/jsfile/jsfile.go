// Package jsfile installs a file ag owns whole (the OpenCode and Kilo
// plugin, the Pi and omp extension: JavaScript; Cline's hook scripts:
// shell) into the directory an agent loads it from. The file is ag's by
// its first line (a shell script's first after its "#!" line), a sentinel
// naming ag's file kind and version:
//
//	// ag-opencode-plugin v1.4.0 — reports OpenCode's sessions to ag …
//	# ag-cline-hook v1.4.0 — reports Cline's sessions to ag …
//
// Install writes the contrib source with that version, the absolute path
// of ag-hook and the agent id filled in; it refuses to overwrite a
// same-named file without the sentinel. Uninstall deletes only a file with
// it. Status compares the file with what Install would write: the same is
// Installed, another version or a hand edit Needs repair.
package jsfile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agwatch/ag/providers/configtx"
	"github.com/agwatch/ag/providers/internal/hookjson"
	"github.com/agwatch/ag/providers/provider"
)

// Spec is one file.
type Spec struct {
	Path   string // where the agent loads it from
	Source string // the contrib file as shipped
	Kind   string // the sentinel's word: "ag-opencode-plugin"
	Agent  string // AGENT in the file
	Agent1 string // what the agent is called, for the restart note: "OpenCode"
	// Note is one more line for the user after an install, "" if none.
	Note string
	// Shell makes the file a shell script: its sentinel a "# " comment
	// (after the source's "#!" line, if it has one), its variables
	// NAME='value' lines.
	Shell bool
	// Head, when set, is the sentinel's text after the version in place
	// of the source's (one source installed for two agents: OpenCode's
	// plugin for Kilo), and the source may carry any kind of ag's.
	Head string
	// Vars are variables set like AG_HOOK and AGENT (a hook script's
	// EVENT).
	Vars map[string]string
}

// comment opens the sentinel line.
func (s Spec) comment() string {
	if s.Shell {
		return "# "
	}
	return "// "
}

// shebang splits a shell script's "#!" line (with its newline) off data.
func (s Spec) shebang(data string) (string, string) {
	if s.Shell && strings.HasPrefix(data, "#!") {
		if i := strings.IndexByte(data, '\n'); i >= 0 {
			return data[:i+1], data[i+1:]
		}
	}
	return "", data
}

// Render is the file Install writes: the source with its sentinel's
// version, AG_HOOK, AGENT and Vars replaced.
func (s Spec) Render(hook, version string) ([]byte, error) {
	if version == "" {
		version = "devel"
	}
	bang, src := s.shebang(s.Source)
	head, rest, ok := strings.Cut(src, "\n")
	prefix := s.comment() + s.Kind + " "
	var tail string
	switch {
	case !ok:
		return nil, fmt.Errorf("%s source: no sentinel line", s.Kind)
	case s.Head != "":
		if !strings.HasPrefix(head, s.comment()+"ag-") {
			return nil, fmt.Errorf("%s source: no sentinel line", s.Kind)
		}
		tail = s.Head
	case !strings.HasPrefix(head, prefix):
		return nil, fmt.Errorf("%s source: no sentinel line", s.Kind)
	default:
		_, tail, _ = strings.Cut(strings.TrimPrefix(head, prefix), " ")
	}
	head = prefix + version + " " + tail
	vars := []struct{ name, value string }{{"AG_HOOK", hook}, {"AGENT", s.Agent}}
	for _, k := range slices.Sorted(maps.Keys(s.Vars)) {
		vars = append(vars, struct{ name, value string }{k, s.Vars[k]})
	}
	var err error
	out := rest
	for _, c := range vars {
		if s.Shell {
			out, err = setShellVar(out, c.name, c.value)
		} else {
			out, err = setConst(out, c.name, c.value)
		}
		if err != nil {
			return nil, fmt.Errorf("%s source: %w", s.Kind, err)
		}
	}
	return []byte(bang + head + "\n" + out), nil
}

// setShellVar replaces the line `NAME=…` of a shell script with value,
// single-quoted.
func setShellVar(src, name, value string) (string, error) {
	s := "\n" + src
	start := strings.Index(s, "\n"+name+"=")
	if start < 0 {
		return "", fmt.Errorf("no %s=", name)
	}
	end := strings.IndexByte(s[start+1:], '\n')
	if end < 0 {
		return "", fmt.Errorf("%s=: no end of line", name)
	}
	s = s[:start+1] + name + "=" + hookjson.Quote(value) + s[start+1+end:]
	return s[1:], nil
}

// setConst replaces the line `const NAME = …;` of src with value, quoted
// as JSON (a JSON string is a JavaScript string literal).
func setConst(src, name, value string) (string, error) {
	start := strings.Index(src, "\nconst "+name+" = ")
	if start < 0 {
		return "", fmt.Errorf("no const %s", name)
	}
	end := strings.IndexByte(src[start+1:], '\n')
	if end < 0 {
		return "", fmt.Errorf("const %s: no end of line", name)
	}
	q, err := json.Marshal(value)
	if err != nil {
		return "", err
	}
	return src[:start+1] + "const " + name + " = " + string(q) + ";" + src[start+1+end:], nil
}

// version is the version a sentinel line names, and whether it is one of
// this kind's.
func (s Spec) version(data []byte) (string, bool) {
	if s.Shell && bytes.HasPrefix(data, []byte("#!")) {
		_, data, _ = bytes.Cut(data, []byte("\n"))
	}
	head, _, _ := bytes.Cut(data, []byte("\n"))
	v, ok := bytes.CutPrefix(head, []byte(s.comment()+s.Kind+" "))
	if !ok {
		return "", false
	}
	v, _, _ = bytes.Cut(v, []byte(" "))
	return string(v), true
}

// Install writes the file unless it is already what it should be.
func Install(ie provider.InstallEnv, s Spec) (provider.InstallResult, error) {
	want, err := s.Render(ie.Hook, ie.Version)
	if err != nil {
		return provider.InstallResult{}, err
	}
	return ie.Edit(func(tx *configtx.Tx) (provider.InstallResult, error) {
		res := provider.InstallResult{Path: s.Path}
		have, exists, err := tx.Read(s.Path)
		if err != nil {
			return res, err
		}
		if exists {
			if _, ours := s.version(have); !ours {
				return res, fmt.Errorf("%s exists and is not ag's (its first line is no %q sentinel): move it away or rename it", s.Path, s.comment()+s.Kind)
			}
			if bytes.Equal(have, want) {
				return res, nil
			}
			// Another version of ag's own file: nothing of the user's to
			// back up.
			if err := tx.Ours(s.Path); err != nil {
				return res, err
			}
		}
		if err := tx.Write(s.Path, want); err != nil {
			return res, err
		}
		res.Changed = true
		what := "+ " + filepath.Base(s.Path)
		if exists {
			old, _ := s.version(have)
			what = fmt.Sprintf("~ %s (was %s)", filepath.Base(s.Path), old)
		}
		res.Actions = append(res.Actions, what,
			fmt.Sprintf("! restart %s to load it: a running %s keeps what it loaded at start", s.Agent1, s.Agent1))
		if s.Note != "" {
			res.Actions = append(res.Actions, "! "+s.Note)
		}
		return res, nil
	})
}

// Uninstall deletes the file if it is ag's.
func Uninstall(ie provider.InstallEnv, s Spec) (provider.InstallResult, error) {
	return ie.Edit(func(tx *configtx.Tx) (provider.InstallResult, error) {
		res := provider.InstallResult{Path: s.Path}
		have, exists, err := tx.Read(s.Path)
		if err != nil || !exists {
			return res, err
		}
		if _, ours := s.version(have); !ours {
			return res, fmt.Errorf("%s is not ag's (no %q sentinel): left alone", s.Path, s.comment()+s.Kind)
		}
		// ag's file whole: it goes with no backup of ag's own text.
		if err := tx.Ours(s.Path); err != nil {
			return res, err
		}
		if err := tx.Remove(s.Path); err != nil {
			return res, err
		}
		res.Changed = true
		res.Actions = append(res.Actions, "- "+filepath.Base(s.Path),
			fmt.Sprintf("! a running %s keeps the plugin it loaded until it restarts", s.Agent1))
		return res, nil
	})
}

// Status reads the file.
func Status(ie provider.InstallEnv, s Spec) (provider.InstallStatus, error) {
	st := provider.InstallStatus{Path: s.Path}
	tx := ie.Tx
	if tx == nil {
		tx = configtx.New()
	}
	have, exists, err := tx.Read(s.Path)
	if err != nil || !exists {
		return st, err
	}
	v, ours := s.version(have)
	if !ours {
		st.Reasons = []string{"a file of the same name is not ag's (no sentinel); install will not overwrite it"}
		return st, nil
	}
	want, err := s.Render(ie.Hook, ie.Version)
	if err != nil {
		return st, err
	}
	switch {
	case bytes.Equal(have, want):
		st.State = provider.Installed
	case v != versionOr(ie.Version):
		st.State = provider.NeedsRepair
		st.Reasons = []string{fmt.Sprintf("outdated: ag %s wrote it, this is ag %s", v, versionOr(ie.Version))}
	default:
		st.State = provider.NeedsRepair
		st.Reasons = []string{"it differs from what this ag-hook installs (another ag-hook path, or edited)"}
	}
	return st, nil
}

func versionOr(v string) string {
	if v == "" {
		return "devel"
	}
	return v
}

// Installer is provider.Installer for an agent whose hooks are one file
// ag owns (embed it in the provider): Spec says which, for an environment.
type Installer struct {
	Spec func(env provider.Env) Spec
}

// ConfigPath is the file.
func (i Installer) ConfigPath(env provider.Env) string { return i.Spec(env).Path }

// Install writes it (see Install).
func (i Installer) Install(ie provider.InstallEnv) (provider.InstallResult, error) {
	return Install(ie, i.Spec(ie.Env))
}

// Uninstall deletes it if it is ag's (see Uninstall).
func (i Installer) Uninstall(ie provider.InstallEnv) (provider.InstallResult, error) {
	return Uninstall(ie, i.Spec(ie.Env))
}

// Status reads it (see Status).
func (i Installer) Status(ie provider.InstallEnv) (provider.InstallStatus, error) {
	return Status(ie, i.Spec(ie.Env))
}
