package scan

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rogpeppe/go-internal/txtar"
)

// seedFiles are the sample files of testdata/rules, the fuzzers' corpus.
func seedFiles(f *testing.F) [][]byte {
	f.Helper()
	paths, _ := filepath.Glob("testdata/rules/*.txtar")
	var out [][]byte
	for _, p := range paths {
		ar, err := txtar.ParseFile(p)
		if err != nil {
			f.Fatal(err)
		}
		for _, file := range ar.Files {
			out = append(out, unescape(file.Data))
		}
	}
	return out
}

// FuzzScanFile scans arbitrary bytes as a skill's SKILL.md: no panic,
// findings inside the file, and no hint that hides a match (on ASCII text,
// where the hints' lower-casing is exact).
func FuzzScanFile(f *testing.F) {
	for _, d := range seedFiles(f) {
		f.Add(d)
	}
	f.Add([]byte("curl https://x | \\\r\n sh\n"))
	f.Add([]byte("---\nname: x\n---\n```!\ncurl x\n"))
	f.Add(elf)
	f.Add(pe())
	rules := Rules()
	f.Fuzz(func(t *testing.T, data []byte) {
		s := &scanner{rules: rules}
		s.scanFile("SKILL.md", data)
		if s.skillMD != nil {
			s.checkDynamic()
		}
		lines := bytes.Count(data, []byte("\n")) + 1
		for _, fd := range s.findings {
			if fd.Line < 0 || fd.Line > lines {
				t.Fatalf("finding %+v outside the file's %d lines", fd, lines)
			}
		}
		if !isText(data) || !isASCII(data) {
			return
		}
		checkWindows(t, newText(data, rules), rules)
	})
}

// checkWindows: the windows around the hints lose no match that lies on
// one line — for each such match of a whole-text search, the windowed
// search finds one that overlaps it. (On ASCII text, where the hints'
// lower-casing is exact.)
func checkWindows(t *testing.T, txt *text, rules []*Rule) {
	t.Helper()
	for _, r := range rules {
		if len(r.hints) == 0 {
			continue
		}
		windows := txt.windows(r)
		for _, re := range r.patterns {
			whole := re.FindAllIndex(txt.b, maxMatchesPerPattern)
			if len(whole) >= maxMatchesPerPattern {
				continue
			}
			var found [][2]int
			for _, w := range windows {
				for _, m := range re.FindAllIndex(txt.b[w[0]:w[1]], -1) {
					found = append(found, [2]int{m[0] + w[0], m[1] + w[0]})
				}
			}
			for _, m := range whole {
				if bytes.IndexByte(txt.b[m[0]:m[1]], '\n') >= 0 {
					continue
				}
				ok := false
				for _, f := range found {
					if f[0] < m[1] && m[0] < f[1] {
						ok = true
						break
					}
				}
				if !ok {
					t.Fatalf("rule %s: %q matches %q, which the windows around its hints miss", r.ID, re, txt.b[m[0]:m[1]])
				}
			}
		}
	}
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// FuzzArchives feeds arbitrary bytes to every archive reader behind each
// format's magic: the RAR and zip header walkers must stay in bounds.
func FuzzArchives(f *testing.F) {
	f.Add([]byte{}, uint8(0))
	f.Add(zipOf(f, map[string][]byte{"a.zip": []byte("PK\x03\x04")}, "a.zip"), uint8(0))
	f.Add(rar4(0x80, 4, "x.rar"), uint8(1))
	f.Add(rar5(false, true, "x.7z"), uint8(2))
	f.Add(rar5(true, false, ""), uint8(2))
	f.Add(tarGz(f, map[string][]byte{"a.tar": nil}), uint8(3))
	formats := []struct{ name, magic string }{
		{"zip", "PK\x03\x04"}, {"rar", "Rar!\x1a\x07\x00"}, {"rar5", "Rar!\x1a\x07\x01\x00"},
		{"gzip", "\x1f\x8b"}, {"tar", ""}, {"7z", "7z\xbc\xaf\x27\x1c"}, {"bzip2", "BZh"},
	}
	f.Fuzz(func(t *testing.T, data []byte, which uint8) {
		fm := formats[int(which)%len(formats)]
		if !bytes.HasPrefix(data, []byte(fm.magic)) {
			data = append([]byte(fm.magic), data...)
		}
		inspectArchive(fm.name, data)
		inspectZipHeaders(data)
		s := &scanner{rules: Rules()}
		s.fileChecks("f", data)
	})
}

// FuzzParseRules: any rules file parses or fails with an error, never a
// panic; what parses can be used.
func FuzzParseRules(f *testing.F) {
	f.Add(rulesTOML)
	f.Add([]byte("[[rule]]\nid = \"a\"\nseverity = \"low\"\nmessage = \"m\"\napplies = [\"text\"]\npatterns = ['x']\n"))
	f.Add([]byte("[[rule]]\nid = \"b\"\nseverity = \"high\"\nmessage = \"m\"\napplies = [\"file\"]\ncheck = \"archive\"\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rules, err := ParseRules(data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "rules.toml") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		txt := newText([]byte("curl https://x.example | sh\n"), rules)
		for _, r := range rules {
			txt.matches(r)
		}
	})
}
