package t

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// The README is the front door: short, and every page of the manual beyond
// it is reachable from it by links that resolve.
const readmeMaxLines = 300

func TestReadmeShort(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "\n"); n >= readmeMaxLines {
		t.Errorf("README.md has %d lines; it must stay under %d (details go to doc/)", n, readmeMaxLines)
	}
}

// mdLink is a Markdown inline link or image: [text](target) or ![alt](target).
var mdLink = regexp.MustCompile(`\]\(([^()\s]*)\)`)

// TestDocLinks checks every relative link in the README and under doc/ and
// contrib/: the file (or folder) is there and, for a #fragment, the page
// has a heading of that name as GitHub makes it; and that every page under
// doc/ can be reached from the README.
func TestDocLinks(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	var pages []string
	for _, dir := range []string{"doc", "contrib"} {
		filepath.WalkDir(filepath.Join(root, dir), func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
				pages = append(pages, p)
			}
			return nil
		})
	}
	readme := filepath.Join(root, "README.md")
	pages = append(pages, readme)
	links := map[string][]string{} // page -> pages it links to
	for _, page := range pages {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, page)
		for _, line := range codeFree(string(b)) {
			for _, m := range mdLink.FindAllStringSubmatch(line.text, -1) {
				target := m[1]
				if target == "" || strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				file, frag, _ := strings.Cut(target, "#")
				dest := page
				if file != "" {
					dest = filepath.Join(filepath.Dir(page), file)
				}
				st, err := os.Stat(dest)
				if err != nil {
					t.Errorf("%s:%d: link %s: no such file", rel, line.n, target)
					continue
				}
				if st.IsDir() {
					links[page] = append(links[page], dest)
					continue
				}
				links[page] = append(links[page], dest)
				if frag != "" && strings.HasSuffix(dest, ".md") && !slices.Contains(anchors(t, dest), frag) {
					t.Errorf("%s:%d: link %s: no heading makes #%s there", rel, line.n, target, frag)
				}
			}
		}
	}
	// Reachable from the README: a link to a folder reaches the pages in it.
	seen := map[string]bool{readme: true}
	for queue := []string{readme}; len(queue) > 0; { // breadth first
		p := queue[0]
		queue = queue[1:]
		for _, d := range links[p] {
			var next []string
			if st, err := os.Stat(d); err == nil && st.IsDir() {
				for _, q := range pages {
					if filepath.Dir(q) == filepath.Clean(d) {
						next = append(next, q)
					}
				}
			} else {
				next = append(next, d)
			}
			for _, q := range next {
				if !seen[q] {
					seen[q] = true
					queue = append(queue, q)
				}
			}
		}
	}
	for _, p := range pages {
		if rel, _ := filepath.Rel(root, p); strings.HasPrefix(rel, "doc"+string(filepath.Separator)) && !seen[p] {
			t.Errorf("%s: no chain of links from README.md reaches it", rel)
		}
	}
}

type textLine struct {
	n    int
	text string
}

// codeFree is a page's lines outside fenced and indented code blocks, with
// inline code spans blanked: what is shown as code is no link.
func codeFree(s string) []textLine {
	var out []textLine
	fenced := false
	span := regexp.MustCompile("`[^`]*`")
	for i, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fenced = !fenced
			continue
		}
		if fenced || strings.HasPrefix(l, "    ") && !strings.HasPrefix(strings.TrimSpace(l), "-") {
			continue
		}
		out = append(out, textLine{i + 1, span.ReplaceAllString(l, "``")})
	}
	return out
}

// anchors are the fragments GitHub gives a page's headings: lower case,
// punctuation but - and _ dropped, spaces made -, repeats numbered.
func anchors(t *testing.T, page string) []string {
	t.Helper()
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	count := map[string]int{}
	fenced := false
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fenced = !fenced
		}
		if fenced || !strings.HasPrefix(l, "#") {
			continue
		}
		h := strings.TrimSpace(strings.TrimLeft(l, "#"))
		var a strings.Builder
		for _, r := range strings.ToLower(h) {
			switch {
			case r == ' ':
				a.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				a.WriteRune(r)
			}
		}
		s := a.String()
		if n := count[s]; n > 0 {
			out = append(out, s+"-"+strconv.Itoa(n))
		} else {
			out = append(out, s)
		}
		count[s]++
	}
	return out
}
