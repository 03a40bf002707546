package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// repoRoot is the repository's root, from this package's folder.
var repoRoot = filepath.Join("..", "..")

// runnableInfo is the word of a fence's info string that marks a block
// runnable: ```sh runnable (docs/development.md, "Runnable documentation");
// norunInfo marks one the tests do not run, followed by why
// (```sh norun needs a real API key).
const (
	runnableInfo = "runnable"
	norunInfo    = "norun"
)

// TestDocCommands runs every runnable block of README.md and docs/*.md
// against the real binary, so the commands the documentation shows cannot
// go stale: one testscript per page, its blocks in order, each with
// `sh -e`, in an empty trusted workspace with a fresh HOME whose config
// points at the fake LLM server (which answers "ok").
func TestDocCommands(t *testing.T) {
	pages, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	pages = append([]string{filepath.Join(repoRoot, "README.md")}, pages...)
	dir := t.TempDir()
	perPage := map[string]int{}
	for _, page := range pages {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(repoRoot, page)
		blocks := runnableBlocks(string(b))
		perPage[rel] = len(blocks)
		if len(blocks) == 0 {
			continue
		}
		script, err := docScript(rel, blocks)
		if err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		name := strings.NewReplacer("/", "_", ".md", "").Replace(filepath.ToSlash(rel)) + ".txtar"
		if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The front page and the skills page always show commands to run: a
	// marker lost in an edit must not turn the check off unnoticed.
	for _, p := range []string{"README.md", filepath.Join("docs", "skills.md")} {
		if perPage[p] == 0 {
			t.Errorf("%s has no runnable block (```sh %s)", p, runnableInfo)
		}
	}
	testscript.Run(t, scriptParams(dir, openAIConfig))
}

// TestDocShellBlocksMarked: every `sh` block of README.md and docs/*.md is
// either runnable or marked norun with a reason (in the info string after
// the word, or an HTML comment `<!-- norun: REASON -->` on the line
// before), so a command shown to users is never left unchecked by
// oversight.
func TestDocShellBlocksMarked(t *testing.T) {
	t.Parallel()
	for _, page := range docPages(t) {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, why := range unmarkedShellBlocks(string(b)) {
			t.Errorf("%s:%s", page, why)
		}
	}
}

// unmarkedShellBlocks says, per `sh` block of md that is neither runnable
// nor norun with a reason, its line and what is missing.
func unmarkedShellBlocks(md string) []string {
	var out []string
	for _, b := range fencedBlocks(md) {
		if len(b.info) == 0 || b.info[0] != "sh" || slices.Contains(b.info[1:], runnableInfo) {
			continue
		}
		i := slices.Index(b.info, norunInfo)
		switch {
		case i < 0:
			out = append(out, fmt.Sprintf("%d: a sh block neither `sh %s` nor `sh %s REASON`", b.line, runnableInfo, norunInfo))
		case i == len(b.info)-1 && !norunComment.MatchString(b.before):
			out = append(out, fmt.Sprintf("%d: a `sh %s` block without a reason (after the word, or `<!-- norun: REASON -->` on the line before)", b.line, norunInfo))
		}
	}
	return out
}

// norunComment is the line before a norun block that gives its reason.
var norunComment = regexp.MustCompile(`^\s*<!--\s*norun:\s*\S.*-->\s*$`)

func TestUnmarkedShellBlocks(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, md string
		bad      int
	}{
		{"runnable", "```sh runnable\nls\n```\n", 0},
		{"norun with a reason", "```sh norun needs a key\nls\n```\n", 0},
		{"norun with a comment", "<!-- norun: needs a terminal -->\n```sh norun\nls\n```\n", 0},
		{"plain sh", "```sh\nls\n```\n", 1},
		{"norun without a reason", "text\n\n```sh norun\nls\n```\n", 1},
		{"an empty comment", "<!-- norun: -->\n```sh norun\nls\n```\n", 1},
		{"other languages", "```bash\nls\n```\n```toml\na = 1\n```\n```\nplain\n```\n", 0},
		{"inside another block", "````markdown\n```sh\nls\n```\n````\n", 0},
	} {
		if got := unmarkedShellBlocks(tt.md); len(got) != tt.bad {
			t.Errorf("%s: %q, want %d", tt.name, got, tt.bad)
		}
	}
}

