package tools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestPDFFixture keeps testdata/pdf/sample.pdf equal to what samplePDF
// writes (-update rewrites it).
func TestPDFFixture(t *testing.T) {
	t.Parallel()
	p := filepath.Join("testdata", "pdf", "sample.pdf")
	want := samplePDF.bytes()
	if *update {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from samplePDF (run with -update)", p)
	}
}

func TestPDFRead(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	sample, err := os.ReadFile(filepath.Join("testdata", "pdf", "sample.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	e.write(t, "docs/sample.pdf", string(sample))
	e.write(t, "docs/v2.pdf", string(testPDF{pages: [][]string{{"A PDF 2.0 file"}}, header: "%PDF-2.0"}.bytes()))
	e.write(t, "docs/locked.pdf", string(testPDF{pages: samplePDF.pages, encrypt: true}.bytes()))
	e.write(t, "docs/cut.pdf", string(sample[:len(sample)/2]))
	e.write(t, "docs/notes.txt", "not a pdf\n")
	e.write(t, "docs/empty.pdf", string(testPDF{pages: [][]string{{}}}.bytes()))
	e.write(t, "secret/hidden.pdf", string(sample))
	symlink(t, filepath.Join(e.outside, "secret.txt"), filepath.Join(e.ws, "docs", "escape.pdf"))
	e.sb.Forbidden = []string{"secret"}
	tool := NewPDFRead(e.sb, PDFReadOptions{})

	all := "docs/sample.pdf: 3 pages.\n\n[page 1]\nQuarterly report\nRevenue grew by 12% (in euros).\n\n" +
		"[page 2]\nPage two: the Café results\nCosts stayed flat.\n\n[page 3]\nAppendix\nContact: finance@example.com"
	tests := []struct {
		name    string
		args    map[string]any
		want    string
		wantErr bool
	}{
		{name: "all pages", args: map[string]any{"path": "docs/sample.pdf"}, want: all},
		{name: "absolute path", args: map[string]any{"path": filepath.Join(e.ws, "docs/sample.pdf")},
			want: strings.Replace(all, "docs/sample.pdf", filepath.Join(e.ws, "docs/sample.pdf"), 1)},
		{name: "one page", args: map[string]any{"path": "docs/sample.pdf", "pages": "2"},
			want: "docs/sample.pdf: 3 pages.\n\n[page 2]\nPage two: the Café results\nCosts stayed flat."},
		{name: "ranges", args: map[string]any{"path": "docs/sample.pdf", "pages": "3, 1-1"},
			want: "docs/sample.pdf: 3 pages.\n\n[page 3]\nAppendix\nContact: finance@example.com\n\n[page 1]\nQuarterly report\nRevenue grew by 12% (in euros)."},
		{name: "open range", args: map[string]any{"path": "docs/sample.pdf", "pages": "2-"},
			want: "docs/sample.pdf: 3 pages.\n\n[page 2]\nPage two: the Café results\nCosts stayed flat.\n\n[page 3]\nAppendix\nContact: finance@example.com"},
		{name: "range past the end", args: map[string]any{"path": "docs/sample.pdf", "pages": "3-9"},
			want: "docs/sample.pdf: 3 pages.\n\n[page 3]\nAppendix\nContact: finance@example.com"},
		{name: "max_chars inside a page", args: map[string]any{"path": "docs/sample.pdf", "max_chars": 60},
			want: "docs/sample.pdf: 3 pages.\n\n[page 1]\nQuarterly report\nRevenue grew by 12% (in euros).\n\n[page 2]\nPage two: th" +
				"\n\n[Stopped at 60 characters, inside page 2 (33 more characters on it). To read on, call pdf_read with pages=\"2-3\".]"},
		{name: "max_chars at a page end", args: map[string]any{"path": "docs/sample.pdf", "max_chars": 48},
			want: "docs/sample.pdf: 3 pages.\n\n[page 1]\nQuarterly report\nRevenue grew by 12% (in euros).\n\n[Stopped at 48 characters. To read on, call pdf_read with pages=\"2-3\".]"},
		{name: "pdf 2.0", args: map[string]any{"path": "docs/v2.pdf"}, want: "docs/v2.pdf: 1 page.\n\n[page 1]\nA PDF 2.0 file"},
		{name: "page without text", args: map[string]any{"path": "docs/empty.pdf"},
			want: "docs/empty.pdf: 1 page.\n\n[page 1]\n(no text on this page; it may be a scanned image)"},
		{name: "page past the end", args: map[string]any{"path": "docs/sample.pdf", "pages": "4"}, wantErr: true,
			want: "Cannot read docs/sample.pdf: page 4 does not exist: the PDF has 3 pages."},
		{name: "bad pages", args: map[string]any{"path": "docs/sample.pdf", "pages": "two"}, wantErr: true,
			want: `Invalid pages: "two" is not a page or page range (write pages like "1-3,5" or "10-"; pages start at 1).`},
		{name: "backwards range", args: map[string]any{"path": "docs/sample.pdf", "pages": "3-1"}, wantErr: true,
			want: `Invalid pages: page range "3-1" goes backwards; write it as 1-3.`},
		{name: "encrypted", args: map[string]any{"path": "docs/locked.pdf"}, wantErr: true,
			want: "docs/locked.pdf is encrypted with a password; pdf_read cannot read it."},
		{name: "truncated", args: map[string]any{"path": "docs/cut.pdf"}, wantErr: true,
			want: "Cannot read docs/cut.pdf: the file is not a readable PDF (not a PDF file: missing %%EOF)."},
		{name: "not a pdf", args: map[string]any{"path": "docs/notes.txt"}, wantErr: true,
			want: "Cannot read docs/notes.txt: the file is not a readable PDF (not a PDF file: invalid header)."},
		{name: "missing", args: map[string]any{"path": "docs/none.pdf"}, wantErr: true, want: "File docs/none.pdf does not exist."},
		{name: "directory", args: map[string]any{"path": "docs"}, wantErr: true, want: "docs is a directory; use glob_search to find the PDF files in it."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, tool, tt.args)
			if res.IsError != tt.wantErr || res.Content != tt.want {
				t.Errorf("got (error %v):\n%s", res.IsError, cmp.Diff(tt.want, res.Content))
			}
		})
	}
}

