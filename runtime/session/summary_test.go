package session

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/clawseed/clawseed/providers"
)

// sections builds the fixed sections with the given bodies, in order.
func sections(bodies ...string) []SummarySection {
	out := make([]SummarySection, len(summarySections))
	for i, name := range summarySections {
		out[i].Name = name
		if i < len(bodies) {
			out[i].Body = bodies[i]
		}
	}
	return out
}

func TestParseSummary(t *testing.T) {
	t.Parallel()
	stamp := time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name string
		text string
		want Summary
	}{
		{name: "empty", text: "", want: Summary{Sections: sections()}},
		{
			name: "rendered file",
			text: "<!-- clawseed session summary: messages=42 tokens=18234 updated=2026-11-28T10:00:00Z -->\n# Task\nFix the parser.\n\n# Decisions\n- keep the API\n\n# Files touched\nparse.go\n\n# Open questions\n\n# Next steps\nRun the tests.\n",
			want: Summary{Messages: 42, Tokens: 18234, Updated: stamp, Sections: sections("Fix the parser.", "- keep the API", "parse.go", "", "Run the tests.")},
		},
		{
			name: "no header: covers nothing",
			text: "# Task\nT\n",
			want: Summary{Sections: sections("T")},
		},
		{
			name: "damaged counts cover nothing",
			text: "<!-- clawseed session summary: messages=x tokens=5 -->\n# Task\nT\n",
			want: Summary{Sections: sections("T")},
		},
		{
			name: "negative counts cover nothing",
			text: "<!-- clawseed session summary: messages=-3 tokens=5 -->\n# Task\nT\n",
			want: Summary{Sections: sections("T")},
		},
		{
			name: "unclosed header covers nothing",
			text: "<!-- clawseed session summary: messages=3\n# Task\nT\n",
			want: Summary{Sections: sections("T")},
		},
		{
			name: "other heading levels and cases, CRLF, BOM, preamble dropped",
			text: "\ufeffHere is the summary:\r\n## task\r\nA\r\n### NEXT STEPS ##\r\nB\r\n",
			want: Summary{Sections: sections("A", "", "", "", "B")},
		},
		{
			name: "own sections kept after the fixed ones; sub-headings are body",
			text: "# Notes\nmine\n## Detail\nmore\n# Task\nT\n## Decisions\nD\n",
			want: Summary{Sections: append(sections("T", "D"), SummarySection{Name: "Notes", Body: "mine\n## Detail\nmore"})},
		},
		{
			name: "a fixed section given twice keeps both bodies",
			text: "# Task\none\n# Task\ntwo\n",
			want: Summary{Sections: sections("one\n\ntwo")},
		},
		{
			name: "not headings",
			text: "# Task\n#nospace\n####  deep\n# \n",
			want: Summary{Sections: sections("#nospace\n####  deep\n#")},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got := ParseSummary(c.text)
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("ParseSummary (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSummaryRender(t *testing.T) {
	t.Parallel()
	s := Summary{Messages: 7, Tokens: 900, Updated: time.Date(2026, 11, 28, 10, 0, 0, 5, time.UTC),
		Sections: append(sections("Fix it.", "", "a.go\nb.go"), SummarySection{Name: "Mine", Body: "x"})}
	want := "<!-- clawseed session summary: messages=7 tokens=900 updated=2026-11-28T10:00:00Z -->\n" +
		"# Task\nFix it.\n\n# Decisions\n\n# Files touched\na.go\nb.go\n\n# Open questions\n\n# Next steps\n\n# Mine\nx\n"
	got := s.Render()
	if got != want {
		t.Errorf("Render:\n%s\nwant:\n%s", got, want)
	}
	back := ParseSummary(got)
	if back.Messages != 7 || back.Tokens != 900 || !back.Updated.Equal(time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)) {
		t.Errorf("header read back as %+v", back)
	}
	if diff := cmp.Diff(s.Sections, back.Sections); diff != "" {
		t.Errorf("sections read back (-want +got):\n%s", diff)
	}
	// Sections missing from a Summary, or out of order, render in order.
	partial := Summary{Sections: []SummarySection{{Name: "Next steps", Body: "N"}, {Name: "Task", Body: "T"}}}
	if got, want := partial.Body(), "# Task\nT\n\n# Decisions\n\n# Files touched\n\n# Open questions\n\n# Next steps\nN\n"; got != want {
		t.Errorf("Body of a partial summary:\n%s\nwant:\n%s", got, want)
	}
	if !(Summary{Sections: sections()}).Empty() || (Summary{Sections: sections("", "x")}).Empty() {
		t.Error("Empty is wrong")
	}
}

func TestSummaryCut(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("line of text\n", 20) + "end"
	for _, c := range []struct {
		name            string
		s               Summary
		per, total      int
		want            string
		wantCut         bool
		wantMaxBodySize int
	}{
		{name: "fits", s: Summary{Sections: sections("T", "D")}, per: 100, total: 1000,
			want: Summary{Sections: sections("T", "D")}.Body()},
		{name: "per section, at a line end", s: Summary{Sections: sections(long, "D")}, per: 30, total: 1000,
			want: Summary{Sections: sections("line of text\nline of text\n[…]", "D")}.Body(), wantCut: true},
		{name: "total: later sections get what is left", s: Summary{Sections: sections("aaaa", "bbbbbbbb", "cccc")}, per: 100, total: 8,
			want: Summary{Sections: sections("aaaa", "bbbb\n[…]", "[…]")}.Body(), wantCut: true},
		{name: "a long line is cut at a rune boundary", s: Summary{Sections: sections("ééééé")}, per: 5, total: 100,
			want: Summary{Sections: sections("éé\n[…]")}.Body(), wantCut: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got, cut := c.s.Cut(c.per, c.total)
			if got != c.want || cut != c.wantCut {
				t.Errorf("Cut = %q, %v; want %q, %v", got, cut, c.want, c.wantCut)
			}
		})
	}
}