// TestDocNoDevNotes: the user pages state measurements plainly, without
// the dated asides of a development log.
func TestDocNoDevNotes(t *testing.T) {
	t.Parallel()
	for _, page := range docPages(t) {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		if m := devNote.FindString(string(b)); m != "" {
			t.Errorf("%s reads like a development note: %q", page, m)
		}
	}
}

// devNote is wording of a development log, not of user documentation.
var devNote = regexp.MustCompile(`(?i)the day's machine|this round's|on a day when|on a slower day|on a quiet run`)

// docPages are README.md and docs/*.md.
func docPages(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{filepath.Join(repoRoot, "README.md")}, pages...)
}

// TestDocUsingIt runs each command of the README's "Using it" list for
// real, offline and with no terminal (chat reads an empty standard input,
// run gets the fake model's "ok"), in the order shown: a command renamed or
// a flag dropped fails here. Alternatives (`list|doctor`) run one by one,
// an optional `[ARG]` is left out, and a placeholder takes a value from
// usingItValues.
func TestDocUsingIt(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	cmds, err := usingItCommands(string(b))
	if err != nil {
		t.Fatal(err)
	}
	if len(cmds) < 5 {
		t.Fatalf("the README's \"Using it\" list has %d commands: %q", len(cmds), cmds)
	}
	var script strings.Builder
	script.WriteString("# The commands of README.md's \"Using it\", generated by TestDocUsingIt.\nfakellm start $WORK/llm.jsonl\nmkdir ws\ncd ws\n")
	for _, c := range cmds {
		script.WriteString("exec")
		for _, w := range c {
			script.WriteString(" '" + strings.ReplaceAll(w, "'", "''") + "'")
		}
		script.WriteString("\n")
	}
	script.WriteString("-- llm.jsonl --\n" + strings.Repeat("{\"text\":\"ok\"}\n", 20))
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "readme_using_it.txtar"), []byte(script.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, scriptParams(dir, openAIConfig))
}

// usingItValues fill the placeholders of the "Using it" commands.
var usingItValues = map[string]string{"NAME": "skill-creator"}

// usingItCommands are the commands of the first fenced block after the
// "## Using it" heading of md: each line's text up to two spaces, split
// into words (double quotes group), expanded as TestDocUsingIt says.
func usingItCommands(md string) ([][]string, error) {
	_, rest, ok := strings.Cut(md, "\n## Using it\n")
	if !ok {
		return nil, fmt.Errorf("no \"## Using it\" heading")
	}
	blocks := fencedBlocks(rest)
	if len(blocks) == 0 {
		return nil, fmt.Errorf("no fenced block under \"## Using it\"")
	}
	var out [][]string
	for _, line := range strings.Split(strings.TrimSpace(blocks[0].body), "\n") {
		cmd := strings.TrimSpace(columnGap.Split(strings.TrimSpace(line), 2)[0])
		words, err := splitWords(cmd)
		if err != nil {
			return nil, fmt.Errorf("%q: %w", line, err)
		}
		if len(words) == 0 || words[0] != "clawseed" {
			return nil, fmt.Errorf("%q does not start with clawseed", line)
		}
		var kept []string
		alt := -1
		for _, w := range words {
			switch {
			case strings.HasPrefix(w, "[") && strings.HasSuffix(w, "]"):
				continue // optional: run without it
			case placeholder.MatchString(w):
				v, ok := usingItValues[w]
				if !ok {
					return nil, fmt.Errorf("%q: no value for %s in usingItValues", line, w)
				}
				w = v
			case strings.Contains(w, "|"):
				alt = len(kept)
			}
			kept = append(kept, w)
		}
		if alt < 0 {
			out = append(out, kept)
			continue
		}
		for _, a := range strings.Split(kept[alt], "|") {
			c := slices.Clone(kept)
			c[alt] = a
			out = append(out, c)
		}
	}
	return out, nil
}

