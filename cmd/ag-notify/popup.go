package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/agwatch/ag/filters/notify"
	"github.com/agwatch/ag/filters/regfile"
	"github.com/agwatch/ag/filters/shquote"
	"github.com/agwatch/ag/filters/tmux"
	"github.com/agwatch/ag/providers/provider"
)

// popups is the tmux backend's answer to buttons (--tmux-popup): a wait
// that can be answered opens a display-popup on the clients of the pane's
// session, running ag-notify itself in popup mode. It shows the note and
// reads one line (a, d, r TEXT); the choice comes back over a unix socket
// in a private 0700 directory and becomes a press like a D-Bus button.
// Only paths ag-notify made reach the popup's shell command; the note
// travels in a file.
type popups struct {
	tmux    *tmux.Client
	self    string
	dir     string
	ln      net.Listener
	presses chan<- press

	mu     sync.Mutex
	seq    int
	notes  map[string]*notify.Note // popup id -> note
	bySess map[string]string       // note key -> popup id
	live   map[string][]string     // popup id -> clients still showing it
	wg     sync.WaitGroup
}

func newPopups(t *tmux.Client, presses chan<- press, self string) (*popups, error) {
	if self == "" {
		var err error
		if self, err = os.Executable(); err != nil {
			return nil, err
		}
	}
	dir, err := os.MkdirTemp("", "ag-notify-")
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("unix", filepath.Join(dir, "ctl"))
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	p := &popups{tmux: t, self: self, dir: dir, ln: ln, presses: presses,
		notes: map[string]*notify.Note{}, bySess: map[string]string{}, live: map[string][]string{}}
	p.wg.Add(1)
	go p.accept()
	return p, nil
}

// answerable reports whether a popup has anything to offer for n.
func answerable(n *notify.Note) bool { return len(n.Buttons) > 0 || n.Reply != "" }

// busy returns the clients among cls that show one of our popups now:
// tmux ignores display-popup on a client that already has one.
func (p *popups) busy(cls []string) (free, busy []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	on := map[string]bool{}
	for _, l := range p.live {
		for _, c := range l {
			on[c] = true
		}
	}
	for _, c := range cls {
		if on[c] {
			busy = append(busy, c)
		} else {
			free = append(free, c)
		}
	}
	return free, busy
}

func (p *popups) open(n *notify.Note, clients []string) error {
	p.mu.Lock()
	p.seq++
	id := strconv.Itoa(p.seq)
	p.mu.Unlock()
	file := filepath.Join(p.dir, id+".json")
	b, err := json.Marshal(n)
	if err != nil {
		return err
	}
	if err := os.WriteFile(file, b, 0o600); err != nil {
		return err
	}
	line := shquote.Quote(p.self) + " --popup " + shquote.Quote(file) + " --popup-id " + id +
		" --popup-reply " + shquote.Quote(filepath.Join(p.dir, "ctl"))
	p.mu.Lock()
	p.notes[id], p.bySess[n.Key] = n, id
	p.mu.Unlock()
	for _, cl := range clients {
		// display-popup returns when the popup closes: run it in the
		// background, and remember the client while it is open.
		argv := p.tmux.Command("display-popup", "-c", cl, "-E", "-w", "80", "-h", "12", "-T", " ag ", line)
		cmd := exec.Command(argv[0], argv[1:]...)
		if err := cmd.Start(); err != nil {
			return err
		}
		p.mu.Lock()
		p.live[id] = append(p.live[id], cl)
		p.mu.Unlock()
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			cmd.Wait()
			p.mu.Lock()
			defer p.mu.Unlock()
			cls := p.live[id]
			for i, c := range cls {
				if c == cl {
					p.live[id] = append(cls[:i:i], cls[i+1:]...)
					break
				}
			}
		}()
	}
	return nil
}