// FuzzParseSummary: ParseSummary never panics, and what it reads renders
// to a file that reads back the same (rendering is a fixed point after one
// round). The committed corpus is in testdata/fuzz/FuzzParseSummary.
func FuzzParseSummary(f *testing.F) {
	f.Add("<!-- clawseed session summary: messages=42 tokens=18234 updated=2026-11-28T10:00:00Z -->\n# Task\nFix it.\n# Decisions\n# Files touched\na.go\n")
	f.Add("# Task\r\n## Decisions\r\n### next steps\r\nx\r\n# Mine\n## sub\n")
	f.Add("<!-- clawseed session summary: messages=99999999999999999999 -->\n\ufeff# Task #\n# \n#\n")
	f.Add("preamble\n# Open Questions\n\x00\xff\n# Task\n# task\n")
	f.Fuzz(func(t *testing.T, text string) {
		s := ParseSummary(text)
		if len(s.Sections) < len(summarySections) {
			t.Fatalf("%d sections, want at least the %d fixed ones", len(s.Sections), len(summarySections))
		}
		for i, name := range summarySections {
			if s.Sections[i].Name != name {
				t.Fatalf("section %d is %q, want %q", i, s.Sections[i].Name, name)
			}
		}
		once := s.Render()
		again := ParseSummary(once)
		if again.Messages != s.Messages || again.Tokens != s.Tokens {
			t.Fatalf("header %d/%d read back as %d/%d", s.Messages, s.Tokens, again.Messages, again.Tokens)
		}
		if diff := cmp.Diff(s.Sections, again.Sections); diff != "" {
			t.Fatalf("sections after a round trip (-first +again):\n%s", diff)
		}
		if twice := again.Render(); twice != once {
			t.Fatalf("render is not a fixed point:\n%q\n%q", once, twice)
		}
		if body, _ := s.Cut(40, 100); len(body) > len(s.Body())+len(s.Sections)*8 {
			t.Fatalf("Cut made the body longer: %d > %d", len(body), len(s.Body()))
		}
	})
}