var (
	// columnGap ends a "Using it" line's command: two spaces or more.
	columnGap = regexp.MustCompile(`\s{2,}`)
	// placeholder is a word to fill in: NAME, DIR.
	placeholder = regexp.MustCompile(`^[A-Z][A-Z_]*$`)
)

// splitWords splits a command line at spaces, a pair of double quotes
// making one word; other shell syntax is refused.
func splitWords(s string) ([]string, error) {
	var (
		words  []string
		cur    strings.Builder
		quoted bool
		has    bool
	)
	for _, r := range s {
		switch {
		case r == '"':
			quoted, has = !quoted, true
		case r == ' ' && !quoted:
			if has {
				words = append(words, cur.String())
			}
			cur.Reset()
			has = false
		case !quoted && strings.ContainsRune("\\'$`;&<>(){}*?~", r):
			return nil, fmt.Errorf("shell syntax %q: only double quotes are understood", r)
		default:
			cur.WriteRune(r)
			has = true
		}
	}
	if quoted {
		return nil, fmt.Errorf("an unclosed double quote")
	}
	if has {
		words = append(words, cur.String())
	}
	return words, nil
}

func TestUsingItCommands(t *testing.T) {
	t.Parallel()
	md := "x\n## Using it\n\n```\nclawseed chat   talk\nclawseed run \"explain main.go\"   one turn\nclawseed skills list|doctor  found\nclawseed skills show NAME  one\nclawseed trust [DIR]   trust\n```\n"
	got, err := usingItCommands(md)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"clawseed", "chat"}, {"clawseed", "run", "explain main.go"}, {"clawseed", "skills", "list"},
		{"clawseed", "skills", "doctor"}, {"clawseed", "skills", "show", "skill-creator"}, {"clawseed", "trust"}}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("usingItCommands = %q, want %q", got, want)
	}
	for _, bad := range []string{"clawseed run $(x)  y", "ls  y", "clawseed skills show ID  y"} {
		if _, err := usingItCommands("## Using it\n```\n" + bad + "\n```\n"); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// docScript is the testscript that runs a page's blocks.
func docScript(page string, blocks []string) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "# The runnable blocks of %s, generated by TestDocCommands.\n", page)
	b.WriteString("fakellm start $WORK/llm.jsonl\nmkdir ws\ncd ws\n")
	for i := range blocks {
		fmt.Fprintf(&b, "exec sh -e $WORK/block-%d.sh\n", i+1)
	}
	b.WriteString("-- llm.jsonl --\n")
	b.WriteString(strings.Repeat("{\"text\":\"ok\"}\n", 200))
	for i, block := range blocks {
		for _, line := range strings.Split(block, "\n") {
			if txtarMarker.MatchString(line) {
				return "", fmt.Errorf("block %d: the line %q would end the block in the generated script", i+1, line)
			}
		}
		fmt.Fprintf(&b, "-- block-%d.sh --\n%s", i+1, block)
	}
	return b.String(), nil
}

// txtarMarker is a line that starts a file in a txtar archive.
var txtarMarker = regexp.MustCompile(`^-- .* --$`)

// A fencedBlock is one closed fenced code block of a Markdown page.
type fencedBlock struct {
	// info is the opening fence's info string, in words.
	info []string
	// body is the block's content: its lines without the opening fence's
	// indentation, each ending with a newline.
	body string
	// before is the last non-blank line before the opening fence.
	before string
	// line is the opening fence's line number, from 1.
	line int
}

