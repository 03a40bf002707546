package scan

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/clawseed/clawseed/internal/confine"
)

var update = flag.Bool("update", false, "rewrite the want lines of testdata/rules/*.txtar from the findings")

// A sample is a rule's malicious folder and its benign look-alike, and
// where the rule must fire in the first ("FILE:LINE").
type sample struct {
	bad, good string
	want      []string
	lim       limits
}

var defaultLimits = limits{file: confine.MaxScanFile, skill: confine.MaxScanSkill, files: confine.MaxScanFiles}

// TestRuleSamples runs every rule of rules.toml on its samples: each must
// fire exactly at the lines its sample names in bad/ and never in good/.
// A rule without samples fails: add testdata/rules/<id>.txtar (text) or a
// generator to generatedSamples (binary files, links, caps).
func TestRuleSamples(t *testing.T) {
	ctx := context.Background()
	for _, r := range Rules() {
		t.Run(r.ID, func(t *testing.T) {
			smp := loadSample(t, r.ID)
			got := ruleFindings(t, ctx, smp.bad, r.ID, smp.lim)
			var locs []string
			for _, f := range got {
				locs = append(locs, fmt.Sprintf("%s:%d", f.File, f.Line))
			}
			if *update && smp.want != nil {
				writeWant(t, r.ID, locs)
			} else if !slices.Equal(locs, smp.want) {
				t.Errorf("bad/: %s fired at\n  %v\nwant\n  %v\n(all findings: %v)", r.ID, locs, smp.want, got)
			}
			if len(locs) == 0 {
				t.Errorf("bad/: %s never fired", r.ID)
			}
			if fp := ruleFindings(t, ctx, smp.good, r.ID, smp.lim); len(fp) > 0 {
				t.Errorf("good/: %s fired on the benign look-alike: %v", r.ID, fp)
			}
		})
	}
}

// TestSamplesNameRules keeps testdata/rules free of samples of rules that
// no longer exist.
func TestSamplesNameRules(t *testing.T) {
	files, _ := filepath.Glob("testdata/rules/*.txtar")
	ids := map[string]bool{}
	for _, r := range Rules() {
		ids[r.ID] = true
	}
	for _, f := range files {
		if id := strings.TrimSuffix(filepath.Base(f), ".txtar"); !ids[id] {
			t.Errorf("%s: no rule %q in rules.toml", f, id)
		}
	}
	for id := range generatedSamples {
		if !ids[id] {
			t.Errorf("generatedSamples: no rule %q in rules.toml", id)
		}
	}
}

func ruleFindings(t *testing.T, ctx context.Context, dir, id string, lim limits) []Finding {
	t.Helper()
	all, err := scanDir(ctx, dir, Rules(), lim)
	if err != nil {
		t.Fatal(err)
	}
	var out []Finding
	for _, f := range all {
		if f.Rule == id {
			out = append(out, f)
		}
	}
	return out
}

var escape = regexp.MustCompile(`\\u\{([0-9A-Fa-f]{1,6})\}`)

// unescape turns the \u{XXXX} of a sample into the character, so that
// invisible characters are visible in the sample files.
func unescape(b []byte) []byte {
	return escape.ReplaceAllFunc(b, func(m []byte) []byte {
		n, _ := strconv.ParseUint(string(escape.FindSubmatch(m)[1]), 16, 32)
		return []byte(string(rune(n)))
	})
}

func loadSample(t *testing.T, id string) sample {
	t.Helper()
	dir := t.TempDir()
	smp := sample{bad: filepath.Join(dir, "bad"), good: filepath.Join(dir, "good"), lim: defaultLimits}
	for _, d := range []string{smp.bad, smp.good} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if gen, ok := generatedSamples[id]; ok {
		gen(t, &smp)
		return smp
	}
	ar, err := txtar.ParseFile(filepath.Join("testdata", "rules", id+".txtar"))
	if err != nil {
		t.Fatalf("rule %s has no samples: add testdata/rules/%s.txtar (or a generator): %v", id, id, err)
	}
	smp.want = []string{}
	for _, l := range strings.Split(string(ar.Comment), "\n") {
		if w, ok := strings.CutPrefix(l, "want "); ok {
			smp.want = append(smp.want, strings.TrimSpace(w))
		}
	}
	for _, f := range ar.Files {
		if !strings.HasPrefix(f.Name, "bad/") && !strings.HasPrefix(f.Name, "good/") {
			t.Fatalf("%s.txtar: %s: files go under bad/ or good/", id, f.Name)
		}
		write(t, filepath.Join(dir, f.Name), unescape(f.Data))
	}
	return smp
}

