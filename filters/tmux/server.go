package tmux

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Version is what tmux -V says of the tmux program ("3.3a", "next-3.6").
func (c *Client) Version(ctx context.Context) (string, error) {
	path, err := c.path()
	if err != nil {
		return "", err
	}
	null, err := devNull()
	if err != nil {
		return "", err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		return "", err
	}
	defer outR.Close()
	p, err := os.StartProcess(path, []string{path, "-V"}, &os.ProcAttr{Files: []*os.File{null, outW, null}})
	outW.Close()
	if err != nil {
		return "", err
	}
	stop := context.AfterFunc(ctx, func() { p.Kill() })
	defer stop()
	b, _ := io.ReadAll(io.LimitReader(outR, 256))
	p.Wait()
	v := strings.TrimSpace(string(b))
	v = strings.TrimPrefix(v, "tmux ")
	if v == "" {
		return "", errors.New("tmux -V said nothing")
	}
	return v, nil
}

// version is Version, asked once per Client ("" when tmux said nothing).
func (c *Client) version(ctx context.Context) string {
	c.verOnce.Do(func() { c.ver, _ = c.Version(ctx) })
	return c.ver
}

// Follows reports whether tmux version v has what a control client
// needs: attach-session -f, format subscriptions (refresh-client -B) and
// -N, all new in 3.2. A version that holds no number (a build from git,
// "master") is taken to have them.
func Follows(v string) bool {
	if strings.HasPrefix(v, "openbsd-") {
		return true // OpenBSD has carried 3.2's features since 6.9
	}
	ma, mi, ok := versionNumber(v)
	return !ok || ma > 3 || ma == 3 && mi >= 2
}

// SocketPath is the socket of the server c reaches, as tmux finds it:
// -S; else -L's name, or $TMUX's socket when neither is given, or
// "default", in $TMUX_TMPDIR (or /tmp) under tmux-UID.
func (c *Client) SocketPath() string {
	if c.Socket != "" {
		return c.Socket
	}
	name := c.Name
	if name == "" {
		if t := os.Getenv("TMUX"); t != "" {
			if sock, _, _ := strings.Cut(t, ","); sock != "" {
				return sock
			}
		}
		name = "default"
	}
	dir := os.Getenv("TMUX_TMPDIR")
	if dir == "" {
		dir = "/tmp"
	}
	return filepath.Join(dir, "tmux-"+strconv.Itoa(os.Getuid()), name)
}

// Listening reports whether a server accepts connections on the socket
// at path (a socket file outlives the server that made it).
func Listening(path string) bool {
	c, err := net.DialTimeout("unix", path, time.Second)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// SocketWatch tells, without polling, when a tmux server may have
// started on a socket: the socket made (a server starts by making it
// anew, over the file a dead one left) or its mode changed (tmux marks
// it when a client attaches, as to a server that had no session), or a
// folder on its way made (tmux-UID, at a server's first start). What it
// tells is a hint: ask the server.
type SocketWatch struct {
	path  string
	w     *fsnotify.Watcher
	dir   string // the folder watched: the socket's, or the nearest there is
	hint  chan struct{}
	done  chan struct{}
	ended chan struct{}
}

// WatchSocket starts watching for a server on the socket at path.
func WatchSocket(path string) (*SocketWatch, error) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	s := &SocketWatch{path: filepath.Clean(path), w: w, hint: make(chan struct{}, 1),
		done: make(chan struct{}), ended: make(chan struct{})}
	if err := s.arm(); err != nil {
		w.Close()
		return nil, err
	}
	go s.run()
	return s, nil
}

// Hint is ready when the socket, or the way to it, changed.
func (s *SocketWatch) Hint() <-chan struct{} { return s.hint }

// Close stops watching.
func (s *SocketWatch) Close() {
	close(s.done)
	s.w.Close()
	<-s.ended
}

// arm watches the socket's folder, or, while that is not there, the
// nearest folder above it that is.
func (s *SocketWatch) arm() error {
	dir := filepath.Dir(s.path)
	for {
		if err := s.w.Add(dir); err == nil {
			break
		} else if !errors.Is(err, os.ErrNotExist) && !errors.Is(err, os.ErrPermission) {
			return err
		}
		up := filepath.Dir(dir)
		if up == dir {
			return errors.New("no folder on the way to " + s.path + " can be watched")
		}
		dir = up
	}
	if s.dir != "" && s.dir != dir {
		s.w.Remove(s.dir)
	}
	s.dir = dir
	return nil
}

func (s *SocketWatch) run() {
	defer close(s.ended)
	for {
		select {
		case <-s.done:
			return
		case ev, ok := <-s.w.Events:
			if !ok {
				return
			}
			name := filepath.Clean(ev.Name)
			switch {
			case name == s.path:
			case name == s.dir && ev.Has(fsnotify.Remove|fsnotify.Rename):
				// The folder watched went: watch the nearest left.
				s.w.Remove(s.dir)
				s.dir = ""
				if s.arm() != nil {
					continue
				}
			case s.dir != filepath.Dir(s.path) && strings.HasPrefix(s.path, name+string(filepath.Separator)):
				// A folder on the way: watch further down, then look
				// (the socket may be there already).
				if s.arm() != nil {
					continue
				}
			default:
				continue
			}
			select {
			case s.hint <- struct{}{}:
			default:
			}
		case _, ok := <-s.w.Errors:
			if !ok {
				return
			}
			// Lost notifications (a queue overflow): look anyway.
			select {
			case s.hint <- struct{}{}:
			default:
			}
		}
	}
}