// fencedBlocks returns the closed fenced code blocks of the Markdown text md
// (CommonMark fences: three or more backticks or tildes, indented at most
// three spaces beyond a list item's indentation; the closing fence is the
// same character, at least as long, with nothing after it). A block's lines
// lose the opening fence's indentation. Fences inside another block are
// content. A block left open runs to the end of the page, as CommonMark
// says, but is not returned: a lost fence must not run the rest of the page.
func fencedBlocks(md string) []fencedBlock {
	var (
		out     []fencedBlock
		in      bool
		fence   string // the opening fence's run of ` or ~
		indent  int
		block   fencedBlock
		before  string
		current strings.Builder
	)
	for i, line := range strings.Split(md, "\n") {
		trimmed := strings.TrimLeft(line, " ")
		ind := len(line) - len(trimmed)
		if !in {
			run := fenceRun(trimmed)
			if run == "" || run[0] == '`' && strings.Contains(trimmed[len(run):], "`") {
				// Not a fence (a backtick in a backtick fence's info string
				// makes it inline code).
				if strings.TrimSpace(line) != "" {
					before = line
				}
				continue
			}
			in, fence, indent = true, run, ind
			block = fencedBlock{info: strings.Fields(trimmed[len(run):]), before: before, line: i + 1}
			current.Reset()
			continue
		}
		if run := fenceRun(trimmed); run != "" && run[0] == fence[0] && len(run) >= len(fence) && strings.TrimSpace(trimmed[len(run):]) == "" {
			in = false
			block.body = current.String()
			out = append(out, block)
			before = line
			continue
		}
		// Drop up to the fence's indentation, as CommonMark does.
		n := min(indent, len(line)-len(strings.TrimLeft(line, " ")))
		current.WriteString(line[n:])
		current.WriteByte('\n')
	}
	return out
}

// runnableBlocks returns the contents of the closed fenced code blocks of
// the Markdown text md whose info string is `sh runnable`.
func runnableBlocks(md string) []string {
	var out []string
	for _, b := range fencedBlocks(md) {
		if len(b.info) > 1 && b.info[0] == "sh" && slices.Contains(b.info[1:], runnableInfo) {
			out = append(out, b.body)
		}
	}
	return out
}

// fenceRun returns the fence at the start of s (three or more backticks or
// tildes), or "".
func fenceRun(s string) string {
	if s == "" || (s[0] != '`' && s[0] != '~') {
		return ""
	}
	n := 0
	for n < len(s) && s[n] == s[0] {
		n++
	}
	if n < 3 {
		return ""
	}
	return s[:n]
}

func TestRunnableBlocks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, md string
		want     []string
	}{
		{"one block", "text\n```sh runnable\nclawseed skills list\n```\n", []string{"clawseed skills list\n"}},
		{"plain sh is not run", "```sh\ngo test ./...\n```\n", nil},
		{"runnable needs sh", "```bash runnable\nls\n```\n", nil},
		{"marker anywhere after sh", "```sh title=x runnable\nls\n```\n", []string{"ls\n"}},
		{"two blocks in order", "```sh runnable\na\n```\n\n```sh runnable\nb\nc\n```\n", []string{"a\n", "b\nc\n"}},
		{"tildes", "~~~sh runnable\na\n~~~\n", []string{"a\n"}},
		{"a longer fence holds a shorter one", "````markdown\n```sh runnable\nnot me\n```\n````\n", nil},
		{"closing fence at least as long", "````sh runnable\na\n```\nb\n````\n", []string{"a\n```\nb\n"}},
		{"other character does not close", "```sh runnable\na\n~~~\n```\n", []string{"a\n~~~\n"}},
		{"indented in a list", "- x:\n\n  ```sh runnable\n  ls ~\n    two\n  ```\n", []string{"ls ~\n  two\n"}},
		{"unclosed block is not run", "```sh runnable\nrm -rf x\n", nil},
		{"closing fence with text is content", "```sh runnable\na\n``` b\n```\n", []string{"a\n``` b\n"}},
		{"inline code is not a fence", "use ``` `x` ``` here\n```sh runnable\na\n```\n", []string{"a\n"}},
		{"empty block", "```sh runnable\n```\n", []string{""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := runnableBlocks(tt.md); !slices.Equal(got, tt.want) {
				t.Errorf("runnableBlocks(%q) = %q, want %q", tt.md, got, tt.want)
			}
		})
	}
}