// writeWant rewrites a sample's want lines (-update); review the diff.
func writeWant(t *testing.T, id string, locs []string) {
	path := filepath.Join("testdata", "rules", id+".txtar")
	ar, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var keep []string
	for _, l := range strings.Split(strings.TrimRight(string(ar.Comment), "\n"), "\n") {
		if !strings.HasPrefix(l, "want ") {
			keep = append(keep, l)
		}
	}
	for len(keep) > 0 && keep[len(keep)-1] == "" {
		keep = keep[:len(keep)-1]
	}
	keep = append(keep, "")
	for _, l := range locs {
		keep = append(keep, "want "+l)
	}
	ar.Comment = []byte(strings.Join(keep, "\n") + "\n\n")
	if err := os.WriteFile(path, txtar.Format(ar), 0o644); err != nil {
		t.Fatal(err)
	}
}

func write(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// zipOf builds a zip of name → data; names in encrypted get the
// encryption bit (the data is not really encrypted: the scanner reads
// only headers).
func zipOf(t testing.TB, files map[string][]byte, encrypted ...string) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		h := &zip.FileHeader{Name: n, Method: zip.Store}
		if slices.Contains(encrypted, n) {
			h.Flags |= 1
		}
		fw, err := w.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		fw.Write(files[n])
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func tarGz(t testing.TB, files map[string][]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		tw.WriteHeader(&tar.Header{Name: n, Mode: 0o644, Size: int64(len(files[n])), Typeflag: tar.TypeReg})
		tw.Write(files[n])
	}
	tw.Close()
	zw.Close()
	return buf.Bytes()
}

// rar4 builds a RAR 4 archive: the main header with flags, one file
// header with fileFlags and name.
func rar4(mainFlags, fileFlags uint16, name string) []byte {
	b := []byte("Rar!\x1a\x07\x00")
	b = append(b, 0, 0, 0x73)
	b = binary.LittleEndian.AppendUint16(b, mainFlags)
	b = binary.LittleEndian.AppendUint16(b, 13)
	b = append(b, make([]byte, 6)...)
	h := []byte{0, 0, 0x74}
	h = binary.LittleEndian.AppendUint16(h, fileFlags|0x8000)
	h = binary.LittleEndian.AppendUint16(h, uint16(32+len(name)))
	h = binary.LittleEndian.AppendUint32(h, 0) // packed size
	h = binary.LittleEndian.AppendUint32(h, 0) // unpacked size
	h = append(h, 0)                           // host OS
	h = binary.LittleEndian.AppendUint32(h, 0) // CRC
	h = binary.LittleEndian.AppendUint32(h, 0) // time
	h = append(h, 29, 0x30)                    // version, method
	h = binary.LittleEndian.AppendUint16(h, uint16(len(name)))
	h = binary.LittleEndian.AppendUint32(h, 0) // attributes
	h = append(h, name...)
	return append(b, h...)
}

// rar5 builds a RAR 5 archive of one header: an archive encryption header
// (type 4), or a file header (type 2) with an encryption record when enc.
func rar5(encHeader, enc bool, name string) []byte {
	b := []byte("Rar!\x1a\x07\x01\x00")
	var hdr []byte
	if encHeader {
		hdr = []byte{4, 0, 0, 0}
	} else {
		var extra []byte
		if enc {
			extra = []byte{2, 1, 0} // size 2: type 1 (encryption), 1 byte
		}
		hdr = []byte{2}
		flags := byte(0)
		if len(extra) > 0 {
			flags = 1
		}
		hdr = append(hdr, flags)
		if len(extra) > 0 {
			hdr = append(hdr, byte(len(extra)))
		}
		hdr = append(hdr, 0, 0, 0, 0, 0, byte(len(name))) // file flags, size, attrs, compression, host, name length
		hdr = append(hdr, name...)
		hdr = append(hdr, extra...)
	}
	b = append(b, 0, 0, 0, 0, byte(len(hdr)))
	return append(b, hdr...)
}

