package opencode

import (
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agwatch/ag/filters/jsonscan"
	"github.com/agwatch/ag/filters/paths"
)

// windows knows the context window of the models OpenCode declares: a
// provider's model in opencode.json (`provider.<id>.models.<id>.limit.
// context`), else the model list OpenCode keeps from models.dev
// ($XDG_CACHE_HOME/opencode/models.json, same shape under each provider).
// The files are read again when they change.
type windows struct {
	files []string
	mtime []time.Time
	sizes map[string]int64 // "provider/model" -> tokens
}

func newWindows(env paths.Env) *windows {
	dir := ConfigDir(env)
	return &windows{files: []string{
		filepath.Join(dir, "opencode.json"), filepath.Join(dir, "opencode.jsonc"), filepath.Join(dir, "config.json"),
		filepath.Join(CacheHome(env), "opencode", "models.json"),
	}}
}

// CacheHome is $XDG_CACHE_HOME, else ~/.cache.
func CacheHome(env paths.Env) string {
	if cache := env("XDG_CACHE_HOME"); cache != "" && filepath.IsAbs(cache) {
		return cache
	}
	return filepath.Join(paths.Home(env), ".cache")
}

// Windows is a model's context window ("provider/model", 0 when none is
// declared) as the files declare it: configs (`provider.<id>.models.<id>.
// limit.context`, JSON or JSONC by name) and models.dev lists (the same
// under each provider), the first file naming a model winning. They are
// read again when they change. For a fork of OpenCode, with its own files.
func Windows(files ...string) func(model string) int64 {
	return (&windows{files: files}).size
}

// size is model's window ("provider/model"), 0 when none is declared.
func (w *windows) size(model string) int64 {
	w.load()
	return w.sizes[model]
}

func (w *windows) load() {
	changed := w.sizes == nil
	if len(w.mtime) != len(w.files) {
		w.mtime = make([]time.Time, len(w.files))
	}
	for i, f := range w.files {
		var m time.Time
		if fi, err := os.Stat(f); err == nil {
			m = fi.ModTime()
		}
		if !m.Equal(w.mtime[i]) {
			w.mtime[i], changed = m, true
		}
	}
	if !changed {
		return
	}
	w.sizes = map[string]int64{}
	// The model list first: the user's config wins.
	for i := len(w.files) - 1; i >= 0; i-- {
		b, err := os.ReadFile(w.files[i])
		if err != nil {
			continue
		}
		if strings.HasSuffix(w.files[i], ".jsonc") {
			b = stripComments(b)
		}
		v, err := jsonscan.Decode(b)
		if err != nil {
			continue
		}
		root := obj(v)
		if p := obj(root["provider"]); p != nil {
			root = p // a config: providers under "provider"
		}
		for pid, pv := range root {
			for mid, mv := range obj(obj(pv)["models"]) {
				if n := num(obj(obj(mv)["limit"])["context"]); n > 0 {
					w.sizes[pid+"/"+mid] = n
				}
			}
		}
	}
}

// stripComments blanks // and /* */ comments outside strings (JSONC).
func stripComments(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		switch {
		case b[i] == '"':
			j := i + 1
			for j < len(b) && b[j] != '"' {
				if b[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(b) {
				return append(out, b[i:]...)
			}
			out = append(out, b[i:j+1]...)
			i = j
		case b[i] == '/' && i+1 < len(b) && b[i+1] == '/':
			for i < len(b) && b[i] != '\n' {
				i++
			}
			out = append(out, '\n')
		case b[i] == '/' && i+1 < len(b) && b[i+1] == '*':
			i += 2
			for i+1 < len(b) && (b[i] != '*' || b[i+1] != '/') {
				i++
			}
			i++
		default:
			out = append(out, b[i])
		}
	}
	return out
}