// FuzzRunnableBlocks: any text gives blocks made only of its own lines,
// and a page whose runnable blocks are wrapped in a longer fence gives
// none.
func FuzzRunnableBlocks(f *testing.F) {
	for _, s := range []string{
		"```sh runnable\nclawseed skills list\n```\n",
		"````markdown\n```sh runnable\nx\n```\n````\n",
		"  ~~~sh runnable\n  a\n  ~~~\n",
		"```sh runnable\n",
		"```\n```sh runnable\n```\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, md string) {
		lines := strings.Split(md, "\n")
		for _, b := range runnableBlocks(md) {
			for _, l := range strings.Split(strings.TrimSuffix(b, "\n"), "\n") {
				if l == "" {
					continue
				}
				if !slices.ContainsFunc(lines, func(x string) bool { return strings.HasSuffix(x, l) }) {
					t.Fatalf("block line %q is not a line of the input", l)
				}
			}
		}
		wrapped := "`````````````````````````````````````````````````text\n" + md + "\n`````````````````````````````````````````````````\n"
		if strings.Count(md, "`````````````````````````````````````````````````") == 0 {
			if got := runnableBlocks(wrapped); len(got) != 0 {
				t.Fatalf("a block inside a longer fence ran: %q", got)
			}
		}
	})
}

// TestDocLinks: every relative link of README.md and docs/*.md names a file
// of the repository, and every #anchor a heading of the page it points to
// (GitHub's anchors), so moving a section cannot leave a link dangling.
func TestDocLinks(t *testing.T) {
	t.Parallel()
	pages, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	pages = append(pages, filepath.Join(repoRoot, "README.md"))
	anchors := map[string]map[string]bool{}
	anchorsOf := func(page string) map[string]bool {
		if a, ok := anchors[page]; ok {
			return a
		}
		b, err := os.ReadFile(page)
		if err != nil {
			return nil
		}
		a := map[string]bool{}
		inFence := ""
		for _, line := range strings.Split(string(b), "\n") {
			if run := fenceRun(strings.TrimLeft(line, " ")); run != "" {
				switch {
				case inFence == "":
					inFence = run
				case run[0] == inFence[0] && len(run) >= len(inFence):
					inFence = ""
				}
				continue
			}
			if inFence == "" && strings.HasPrefix(line, "#") {
				a[githubAnchor(strings.TrimLeft(line, "#"))] = true
			}
		}
		anchors[page] = a
		return a
	}
	for _, page := range pages {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range mdLink.FindAllStringSubmatch(string(b), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, anchor, _ := strings.Cut(target, "#")
			dest := page
			if file != "" {
				dest = filepath.Join(filepath.Dir(page), filepath.FromSlash(file))
				if _, err := os.Stat(dest); err != nil {
					t.Errorf("%s: link %s: %v", page, target, err)
					continue
				}
			}
			if anchor != "" && strings.HasSuffix(dest, ".md") && !anchorsOf(dest)[anchor] {
				t.Errorf("%s: link %s: no heading with that anchor in %s", page, target, dest)
			}
		}
	}
}

// mdLink is an inline Markdown link's target.
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// githubAnchor is the anchor GitHub gives a heading: lower case, spaces to
// hyphens, punctuation other than - and _ dropped.
func githubAnchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r > 127:
			b.WriteRune(r)
		}
	}
	return b.String()
}