// TestPDFReadConfinement: the sandbox decides, as for every file tool.
func TestPDFReadConfinement(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	sample := string(samplePDF.bytes())
	e.write(t, "secret/hidden.pdf", sample)
	writeFile(t, filepath.Join(e.outside, "out.pdf"), sample)
	symlink(t, filepath.Join(e.outside, "out.pdf"), filepath.Join(e.ws, "link.pdf"))
	e.sb.Forbidden = []string{"secret"}
	tool := NewPDFRead(e.sb, PDFReadOptions{})
	for _, p := range []string{"secret/hidden.pdf", "../outside/out.pdf", filepath.Join(e.outside, "out.pdf"), "link.pdf"} {
		res := call(t, tool, map[string]any{"path": p})
		if !res.IsError || strings.Contains(res.Content, "Quarterly") {
			t.Errorf("%s: %+v", p, res)
			continue
		}
		// The refusal is the sandbox's own sentence.
		_, want := e.sb.ResolveRead(p)
		if want == nil || res.Content != want.Error() {
			t.Errorf("%s: got %q, want the sandbox refusal %v", p, res.Content, want)
		}
	}
}

func TestParsePages(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		n       int
		want    []int
		wantErr string
	}{
		{in: "", n: 3, want: []int{1, 2, 3}},
		{in: "all", n: 2, want: []int{1, 2}},
		{in: "1-3,5", n: 9, want: []int{1, 2, 3, 5}},
		{in: " 2 - 4 , 3 ", n: 9, want: []int{2, 3, 4}},
		{in: "7-", n: 9, want: []int{7, 8, 9}},
		{in: "5,1", n: 9, want: []int{5, 1}},
		{in: "2-20", n: 3, want: []int{2, 3}},
		{in: "4", n: 3, wantErr: "page 4 does not exist: the PDF has 3 pages"},
		{in: "0", n: 3, wantErr: `"0" is not a page or page range (write pages like "1-3,5" or "10-"; pages start at 1)`},
		{in: "-3", n: 3, wantErr: `"-3" is not a page or page range (write pages like "1-3,5" or "10-"; pages start at 1)`},
		{in: "1,,2", n: 3, wantErr: `"" is not a page or page range (write pages like "1-3,5" or "10-"; pages start at 1)`},
		{in: "1-2-3", n: 3, wantErr: `"1-2-3" is not a page or page range (write pages like "1-3,5" or "10-"; pages start at 1)`},
	}
	for _, tt := range tests {
		set, err := parsePages(tt.in)
		var got []int
		if err == nil {
			got, err = set.pages(tt.n)
		}
		if tt.wantErr != "" {
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("%q: error %v, want %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || !cmp.Equal(got, tt.want) {
			t.Errorf("%q: %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}

// FuzzParsePages: any selection either fails or yields distinct pages
// within the document.
func FuzzParsePages(f *testing.F) {
	for _, s := range []string{"", "1-3,5", "7-", "2,2,1-9", "0", "x", "1-2-3", " 4 ", "99999999999999999999"} {
		f.Add(s, 10)
	}
	f.Fuzz(func(t *testing.T, s string, n int) {
		if n < 1 || n > 10000 {
			return
		}
		set, err := parsePages(s)
		if err != nil {
			return
		}
		pages, err := set.pages(n)
		if err != nil {
			return
		}
		seen := map[int]bool{}
		for _, p := range pages {
			if p < 1 || p > n || seen[p] {
				t.Fatalf("%q over %d pages gave %v", s, n, pages)
			}
			seen[p] = true
		}
	})
}

// FuzzExtractPDF: a damaged PDF is an error, never a panic or a hang.
func FuzzExtractPDF(f *testing.F) {
	f.Add(samplePDF.bytes())
	f.Add(testPDF{pages: [][]string{{"x"}}, encrypt: true}.bytes())
	f.Add(testPDF{pages: [][]string{{"A", "B"}, {}}, header: "%PDF-2.0"}.bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		// Inputs the pre-checks miss can still make the library loop; the
		// deadline abandons them (production runs the library in a child).
		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
		defer cancel()
		doc, err := extractPDF(ctx, bytes.NewReader(data), int64(len(data)), nil, 10000)
		if err == nil && doc.NumPages < 1 {
			t.Fatalf("no error and %d pages", doc.NumPages)
		}
	})
}

// pdfChildArg makes the test binary act as the PDF extraction child of
// ChildPDF, as clawseed's hidden command does.
const pdfChildArg = "-clawseed-pdf-child"

func init() {
	if len(os.Args) > 1 && os.Args[1] == pdfChildArg {
		if err := ServePDFText(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
}

func testChild(t *testing.T) PDFExtractor {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	return ChildPDF(nil, exe, "tools.test", pdfChildArg)
}

// hangPDF is the input fuzzing found first: a page whose content stream
// ends inside a hex string, on which the PDF library loops for ever.
func hangPDF(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "fuzz", "FuzzExtractPDF", "hex_string_at_end_of_content"))
	if err != nil {
		t.Fatal(err)
	}
	// The corpus file holds a Go-quoted []byte literal.
	lit := strings.TrimSuffix(strings.TrimPrefix(strings.SplitN(string(b), "\n", 2)[1], "[]byte("), ")\n")
	s, err := strconv.Unquote(lit)
	if err != nil {
		t.Fatal(err)
	}
	return []byte(s)
}

// TestPDFHangInputs: inputs that make the PDF library loop for ever end in
// an error: the known one is caught before the library sees it, and the
// child process contains what is not known (here a cyclic /Prev chain,
// which loops inside the library's file opening).
func TestPDFHangInputs(t *testing.T) {
	t.Parallel()
	doc, err := inProcessPDF(t.Context(), hangPDF(t), "", 0)
	if err != nil {
		t.Fatal(err)
	}
	if want := "the page's content stream ends inside a hex string (the PDF is damaged)"; doc.Pages[1].Err != want || doc.Pages[0].Text != "A\nB" {
		t.Errorf("pages %+v, want page 2 refused with %q", doc.Pages, want)
	}

	child := testChild(t)
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Second)
	defer cancel()
	_, err = child(ctx, testPDF{pages: [][]string{{"x"}}, prevCycle: true}.bytes(), "", 0)
	if err == nil || !strings.HasPrefix(err.Error(), "reading the PDF took too long") {
		t.Errorf("cyclic /Prev through the child: %v", err)
	}
}

func TestPDFChild(t *testing.T) {
	t.Parallel()
	child := testChild(t)
	in, err := inProcessPDF(t.Context(), samplePDF.bytes(), "2-", 0)
	if err != nil {
		t.Fatal(err)
	}
	out, err := child(t.Context(), samplePDF.bytes(), "2-", 0)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(in, out, cmp.AllowUnexported(pdfDoc{}, pdfPage{})); diff != "" {
		t.Errorf("child differs from in-process extraction:\n%s", diff)
	}
	if _, err := child(t.Context(), testPDF{pages: samplePDF.pages, encrypt: true}.bytes(), "", 0); !errors.Is(err, errPDFEncrypted) {
		t.Errorf("encrypted: %v", err)
	}
	if _, err := child(t.Context(), []byte("not a pdf"), "", 0); err == nil || err.Error() != "the file is not a readable PDF (not a PDF file: invalid header)" {
		t.Errorf("not a PDF: %v", err)
	}
	crash := ChildPDF(nil, "/bin/sh", "sh", "-c", "echo 'fatal error: out of memory' >&2; exit 2")
	if _, err := crash(t.Context(), samplePDF.bytes(), "", 0); err == nil || err.Error() != "the PDF reader failed on this file (exit status 2: fatal error: out of memory); the file is probably damaged" {
		t.Errorf("crashed child: %v", err)
	}
	// pdf_read through the child gives what it gives in process.
	e := newTestEnv(t)
	e.write(t, "a.pdf", string(samplePDF.bytes()))
	viaChild := call(t, NewPDFRead(e.sb, PDFReadOptions{Extract: child}), map[string]any{"path": "a.pdf", "pages": "1"})
	direct := call(t, NewPDFRead(e.sb, PDFReadOptions{}), map[string]any{"path": "a.pdf", "pages": "1"})
	if viaChild != direct {
		t.Errorf("pdf_read via the child: %+v, in process: %+v", viaChild, direct)
	}
}

func TestEndsInHexString(t *testing.T) {
	t.Parallel()
	tests := map[string]bool{
		"BT (A) Tj ET":          false,
		"BT <4142> Tj ET":       false,
		"<<":                    true, // harmless, but a stream never ends so; flagging it is the safe side
		"<< /A 1 >>":            false,
		"(a < b) Tj":            false,
		"BT\n<T":                true,
		"BT <41":                true,
		"BT <4 1\n":             true,
		"BT <414":               true,
		"<":                     true,
		"BT <41 zz> Tj <4142>":  false,
		"BT <41> Tj <":          true,
		"x <4 1 4 2 \x00\f\r\n": true,
		"":                      false,
	}
	for in, want := range tests {
		if got := endsInHexString([]byte(in)); got != want {
			t.Errorf("endsInHexString(%q) = %v, want %v", in, got, want)
		}
	}
}