// close takes down the session's popup where it is still open, and only
// there: display-popup -C closes whatever popup a client shows.
func (p *popups) close(n *notify.Note) bool {
	p.mu.Lock()
	id, ok := p.bySess[n.Key]
	var cls []string
	if ok {
		delete(p.bySess, n.Key)
		delete(p.notes, id)
		cls = append(cls, p.live[id]...)
		os.Remove(filepath.Join(p.dir, id+".json"))
	}
	p.mu.Unlock()
	for _, cl := range cls {
		argv := p.tmux.Command("display-popup", "-C", "-c", cl)
		exec.Command(argv[0], argv[1:]...).Run()
	}
	return len(cls) > 0
}

// popupAnswer is what popup mode sends back.
type popupAnswer struct {
	ID     string `json:"id"`
	Choice string `json:"choice"` // a, d, r, o
	Text   string `json:"text,omitempty"`
}

func (p *popups) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		var a popupAnswer
		err = json.NewDecoder(io.LimitReader(c, 64<<10)).Decode(&a)
		c.Close()
		if err != nil {
			continue
		}
		p.mu.Lock()
		n := p.notes[a.ID]
		if n != nil {
			delete(p.notes, a.ID)
			if p.bySess[n.Key] == a.ID {
				delete(p.bySess, n.Key)
			}
		}
		p.mu.Unlock()
		if n == nil {
			continue // retracted meanwhile, or answered already
		}
		pr := press{note: n, backend: "tmux", text: a.Text}
		opts := n.Options()
		pair := len(opts) == 0 && len(n.Buttons) == 2
		switch {
		case a.Choice == "a" && pair:
			pr.action = n.Buttons[0].Key
		case a.Choice == "d" && pair:
			pr.action = n.Buttons[1].Key
		case len(a.Choice) == 1 && a.Choice >= "1" && a.Choice <= "9" && int(a.Choice[0]-'1') < len(opts):
			o := opts[a.Choice[0]-'1']
			pr.action, pr.text = o.Key, o.Text
		case a.Choice == "r" && n.Reply != "" && strings.TrimSpace(a.Text) != "":
			pr.action = n.Reply
		case a.Choice == "o":
			pr.action = provider.ActFocus
		}
		if pr.action == "" {
			continue
		}
		select {
		case p.presses <- pr:
		default:
		}
	}
}

func (p *popups) shutdown() {
	p.ln.Close()
	p.mu.Lock()
	var cls [][]string
	for _, c := range p.live {
		cls = append(cls, c)
	}
	p.mu.Unlock()
	for _, cs := range cls {
		for _, cl := range cs {
			argv := p.tmux.Command("display-popup", "-C", "-c", cl)
			exec.Command(argv[0], argv[1:]...).Run()
		}
	}
	p.wg.Wait()
	os.RemoveAll(p.dir)
}

// popupMode is ag-notify inside the popup: show the note, read one line,
// send the choice back. Anything else (Enter, q, Escape then Enter) just
// closes the popup.
func popupMode(ctx context.Context, file, id, reply string, stdin io.Reader, stdout io.Writer) error {
	b, err := regfile.ReadFile(file, 1<<20)
	if err != nil {
		return err
	}
	var n notify.Note
	if err := json.Unmarshal(b, &n); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s\n%s\n", n.Title, n.Subtitle)
	if n.Body != "" {
		fmt.Fprintf(stdout, "\n%s\n", n.Body)
	}
	fmt.Fprintln(stdout)
	var opts []string
	options := n.Options()
	for i, o := range options {
		if i < 9 {
			opts = append(opts, fmt.Sprintf("[%d] %s", i+1, o.Label))
		}
	}
	if len(options) == 0 && len(n.Buttons) == 2 {
		opts = append(opts, "[a] "+n.Buttons[0].Label, "[d] "+n.Buttons[1].Label)
	}
	if n.Reply != "" {
		opts = append(opts, "[r text] Reply")
	}
	opts = append(opts, "[Enter] dismiss")
	fmt.Fprintf(stdout, "%s\n> ", strings.Join(opts, "  "))
	line, _ := bufio.NewReader(stdin).ReadString('\n')
	choice, text, _ := strings.Cut(strings.TrimSpace(line), " ")
	if choice == "" || choice == "q" {
		return nil
	}
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", reply)
	if err != nil {
		return err
	}
	defer c.Close()
	return json.NewEncoder(c).Encode(popupAnswer{ID: id, Choice: choice, Text: text})
}