var (
	elf     = append([]byte("\x7fELF\x02\x01\x01\x00"), make([]byte, 56)...)
	machO   = append([]byte("\xcf\xfa\xed\xfe\x07\x00\x00\x01"), make([]byte, 24)...)
	wasm    = []byte("\x00asm\x01\x00\x00\x00")
	png     = append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), make([]byte, 17)...)
	pdf     = []byte("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nendobj\n")
	sqlite  = append([]byte("SQLite format 3\x00"), make([]byte, 84)...)
	skillMD = []byte("---\nname: s\ndescription: A skill.\n---\nBody.\n")
)

func pe() []byte {
	b := make([]byte, 0x80)
	copy(b, "MZ")
	binary.LittleEndian.PutUint32(b[0x3c:], 0x40)
	copy(b[0x40:], "PE\x00\x00")
	return b
}

// generatedSamples make the samples that are not text: binaries,
// archives, links, special files and the caps.
var generatedSamples = map[string]func(t *testing.T, s *sample){
	"archive": func(t *testing.T, s *sample) {
		write(t, filepath.Join(s.bad, "tools.zip"), zipOf(t, map[string][]byte{"a.txt": []byte("hi")}))
		write(t, filepath.Join(s.bad, "data.tar.gz"), tarGz(t, map[string][]byte{"a.txt": []byte("hi")}))
		write(t, filepath.Join(s.good, "logo.png"), png)
		write(t, filepath.Join(s.good, "notes.txt"), []byte("PK is a prefix, not an archive\n"))
		s.want = []string{"data.tar.gz:0", "tools.zip:0"}
	},
	"archive-encrypted": func(t *testing.T, s *sample) {
		write(t, filepath.Join(s.bad, "a.zip"), zipOf(t, map[string][]byte{"run.sh": []byte("x"), "readme": []byte("y")}, "run.sh"))
		write(t, filepath.Join(s.bad, "b.rar"), rar4(0x0080, 0, "x"))
		write(t, filepath.Join(s.bad, "c.rar"), rar4(0, 0x0004, "payload.exe"))
		write(t, filepath.Join(s.bad, "d.rar"), rar5(true, false, ""))
		write(t, filepath.Join(s.bad, "e.rar"), rar5(false, true, "payload.exe"))
		write(t, filepath.Join(s.bad, "f.7z"), append([]byte("7z\xbc\xaf\x27\x1c\x00\x04"), 0x24, 0x06, 0xf1, 0x07, 0x01, 0))
		write(t, filepath.Join(s.good, "a.zip"), zipOf(t, map[string][]byte{"run.sh": []byte("x")}))
		write(t, filepath.Join(s.good, "c.rar"), rar4(0, 0, "readme.txt"))
		write(t, filepath.Join(s.good, "e.rar"), rar5(false, false, "readme.txt"))
		write(t, filepath.Join(s.good, "f.7z"), []byte("7z\xbc\xaf\x27\x1c\x00\x04\x00\x00"))
		s.want = []string{"a.zip:0", "b.rar:0", "c.rar:0", "d.rar:0", "e.rar:0", "f.7z:0"}
	},
	"archive-nested": func(t *testing.T, s *sample) {
		inner := zipOf(t, map[string][]byte{"x": []byte("y")})
		write(t, filepath.Join(s.bad, "a.zip"), zipOf(t, map[string][]byte{"inner.zip": inner}))
		write(t, filepath.Join(s.bad, "b.zip"), zipOf(t, map[string][]byte{"data.bin": inner}))
		write(t, filepath.Join(s.bad, "c.tar.gz"), tarGz(t, map[string][]byte{"docs/readme.md": []byte("hi"), "tools.7z": []byte("7z")}))
		write(t, filepath.Join(s.bad, "d.rar"), rar4(0, 0, "inner.rar"))
		write(t, filepath.Join(s.good, "a.zip"), zipOf(t, map[string][]byte{"a.txt": []byte("hi"), "b.md": []byte("# b")}))
		write(t, filepath.Join(s.good, "c.tar.gz"), tarGz(t, map[string][]byte{"docs/readme.md": []byte("hi")}))
		s.want = []string{"a.zip:0", "b.zip:0", "c.tar.gz:0", "d.rar:0"}
	},
	"binary-executable": func(t *testing.T, s *sample) {
		write(t, filepath.Join(s.bad, "bin/tool"), elf)
		write(t, filepath.Join(s.bad, "bin/tool-mac"), machO)
		write(t, filepath.Join(s.bad, "bin/tool.exe"), pe())
		write(t, filepath.Join(s.bad, "lib.wasm"), wasm)
		write(t, filepath.Join(s.good, "notes.md"), []byte("MZ Tools is an editor add-in.\n"))
		write(t, filepath.Join(s.good, "logo.png"), png)
		s.want = []string{"bin/tool:0", "bin/tool-mac:0", "bin/tool.exe:0", "lib.wasm:0"}
	},
	"opaque-file": func(t *testing.T, s *sample) {
		write(t, filepath.Join(s.bad, "data.db"), sqlite)
		write(t, filepath.Join(s.bad, "blob"), []byte("text\xff\xfe not UTF-8"))
		write(t, filepath.Join(s.good, "logo.png"), png)
		write(t, filepath.Join(s.good, "doc.pdf"), pdf)
		write(t, filepath.Join(s.good, "notes.md"), []byte("Plain text, ünïcödé.\n"))
		s.want = []string{"blob:0", "data.db:0"}
	},
	"symlink-escape": func(t *testing.T, s *sample) {
		write(t, filepath.Join(s.bad, "SKILL.md"), skillMD)
		symlink(t, "/etc/passwd", filepath.Join(s.bad, "passwd"))
		symlink(t, "../../outside", filepath.Join(s.bad, "up"))
		write(t, filepath.Join(s.good, "SKILL.md"), skillMD)
		symlink(t, "SKILL.md", filepath.Join(s.good, "alias.md"))
		os.Mkdir(filepath.Join(s.good, "sub"), 0o755)
		symlink(t, "../SKILL.md", filepath.Join(s.good, "sub", "back.md"))
		s.want = []string{"passwd:0", "up:0"}
	},
	"special-file": func(t *testing.T, s *sample) {
		if err := mkfifo(filepath.Join(s.bad, "pipe")); err != nil {
			t.Skipf("no FIFOs here: %v", err)
		}
		write(t, filepath.Join(s.good, "pipe"), []byte("a file named pipe\n"))
		s.want = []string{"pipe:0"}
	},
	"unreadable-file": func(t *testing.T, s *sample) {
		if os.Geteuid() == 0 {
			t.Skip("root reads every file (TestRefusedFindings covers the rule)")
		}
		write(t, filepath.Join(s.bad, "secret.md"), []byte("x"))
		os.Chmod(filepath.Join(s.bad, "secret.md"), 0)
		write(t, filepath.Join(s.good, "open.md"), []byte("x"))
		s.want = []string{"secret.md:0"}
	},
	"file-too-large": func(t *testing.T, s *sample) {
		s.lim.file = 100
		write(t, filepath.Join(s.bad, "big.md"), bytes.Repeat([]byte("a"), 101))
		write(t, filepath.Join(s.good, "fits.md"), bytes.Repeat([]byte("a"), 100))
		s.want = []string{"big.md:0"}
	},
	"skill-too-large": func(t *testing.T, s *sample) {
		s.lim.files = 3
		for i := range 5 {
			write(t, filepath.Join(s.bad, fmt.Sprintf("f%d.md", i)), []byte("x"))
		}
		for i := range 3 {
			write(t, filepath.Join(s.good, fmt.Sprintf("f%d.md", i)), []byte("x"))
		}
		s.want = []string{"f3.md:0"}
	},
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
}