func TestSummaryFile(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	w := st.Create(Header{ID: "s1", Workspace: "/ws"})
	sum := Summary{Messages: 2, Tokens: 10, Updated: base, Sections: sections("T")}
	if err := w.WriteSummary(sum); err == nil {
		t.Fatal("a summary was written before the session file exists")
	}
	if _, err := os.Stat(w.SummaryPath()); !os.IsNotExist(err) {
		t.Fatalf("summary file after a refused write: %v", err)
	}
	if got, want := w.SummaryPath(), filepath.Join(st.Dir, "s1.summary.md"); got != want {
		t.Errorf("SummaryPath = %s, want %s", got, want)
	}
	if _, ok, err := w.ReadSummary(); ok || err != nil {
		t.Fatalf("ReadSummary of none: ok %v, %v", ok, err)
	}
	if err := w.RecordMessage(providers.UserText("hi")); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteSummary(sum); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(w.SummaryPath())
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("summary file: %v, mode %v", err, fi.Mode())
	}
	got, ok, err := st.ReadSummary("s1")
	if err != nil || !ok || got.Messages != 2 || got.Sections[0].Body != "T" {
		t.Fatalf("ReadSummary = %+v, %v, %v", got, ok, err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteSummary(sum); err == nil {
		t.Error("a summary was written after Close")
	}
	// Not listed as a session; removed with its session.
	infos, err := st.List()
	if err != nil || len(infos) != 1 {
		t.Fatalf("List = %v, %v", infos, err)
	}
	if err := st.Remove("s1", false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(w.SummaryPath()); !os.IsNotExist(err) {
		t.Errorf("summary left after Remove: %v", err)
	}
	// An id that would leave the folder has no summary path.
	if _, err := st.SummaryPath("../x"); err == nil {
		t.Error("SummaryPath accepted ../x")
	}
}

// TestSummaryFileConfined: a summary file that is a link out of the
// sessions folder, or too large, is refused, not read.
func TestSummaryFileConfined(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	writeSession(t, st, "s1", "/ws", providers.UserText("hi"))
	outside := filepath.Join(t.TempDir(), "secret.md")
	if err := os.WriteFile(outside, []byte("# Task\nsecret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p, _ := st.SummaryPath("s1")
	if err := os.Symlink(outside, p); err != nil {
		t.Fatal(err)
	}
	if _, _, err := st.ReadSummary("s1"); err == nil {
		t.Error("a summary linked out of the sessions folder was read")
	}
	os.Remove(p)
	if err := os.WriteFile(p, []byte(strings.Repeat("x", MaxSummaryBytes+1)), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := st.ReadSummary("s1"); err == nil {
		t.Error("an oversized summary was read")
	}
}

// TestParseCompactionLead: a session's Lead comes from its last
// compaction; files written before the field mean 1.
func TestParseCompactionLead(t *testing.T) {
	t.Parallel()
	comp := func(lead string) string {
		return `{"type":"compaction","compaction":{"summary":"S","messages":[{"role":"user","parts":[{"type":"text","text":"S"}]},{"role":"user","parts":[{"type":"text","text":"P"}]}]` + lead + `}}`
	}
	for _, c := range []struct {
		name string
		data string
		want int
	}{
		{"none", lines(hdr, msg("a")), 0},
		{"old file", lines(hdr, msg("a"), comp("")), 1},
		{"pinned", lines(hdr, msg("a"), comp(`,"lead":2`)), 2},
		{"past the messages", lines(hdr, msg("a"), comp(`,"lead":9`)), 2},
	} {
		s, err := Parse("x.jsonl", []byte(c.data))
		if err != nil {
			t.Fatal(err)
		}
		if s.Lead != c.want {
			t.Errorf("%s: Lead = %d, want %d", c.name, s.Lead, c.want)
		}
	}
}
