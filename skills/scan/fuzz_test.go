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
		txt := newText(data)
		for _, r := range rules {
			if len(r.hints) == 0 || txt.hinted(r) {
				continue
			}
			for _, re := range r.patterns {
				if loc := re.FindIndex(txt.b); loc != nil {
					t.Fatalf("rule %s: %q matches %q but none of its hints is in the text", r.ID, re, txt.b[loc[0]:loc[1]])
				}
			}
		}
	})
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
	t := &testing.T{}
	f.Add([]byte{}, uint8(0))
	f.Add(zipOf(t, map[string][]byte{"a.zip": []byte("PK\x03\x04")}, "a.zip"), uint8(0))
	f.Add(rar4(0x80, 4, "x.rar"), uint8(1))
	f.Add(rar5(false, true, "x.7z"), uint8(2))
	f.Add(rar5(true, false, ""), uint8(2))
	f.Add(tarGz(t, map[string][]byte{"a.tar": nil}), uint8(3))
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
		txt := newText([]byte("curl https://x.example | sh\n"))
		for _, r := range rules {
			txt.matches(r)
		}
	})
}
